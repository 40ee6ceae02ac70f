"""``CompactGraph``: the embedded store's in-memory form — numpy arrays in CSR layout, cheap to pickle and unpickle.

Why not a ``networkx.Graph``: a dict-of-dicts with a Python dict per edge takes ~2.5 s to unpickle at War and Peace
size (3,000 entities, 100,000 edges with their chunk lists; measured), and the chat side must start in well under a
second. Arrays unpickle in milliseconds. networkx stays the tool for metrics and export (``to_networkx``).

Layout (entity, chunk and unit indexes are positions in the id-sorted ``entities`` / book-ordered ``chunks`` /
``units`` lists, so comparing indexes is comparing ids, or book order):

- edges: ``src < dst`` index arrays, ``count``, ``weight``; each edge's chunks and units as CSR slices
  (``edge_chunk[edge_chunk_off[e]:edge_chunk_off[e + 1]]``)
- adjacency: for entity ``i``, ``adj_nbr`` / ``adj_edge`` between ``adj_off[i]`` and ``adj_off[i + 1]``
- mentions: grouped by entity (CSR on ``mention_off``), in book order (chunk index, then start)
- typed relations and quotations: plain lists (hundreds to thousands of rows), sorted by key / in book order
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from graph import matching
from graph.model import (
    ChunkNode,
    CoOccurrence,
    DocumentNode,
    EntityNode,
    GraphData,
    Mention,
    QuoteNode,
    TypedRelationEdge,
    UnitNode,
)

logger = logging.getLogger(__name__)

_I32 = np.int32
_I64 = np.int64


def _csr(groups: list[list[int]], dtype: type = _I32) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(groups) + 1, dtype=_I64)
    np.cumsum([len(g) for g in groups], out=offsets[1:])
    flat: np.ndarray = np.fromiter((x for g in groups for x in g), dtype=dtype, count=int(offsets[-1]))
    return offsets, flat


@dataclass
class CompactGraph:
    """The whole graph as sorted lists and numpy arrays (see the module docstring for the layout)."""

    entities: list[EntityNode] = field(default_factory=list)
    search_keys: list[tuple[str, ...]] = field(default_factory=list)
    documents: list[DocumentNode] = field(default_factory=list)
    units: list[UnitNode] = field(default_factory=list)
    chunks: list[ChunkNode] = field(default_factory=list)
    chunk_unit: np.ndarray = field(default_factory=lambda: np.zeros(0, _I32))
    src: np.ndarray = field(default_factory=lambda: np.zeros(0, _I32))
    dst: np.ndarray = field(default_factory=lambda: np.zeros(0, _I32))
    count: np.ndarray = field(default_factory=lambda: np.zeros(0, _I64))
    weight: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))
    window: list[str] = field(default_factory=list)
    edge_chunk_off: np.ndarray = field(default_factory=lambda: np.zeros(1, _I64))
    edge_chunk: np.ndarray = field(default_factory=lambda: np.zeros(0, _I32))
    edge_unit_off: np.ndarray = field(default_factory=lambda: np.zeros(1, _I64))
    edge_unit: np.ndarray = field(default_factory=lambda: np.zeros(0, _I32))
    adj_off: np.ndarray = field(default_factory=lambda: np.zeros(1, _I64))
    adj_nbr: np.ndarray = field(default_factory=lambda: np.zeros(0, _I32))
    adj_edge: np.ndarray = field(default_factory=lambda: np.zeros(0, _I32))
    mention_off: np.ndarray = field(default_factory=lambda: np.zeros(1, _I64))
    mention_chunk: np.ndarray = field(default_factory=lambda: np.zeros(0, _I32))
    mention_start: np.ndarray = field(default_factory=lambda: np.zeros(0, _I64))
    mention_end: np.ndarray = field(default_factory=lambda: np.zeros(0, _I64))
    mention_text: list[str] = field(default_factory=list)
    mention_id: list[str] = field(default_factory=list)
    typed_relations: list[TypedRelationEdge] = field(default_factory=list)
    quotes: list[QuoteNode] = field(default_factory=list)

    @classmethod
    def build(cls, graph: GraphData) -> CompactGraph:
        """Index ``graph``; edges and mentions whose entity or chunk is absent are dropped (as Neo4j's MATCH does)."""
        entities = sorted(graph.entities, key=lambda e: e.entity_id)
        entity_index = {e.entity_id: i for i, e in enumerate(entities)}
        units = sorted(graph.units, key=lambda u: (u.doc_id, u.unit_index, u.unit_id))
        unit_index = {u.unit_id: i for i, u in enumerate(units)}
        chunks = sorted(graph.chunks, key=lambda c: (c.doc_id, c.chunk_index, c.chunk_id))
        chunk_index = {c.chunk_id: i for i, c in enumerate(chunks)}
        pairs = [
            (entity_index[r.src_id], entity_index[r.dst_id], r)
            for r in graph.relations
            if r.src_id in entity_index and r.dst_id in entity_index and r.src_id != r.dst_id
        ]
        edges = [(min(a, b), max(a, b), r) for a, b, r in pairs]
        mentions = sorted(
            (
                (entity_index[m.entity_id], chunk_index[m.chunk_id], m.start, m.end, m.text, m.mention_id)
                for m in graph.mentions
                if m.entity_id in entity_index and m.chunk_id in chunk_index
            ),
            key=lambda m: m[:4],
        )
        typed = sorted(
            (r for r in graph.typed_relations if r.src_id in entity_index and r.dst_id in entity_index),
            key=lambda r: (r.src_id, r.type, r.dst_id),
        )
        quotes = sorted((q for q in graph.quotes if q.chunk_id in chunk_index),
                        key=lambda q: (q.doc_id, q.start, q.quote_id))
        dropped = (len(graph.relations) - len(edges) + len(graph.mentions) - len(mentions)
                   + len(graph.typed_relations) - len(typed) + len(graph.quotes) - len(quotes))
        if dropped:
            logger.warning("dropped %d edges or mentions whose entity or chunk is not in the graph", dropped)
        n = len(entities)
        src = np.array([e[0] for e in edges], dtype=_I32)
        dst = np.array([e[1] for e in edges], dtype=_I32)
        count = np.array([e[2].count for e in edges], dtype=_I64)
        weight = np.array([e[2].weight for e in edges], dtype=np.float64)
        edge_chunk_off, edge_chunk = _csr([[chunk_index[c] for c in e[2].chunk_ids if c in chunk_index] for e in edges])
        edge_unit_off, edge_unit = _csr([[unit_index[u] for u in e[2].unit_ids if u in unit_index] for e in edges])
        incident: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for number, (u, v, _) in enumerate(edges):
            incident[u].append((v, number))
            incident[v].append((u, number))
        for row in incident:
            row.sort()
        adj_off, adj_nbr = _csr([[nbr for nbr, _ in row] for row in incident])
        _, adj_edge = _csr([[number for _, number in row] for row in incident])
        by_entity: list[list[int]] = [[] for _ in range(n)]
        for position, mention in enumerate(mentions):
            by_entity[mention[0]].append(position)
        mention_off, _ = _csr(by_entity)
        return cls(
            entities=entities,
            search_keys=[tuple(matching.search_keys(e.canonical_name, e.aliases)) for e in entities],
            documents=sorted(graph.documents, key=lambda d: d.doc_id),
            units=units,
            chunks=chunks,
            chunk_unit=np.array([unit_index.get(c.unit_id, -1) for c in chunks], dtype=_I32),
            src=src, dst=dst, count=count, weight=weight, window=[e[2].window for e in edges],
            edge_chunk_off=edge_chunk_off, edge_chunk=edge_chunk, edge_unit_off=edge_unit_off, edge_unit=edge_unit,
            adj_off=adj_off, adj_nbr=adj_nbr, adj_edge=adj_edge,
            mention_off=mention_off,
            mention_chunk=np.array([m[1] for m in mentions], dtype=_I32),
            mention_start=np.array([m[2] for m in mentions], dtype=_I64),
            mention_end=np.array([m[3] for m in mentions], dtype=_I64),
            mention_text=[m[4] for m in mentions],
            mention_id=[m[5] for m in mentions],
            typed_relations=typed,
            quotes=quotes,
        )

    def edge_chunk_ids(self, edge: int) -> list[str]:
        """The chunk ids of an edge, in stored (book) order."""
        start, end = self.edge_chunk_off[edge], self.edge_chunk_off[edge + 1]
        return [self.chunks[c].chunk_id for c in self.edge_chunk[start:end].tolist()]

    def edge_unit_ids(self, edge: int) -> list[str]:
        """The unit ids of an edge."""
        start, end = self.edge_unit_off[edge], self.edge_unit_off[edge + 1]
        return [self.units[u].unit_id for u in self.edge_unit[start:end].tolist()]

    def to_graph_data(self) -> GraphData:
        """Back to plain lists (for merging a new load into a store restored from the cache, and for export)."""
        relations = [
            CoOccurrence(
                src_id=self.entities[u].entity_id, dst_id=self.entities[v].entity_id, count=c, weight=w,
                chunk_ids=self.edge_chunk_ids(e), unit_ids=self.edge_unit_ids(e), window=self.window[e],
            )
            for e, (u, v, c, w) in enumerate(
                zip(self.src.tolist(), self.dst.tolist(), self.count.tolist(), self.weight.tolist(), strict=True)
            )
        ]
        mentions = []
        for i, entity in enumerate(self.entities):
            for m in range(int(self.mention_off[i]), int(self.mention_off[i + 1])):
                chunk = self.chunks[int(self.mention_chunk[m])]
                mentions.append(
                    Mention(
                        mention_id=self.mention_id[m], entity_id=entity.entity_id, chunk_id=chunk.chunk_id,
                        doc_id=chunk.doc_id, start=int(self.mention_start[m]), end=int(self.mention_end[m]),
                        text=self.mention_text[m],
                    )
                )
        return GraphData(
            entities=list(self.entities), relations=relations, documents=list(self.documents),
            units=list(self.units), chunks=list(self.chunks), mentions=mentions,
            typed_relations=list(self.typed_relations), quotes=list(self.quotes),
        )

    def to_networkx(self) -> nx.Graph:
        """The entity graph as networkx (nodes carry the entity fields, edges count / weight / chunk ids)."""
        graph = nx.Graph()
        for entity in self.entities:
            graph.add_node(entity.entity_id, **entity.model_dump())
        for e, (u, v) in enumerate(zip(self.src.tolist(), self.dst.tolist(), strict=True)):
            graph.add_edge(
                self.entities[u].entity_id, self.entities[v].entity_id, count=int(self.count[e]),
                weight=float(self.weight[e]), chunk_ids=self.edge_chunk_ids(e),
            )
        return graph
