"""Graph metrics on graphs small enough to check by hand (the PageRank equations are solved in the comments)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from graph.errors import GraphDataError
from graph.metrics import compute_metrics


def _frames(edges: list[tuple[str, str, float]], extra_nodes: tuple[str, ...] = ()) -> tuple[pd.DataFrame, ...]:
    ids = sorted({x for u, v, _ in edges for x in (u, v)} | set(extra_nodes))
    nodes = pd.DataFrame({"entity_id": ids, "canonical_name": [i.upper() for i in ids]})
    frame = pd.DataFrame(edges, columns=["src_id", "dst_id", "weight"]).assign(count=1)
    return nodes, frame


def _by_id(result: pd.DataFrame, column: str) -> dict[str, Any]:
    return dict(zip(result["entity_id"], result[column], strict=True))


def test_compute_metrics_star() -> None:
    # hub h, leaves l1..l4, weight 1. N = 5, teleport 0.15 / 5 = 0.03.
    # H = 0.03 + 0.85 * 4L (every leaf gives all to h);  L = 0.03 + 0.85 * H / 4
    # => H = 0.132 / 0.2775 = 0.475676, L = 0.03 + 0.2125 H = 0.131081
    nodes, edges = _frames([("h", f"l{i}", 1.0) for i in range(1, 5)])
    result = compute_metrics(nodes, edges)
    assert _by_id(result, "degree") == {"h": 4, "l1": 1, "l2": 1, "l3": 1, "l4": 1}
    ranks = _by_id(result, "pagerank")
    assert ranks["h"] == pytest.approx(0.132 / 0.2775, abs=1e-4)
    assert ranks["l3"] == pytest.approx(0.03 + 0.2125 * 0.132 / 0.2775, abs=1e-4)


def test_compute_metrics_path() -> None:
    # a - b - c. Teleport 0.05. E = 0.05 + 0.85 M / 2, M = 0.05 + 0.85 * 2E => E = 0.07125 / 0.2775 = 0.256757
    nodes, edges = _frames([("a", "b", 1.0), ("b", "c", 1.0)])
    result = compute_metrics(nodes, edges)
    ranks = _by_id(result, "pagerank")
    assert ranks["a"] == pytest.approx(0.07125 / 0.2775, abs=1e-4)
    assert ranks["b"] == pytest.approx(1 - 2 * 0.07125 / 0.2775, abs=1e-4)
    assert _by_id(result, "degree") == {"a": 1, "b": 2, "c": 1}


def test_compute_metrics_pagerank_is_weight_aware() -> None:
    # a -3- b -1- c: b sends 3/4 of its rank to a, 1/4 to c; a and c send everything to b.
    # M = 0.05 + 0.85 (A + C), A + C = 0.1 + 0.85 M => M = 0.135 / 0.2775 = 0.486486
    # A = 0.05 + 0.85 * 0.75 M = 0.360135, C = 0.05 + 0.85 * 0.25 M = 0.153378
    nodes, edges = _frames([("a", "b", 3.0), ("b", "c", 1.0)])
    result = compute_metrics(nodes, edges)
    ranks = _by_id(result, "pagerank")
    m = 0.135 / 0.2775
    assert ranks["a"] == pytest.approx(0.05 + 0.6375 * m, abs=1e-4)
    assert ranks["c"] == pytest.approx(0.05 + 0.2125 * m, abs=1e-4)
    assert _by_id(result, "weighted_degree") == {"a": 3.0, "b": 4.0, "c": 1.0}


def test_compute_metrics_isolated_node_spreads_its_rank() -> None:
    # a - b plus isolated z (dangling: its rank is spread over all three). Z = 0.05 + 0.85 Z / 3 => Z = 0.069767
    nodes, edges = _frames([("a", "b", 1.0)], extra_nodes=("z",))
    result = compute_metrics(nodes, edges)
    ranks = _by_id(result, "pagerank")
    assert ranks["z"] == pytest.approx(0.05 / (1 - 0.85 / 3), abs=1e-4)
    assert ranks["a"] == pytest.approx((1 - 0.05 / (1 - 0.85 / 3)) / 2, abs=1e-4)
    assert _by_id(result, "degree")["z"] == 0
    assert sum(ranks.values()) == pytest.approx(1.0)


def test_compute_metrics_two_cliques_two_communities() -> None:
    # K5 on b1..b5 and K4 on a1..a4, joined by a4 - b1: two communities; the bigger (the b's) is number 0
    # although its ids sort after the a's.
    k4 = [(f"a{i}", f"a{j}", 1.0) for i in range(1, 5) for j in range(i + 1, 5)]
    k5 = [(f"b{i}", f"b{j}", 1.0) for i in range(1, 6) for j in range(i + 1, 6)]
    nodes, edges = _frames([*k4, *k5, ("a4", "b1", 1.0)])
    result = compute_metrics(nodes, edges)
    community = _by_id(result, "community")
    assert {community[f"b{i}"] for i in range(1, 6)} == {0}
    assert {community[f"a{i}"] for i in range(1, 5)} == {1}


def test_compute_metrics_equal_communities_numbered_by_smallest_id() -> None:
    # two K4s joined by one edge: same size, so the one holding the smallest id ("p1" < "q1") is 0
    def k4(p: str) -> list[tuple[str, str, float]]:
        return [(f"{p}{i}", f"{p}{j}", 1.0) for i in range(1, 5) for j in range(i + 1, 5)]
    nodes, edges = _frames([*k4("q"), *k4("p"), ("p4", "q1", 1.0)], extra_nodes=("zz",))
    community = _by_id(compute_metrics(nodes, edges), "community")
    assert [community[x] for x in ("p1", "p4", "q1", "q4", "zz")] == [0, 0, 1, 1, 2]


def test_compute_metrics_is_deterministic_and_keeps_rows() -> None:
    k4 = [(f"a{i}", f"a{j}", float(i + j)) for i in range(1, 6) for j in range(i + 1, 6)]
    nodes, edges = _frames([*k4, ("a5", "c1", 0.5), ("c1", "c2", 2.0), ("c2", "c3", 2.0)])
    shuffled_nodes = nodes.sample(frac=1.0, random_state=3).reset_index(drop=True)
    first = compute_metrics(shuffled_nodes, edges.sample(frac=1.0, random_state=1))
    second = compute_metrics(shuffled_nodes, edges.sample(frac=1.0, random_state=2))
    pd.testing.assert_frame_equal(first, second)
    assert list(first["entity_id"]) == list(shuffled_nodes["entity_id"])
    assert list(first["canonical_name"]) == list(shuffled_nodes["canonical_name"])


def test_compute_metrics_replaces_old_metrics_and_drops_dangling_edges() -> None:
    nodes, edges = _frames([("a", "b", 1.0)])
    nodes["degree"] = 99
    edges = pd.concat([edges, pd.DataFrame([{"src_id": "a", "dst_id": "ghost", "weight": 1.0, "count": 1}])])
    result = compute_metrics(nodes, edges)
    assert _by_id(result, "degree") == {"a": 1, "b": 1}
    assert list(result.columns).count("degree") == 1


def test_compute_metrics_empty_graph() -> None:
    nodes = pd.DataFrame({"entity_id": pd.Series([], dtype=str)})
    edges = pd.DataFrame({"src_id": [], "dst_id": [], "weight": []})
    result = compute_metrics(nodes, edges)
    assert result.empty and {"degree", "weighted_degree", "pagerank", "community"} <= set(result.columns)


def test_compute_metrics_missing_column_names_it() -> None:
    nodes, edges = _frames([("a", "b", 1.0)])
    with pytest.raises(GraphDataError, match="weight"):
        compute_metrics(nodes, edges.drop(columns=["weight"]))


def test_pagerank_agrees_with_networkx_reference() -> None:
    # networkx's own pure-Python PageRank (private, hence looked up defensively) as an independent reference
    import networkx as nx
    from networkx.algorithms.link_analysis import pagerank_alg

    reference = getattr(pagerank_alg, "_pagerank_python", None)
    if reference is None:
        pytest.skip("networkx no longer ships _pagerank_python")
    graph = nx.karate_club_graph()
    for u, v in graph.edges:
        graph[u][v]["weight"] = (u * 7 + v * 3) % 5 + 1
    graph.add_node(99)  # a dangling node
    edges = pd.DataFrame([(str(u), str(v), w) for u, v, w in graph.edges(data="weight")],
                         columns=["src_id", "dst_id", "weight"])
    nodes = pd.DataFrame({"entity_id": [str(n) for n in graph.nodes]})
    ours = _by_id(compute_metrics(nodes, edges), "pagerank")
    theirs = reference(graph, weight="weight", tol=1e-10)
    assert max(abs(ours[str(n)] - theirs[n]) for n in graph.nodes) < 1e-5
