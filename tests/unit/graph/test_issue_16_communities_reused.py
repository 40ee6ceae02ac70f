"""Issue 16: communities per connected component, and the previous run's partition reused for the components that
did not change — with the result of a fresh computation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from graph.communities import PreviousGraph
from graph.errors import GraphDataError
from graph.metrics import compute_metrics

Edge = tuple[str, str, float]


def _two_cliques(prefix: str, weight: float = 1.0) -> list[Edge]:
    """Two K4s, {p1..p4} and {p5..p8}, joined by p4 - p5: Louvain splits them into two communities."""
    quads = ((1, 2, 3, 4), (5, 6, 7, 8))
    edges = [(f"{prefix}{a}", f"{prefix}{b}", weight) for quad in quads for a in quad for b in quad if a < b]
    return [*edges, (f"{prefix}4", f"{prefix}5", 1.0)]


def _frames(edges: list[Edge], extra_nodes: tuple[str, ...] = ()) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = sorted({x for u, v, _ in edges for x in (u, v)} | set(extra_nodes))
    nodes = pd.DataFrame({"entity_id": ids, "canonical_name": [i.upper() for i in ids]})
    return nodes, pd.DataFrame(edges, columns=["src_id", "dst_id", "weight"])


def _previous(nodes: pd.DataFrame, edges: pd.DataFrame) -> PreviousGraph:
    """What the graph stage reads back next time: the nodes with their communities and the weighted edges."""
    return PreviousGraph(compute_metrics(nodes, edges)[["entity_id", "community"]], edges)


def _communities(result: pd.DataFrame) -> list[list[str]]:
    """The partition, each community's ids sorted, communities by their number."""
    return [sorted(group) for _, group in result.groupby("community")["entity_id"]]


# Before: components a and b (two K4s each, to be merged), c (to gain a weight change), d (to be removed), e (to gain
# a node), h (untouched) and the single node s.
BEFORE = [*_two_cliques("a"), *_two_cliques("b"), *_two_cliques("c"), ("d1", "d2", 2.0), ("d2", "d3", 1.0),
          *_two_cliques("e"), *_two_cliques("h", weight=3.0)]


def _after() -> list[Edge]:
    edges = [e for e in BEFORE if not e[0].startswith("d")]  # d removed
    edges = [(u, v, 5.0) if (u, v) == ("c1", "c2") else (u, v, w) for u, v, w in edges]  # a weight changed
    return [*edges, ("a8", "b1", 1.0), ("e9", "e1", 1.0), ("g1", "g2", 1.0), ("g2", "g3", 1.0), ("g1", "g3", 1.0)]


def test_issue_16_reused_communities_equal_a_fresh_computation(louvain_sizes: list[int]) -> None:
    previous = _previous(*_frames(BEFORE, extra_nodes=("s",)))
    nodes, edges = _frames(_after(), extra_nodes=("s",))
    louvain_sizes.clear()
    fresh = compute_metrics(nodes, edges)
    assert sorted(louvain_sizes) == [3, 8, 8, 9, 16]  # g, c, h, e with e9, a and b merged; never the single s

    louvain_sizes.clear()
    reused = compute_metrics(nodes, edges, previous=previous)
    pd.testing.assert_frame_equal(reused, fresh)
    assert sorted(louvain_sizes) == [3, 8, 9, 16]  # h, unchanged, kept its partition
    assert ["h1", "h2", "h3", "h4"] in _communities(reused)


def test_issue_16_nothing_changed_runs_no_louvain(louvain_sizes: list[int]) -> None:
    nodes, edges = _frames(BEFORE, extra_nodes=("s",))
    previous = _previous(nodes, edges)
    # The edges in another order and written the other way round: still the same graph.
    shuffled = edges.sample(frac=1.0, random_state=5).rename(columns={"src_id": "dst_id", "dst_id": "src_id"})
    louvain_sizes.clear()
    reused = compute_metrics(nodes, shuffled, previous=previous)
    assert louvain_sizes == []
    pd.testing.assert_frame_equal(reused, compute_metrics(nodes, edges))


def test_issue_16_unchanged_component_keeps_the_previous_partition_as_given() -> None:
    # Reuse trusts the previous table: a partition no Louvain run gave (h whole, in one community) is kept as it is,
    # which shows the component was not computed again.
    nodes, edges = _frames(_two_cliques("h") + [("x1", "x2", 1.0)])
    given = pd.DataFrame({"entity_id": nodes["entity_id"], "community": [7] * 8 + [3, 3]})
    result = compute_metrics(nodes, edges, previous=PreviousGraph(given, edges))
    assert _communities(result) == [[f"h{i}" for i in range(1, 9)], ["x1", "x2"]]


def test_issue_16_node_without_previous_community_is_computed_again(louvain_sizes: list[int]) -> None:
    # A previous run that had no community for a node (the Spark path leaves it null) lends nothing for its component.
    nodes, edges = _frames(_two_cliques("h"))
    previous = compute_metrics(nodes, edges)[["entity_id", "community"]].astype({"community": "float64"})
    previous.loc[previous["entity_id"] == "h3", "community"] = np.nan
    louvain_sizes.clear()
    result = compute_metrics(nodes, edges, previous=PreviousGraph(previous, edges))
    assert louvain_sizes == [8]
    assert _communities(result) == [["h1", "h2", "h3", "h4"], ["h5", "h6", "h7", "h8"]]


def test_issue_16_identical_components_get_the_same_partition() -> None:
    # Louvain over the whole graph saw each component against the weight of all of them; per component, two copies of
    # one component are split alike, each on its own.
    nodes, edges = _frames([*_two_cliques("a"), *_two_cliques("b")])
    partition = _communities(compute_metrics(nodes, edges))
    assert partition == [["a1", "a2", "a3", "a4"], ["a5", "a6", "a7", "a8"],
                         ["b1", "b2", "b3", "b4"], ["b5", "b6", "b7", "b8"]]


def test_issue_16_a_component_is_split_the_same_beside_other_components() -> None:
    alone = compute_metrics(*_frames(_two_cliques("c")))
    beside = compute_metrics(*_frames([*_two_cliques("c"), *_two_cliques("a", weight=9.0), ("z1", "z2", 50.0)]))
    assert [c for c in _communities(beside) if c[0].startswith("c")] == _communities(alone)


def test_issue_16_single_nodes_are_their_own_communities_without_louvain(louvain_sizes: list[int]) -> None:
    nodes, edges = _frames([("a1", "a2", 1.0)], extra_nodes=("s1", "s2"))
    result = compute_metrics(nodes, edges)
    assert louvain_sizes == [2]
    assert dict(zip(result["entity_id"], result["community"], strict=True)) == {"a1": 0, "a2": 0, "s1": 1, "s2": 2}


def test_issue_16_numbering_across_components_by_size_then_smallest_id() -> None:
    # Communities of 4 (a, b, with b's smallest id "b1" after "a1"), 3 (k, a triangle) and 2 (z, one edge), then single
    # nodes by id; the component of each does not matter.
    triangle = [("k1", "k2", 1.0), ("k2", "k3", 1.0), ("k1", "k3", 1.0)]
    nodes, edges = _frames([*_two_cliques("b"), ("z1", "z2", 1.0), *triangle, *_two_cliques("a")],
                           extra_nodes=("m", "c"))
    number = dict(zip(*(compute_metrics(nodes, edges)[column] for column in ("entity_id", "community")), strict=True))
    assert [number[x] for x in ("a1", "a5", "b1", "b5", "k1", "z1", "c", "m")] == [0, 1, 2, 3, 4, 5, 6, 7]


def test_issue_16_previous_graph_missing_column_names_it() -> None:
    nodes, edges = _frames([("a", "b", 1.0)])
    with pytest.raises(GraphDataError, match="previous graph_nodes frame lacks the columns community"):
        PreviousGraph(nodes, edges)
