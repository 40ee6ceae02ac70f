"""Communities of the entity graph: Louvain per connected component, reusing the previous run's partition of every
component that has not changed.

Louvain (networkx, fixed seed) runs on each connected component alone, the component's nodes and edges inserted in
id order (Louvain's result depends on iteration order as well as on its seed); a component of one node is its own
community. Communities never span components, and a component's modularity counts the component's own total weight
only, so the communities of one book do not depend on the other books of a shared lakehouse. (Louvain over the whole
graph measured each component against the weight of all of them: in the 8× library, 3,060 components, it kept every
component whole as one community.) A component's partition is therefore a function of the component alone: its node
set and its weighted edge set.

That makes reuse exact. Given the previous graph (its nodes with their ``community``, its edges with the weights
Louvain was given), a component keeps its previous partition when every one of its nodes was a node then, with a
community, and the previous edges touching its nodes are exactly its edges, weights included: it was then the same
component, since those edges do not leave it and connect it. Only new and changed components run Louvain, and the
result is the fresh computation's. The check is one outer join of the two edge lists and one lookup of the node ids
(pandas), not a loop over components.

Community numbers are global: 0, 1, 2, … by community size desc, then by smallest member id.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pandas as pd

from graph.errors import require_columns
from graph.indexed import IndexedGraph

logger = logging.getLogger(__name__)

LOUVAIN_SEED = 42


@dataclass(frozen=True)
class PreviousGraph:
    """The graph a previous run computed communities for, with the same seed: ``nodes`` with ``entity_id`` and
    ``community`` (``graph_nodes``), ``edges`` with ``src_id``, ``dst_id`` and the ``weight`` Louvain was given."""

    nodes: pd.DataFrame
    edges: pd.DataFrame

    def __post_init__(self) -> None:
        require_columns(self.nodes, ("entity_id", "community"), "previous graph_nodes")
        require_columns(self.edges, ("src_id", "dst_id", "weight"), "previous graph_edges")


def communities(graph: IndexedGraph, *, seed: int = LOUVAIN_SEED, previous: PreviousGraph | None = None) -> np.ndarray:
    """The community number of every node by position (see the module docstring); ``previous`` lends the partitions
    of the components it holds unchanged."""
    component = component_labels(graph)
    # A community is named by (its component, its number within the component) until the global numbering. A
    # component with a node at -1 is computed (again), all of it.
    community = _reused(graph, component, previous) if previous is not None else np.full(graph.n_nodes, -1)
    to_do = np.unique(component[community < 0])
    sizes = np.bincount(component, minlength=graph.n_nodes)[to_do]
    community[np.isin(component, to_do[sizes == 1])] = 0  # a single node is its own community
    for members, partition in _louvain_by_component(graph, component, to_do[sizes > 1], seed=seed):
        for number, found in enumerate(partition):
            community[members[found]] = number
    n_components = len(np.unique(component))
    logger.info("communities of %d components: %d reused, %d by Louvain, %d single nodes",
                n_components, n_components - len(to_do), int((sizes > 1).sum()), int((sizes == 1).sum()))
    return _numbered(component, community)


def component_labels(graph: IndexedGraph) -> np.ndarray:
    """The connected component of every node, named by the smallest position in it.

    Min-label propagation in numpy: each round gives both ends of every edge the smaller of their labels, then lets
    every node take its label's label (pointer jumping: how far a label travels per round roughly doubles); a round
    that changes nothing ends it. scipy's ``connected_components`` would do the same, but scipy is no dependency.
    """
    label = np.arange(graph.n_nodes)
    while True:
        smaller = np.minimum(label[graph.src], label[graph.dst])
        lowered = label.copy()
        np.minimum.at(lowered, graph.src, smaller)
        np.minimum.at(lowered, graph.dst, smaller)
        lowered = lowered[lowered]
        if np.array_equal(lowered, label):
            return label
        label = lowered


def _reused(graph: IndexedGraph, component: np.ndarray, previous: PreviousGraph) -> np.ndarray:
    """The previous community number of every node, -1 in changed components and for nodes that had none (new
    nodes; a null community)."""
    before = np.full(graph.n_nodes, -1)
    position = graph.ids.get_indexer(previous.nodes["entity_id"].astype(str))
    numbers = previous.nodes["community"].fillna(-1).to_numpy(dtype="int64")
    before[position[position >= 0]] = numbers[position >= 0]
    # Edges in one graph and not in the other, or with another weight: their ends' components changed. An edge of
    # the previous graph with an end that is no node now has that end at -1.
    src = graph.ids.get_indexer(previous.edges["src_id"].astype(str))
    dst = graph.ids.get_indexer(previous.edges["dst_id"].astype(str))
    then = pd.DataFrame({"src": np.minimum(src, dst), "dst": np.maximum(src, dst),
                         "weight": previous.edges["weight"].to_numpy(dtype="float64")})
    now = pd.DataFrame({"src": graph.src, "dst": graph.dst, "weight": graph.weight})
    differ = now.merge(then, how="outer", on=["src", "dst", "weight"], indicator=True)
    differ = differ[differ["_merge"] != "both"]
    ends = np.concatenate([differ["src"].to_numpy(), differ["dst"].to_numpy()])
    return np.where(np.isin(component, component[ends[ends >= 0]]), -1, before)


def _louvain_by_component(
    graph: IndexedGraph, component: np.ndarray, names: np.ndarray, *, seed: int
) -> Iterator[tuple[np.ndarray, list[list[int]]]]:
    """For each component named in ``names`` (sorted): its nodes' positions (ascending) and Louvain's partition of
    it alone, each community as indexes into those positions."""
    if len(names) == 0:
        return
    nodes = np.flatnonzero(np.isin(component, names))
    nodes = nodes[np.argsort(component[nodes], kind="stable")]
    edges = np.flatnonzero(np.isin(component[graph.src], names))
    edges = edges[np.argsort(component[graph.src[edges]], kind="stable")]  # stable: still in (src, dst) order
    node_groups = np.split(nodes, np.searchsorted(component[nodes], names[1:]))
    edge_groups = np.split(edges, np.searchsorted(component[graph.src[edges]], names[1:]))
    for members, between in zip(node_groups, edge_groups, strict=True):
        src = np.searchsorted(members, graph.src[between])
        dst = np.searchsorted(members, graph.dst[between])
        yield members, _louvain(len(members), src, dst, graph.weight[between], seed=seed)


def _louvain(n_nodes: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray, *, seed: int) -> list[list[int]]:
    """Louvain on one component: nodes 0 … n_nodes - 1 (in id order) and edges inserted in the order given."""
    alone = nx.Graph()
    alone.add_nodes_from(range(n_nodes))
    alone.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), weight.tolist(), strict=True))
    return [sorted(found) for found in nx.community.louvain_communities(alone, weight="weight", seed=seed)]


def _numbered(component: np.ndarray, community: np.ndarray) -> np.ndarray:
    """Global community numbers from (component, number within it): by size desc, then smallest member position
    (positions are in id order)."""
    frame = pd.DataFrame({"component": component, "community": community, "position": np.arange(len(component))})
    grouped = frame.groupby(["component", "community"])
    ranked = grouped["position"].agg(["size", "min"]).reset_index(drop=True)  # row i: the group ngroup() calls i
    order = ranked.sort_values(["size", "min"], ascending=[False, True]).index.to_numpy()
    number = np.empty(len(order), dtype="int64")
    number[order] = np.arange(len(order))
    return number[grouped.ngroup().to_numpy()]
