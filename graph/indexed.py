"""``IndexedGraph``: the entity graph as numpy arrays, the form the metrics are computed on.

Nodes are the sorted entity ids; an edge is a pair of positions in them, each undirected pair once as (smaller,
larger), the edges in that order — so position order is id order, and the order the communities' Louvain inserts
nodes and edges in (``graph.communities``) is a property of the graph, not of the input rows' order. Arrays rather
than a ``networkx.Graph``: building one for the 8× library (21,766 nodes, 59,429 edges) and reading its degrees and
edges back cost ~0.6 s, more than the metrics themselves once the communities are reused.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd

from graph.errors import require_columns

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class IndexedGraph:
    """Node ids in sorted order; edges as positions in them (``src`` < ``dst``), sorted, with their ``weight``."""

    ids: pd.Index
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray

    @classmethod
    def from_frames(cls, nodes: pd.DataFrame, edges: pd.DataFrame) -> IndexedGraph:
        """The graph of ``nodes`` (``entity_id``) and ``edges`` (``src_id``, ``dst_id``, ``weight``). Edges to unknown
        nodes and self-loops are dropped; of two rows for one pair the later wins."""
        require_columns(nodes, ("entity_id",), "graph_nodes")
        require_columns(edges, ("src_id", "dst_id", "weight"), "graph_edges")
        ids = pd.Index(np.unique(nodes["entity_id"].astype(str).to_numpy()))
        src, dst = ids.get_indexer(edges["src_id"].astype(str)), ids.get_indexer(edges["dst_id"].astype(str))
        kept = (src >= 0) & (dst >= 0) & (src != dst)
        if not kept.all():
            logger.warning("dropped %d edges whose ends are not entities (or self-loops)", int((~kept).sum()))
        pairs = pd.DataFrame({
            "src": np.minimum(src, dst)[kept], "dst": np.maximum(src, dst)[kept],
            "weight": edges["weight"].to_numpy(dtype="float64")[kept],
        })
        pairs = pairs.drop_duplicates(["src", "dst"], keep="last").sort_values(["src", "dst"])
        return cls(ids, pairs["src"].to_numpy(), pairs["dst"].to_numpy(), pairs["weight"].to_numpy())

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self.ids)

    @property
    def n_edges(self) -> int:
        """Number of edges."""
        return len(self.src)

    def degrees(self) -> tuple[np.ndarray, np.ndarray]:
        """Degree and weighted degree of every node, by position."""
        ends = np.concatenate([self.src, self.dst])
        weights = np.concatenate([self.weight, self.weight])
        return (np.bincount(ends, minlength=self.n_nodes),
                np.bincount(ends, weights=weights, minlength=self.n_nodes))
