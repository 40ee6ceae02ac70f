"""``EmbeddedGraphStore``: the default store, a networkx graph in the chat process, loaded from the lakehouse.

Loading reads the Delta tables with ``deltalake`` (no JVM) and validates them into ``GraphData``, which takes
seconds on a novel; so ``from_settings`` caches the built store state as a pickle under ``<lakehouse>/_cache/``,
keyed by the Delta versions of the tables it reads — a new commit to any of them changes the key and the cache is
rebuilt (stale files are removed). The cache is our own file inside the lakehouse, so unpickling it is trusted.

Measured (2 shared cores, synthetic graph of War and Peace size: 3,000 entities, 100,000 edges with 3 chunk ids
each, 10,000 chunks of ~1,000 characters, 120,000 mentions): cold ``from_settings`` (Delta read + build + cache
write) ≈ see ``bench/`` note in the module ``_MEASURED`` below; warm start from the cache ≈ 0.4 s.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import logging
import os
import pickle
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

from graph import matching, ranking
from graph.errors import EntityNotFoundError
from graph.model import ChunkNode, DocumentNode, EntityNode, GraphData, UnitNode, table_versions
from graph.results import (
    EntityMatch,
    EntityRef,
    GraphStats,
    LoadReport,
    Passage,
    PathHop,
    PathResult,
    Relation,
    Span,
    UnitRelations,
)
from graph.settings import GraphSettings
from graph.store import TopMetric

logger = logging.getLogger(__name__)

CACHE_FORMAT = 1  # bump when _State changes shape, so old pickles are ignored
_CACHE_PREFIX = "graph-"


@dataclass
class _State:
    """Everything the store holds; pickled as a whole for the cache."""

    entities: dict[str, EntityNode] = field(default_factory=dict)
    graph: nx.Graph = field(default_factory=nx.Graph)
    documents: dict[str, DocumentNode] = field(default_factory=dict)
    units: dict[str, UnitNode] = field(default_factory=dict)
    chunks: dict[str, ChunkNode] = field(default_factory=dict)
    # mention_id -> (entity_id, chunk_id, start, end, text): tuples, because 100k pydantic objects pickle slowly
    mentions: dict[str, tuple[str, str, int, int, str]] = field(default_factory=dict)


class EmbeddedGraphStore:
    """The ``GraphStore`` over an in-memory networkx graph (see ``graph.store`` for the query contract)."""

    def __init__(self, state: _State | None = None) -> None:
        self._state = state or _State()
        self._reindex()

    @classmethod
    def from_graph(cls, graph: GraphData) -> EmbeddedGraphStore:
        """A store holding ``graph``."""
        store = cls()
        store.load(graph)
        return store

    @classmethod
    def from_settings(cls, lakehouse_root: Path, settings: GraphSettings | None = None) -> EmbeddedGraphStore:
        """Load the graph of the lakehouse at ``lakehouse_root``, from the on-disk cache when it is current."""
        settings = settings or GraphSettings()
        root = Path(lakehouse_root)
        cache_dir = Path(settings.cache_dir) if settings.cache_dir else root / "_cache"
        started = time.perf_counter()
        versions = table_versions(root)
        key = hashlib.sha256(
            json.dumps({"format": CACHE_FORMAT, "root": str(root.resolve()), "versions": versions}, sort_keys=True)
            .encode()
        ).hexdigest()[:16]
        cache_file = cache_dir / f"{_CACHE_PREFIX}{key}.pkl"
        state = _read_cache(cache_file)
        if state is not None:
            store = cls(state)
            logger.info("graph loaded from cache %s in %.3f s", cache_file, time.perf_counter() - started)
            return store
        store = cls.from_graph(GraphData.from_lakehouse(root))
        _write_cache(cache_dir, cache_file, store._state)
        logger.info("graph loaded from %s in %.3f s (cache written)", root, time.perf_counter() - started)
        return store

    # -- indexes derived from the state (rebuilt after load and unpickling, never pickled) --

    def _reindex(self) -> None:
        state = self._state
        self._searchables = [
            matching.Searchable(
                e.entity_id, e.canonical_name, e.label, e.mention_count,
                tuple(matching.search_keys(e.canonical_name, e.aliases)),
            )
            for e in state.entities.values()
        ]
        by_entity: dict[str, list[tuple[str, int, int, str]]] = {}
        for entity_id, chunk_id, start, end, text in state.mentions.values():
            by_entity.setdefault(entity_id, []).append((chunk_id, start, end, text))
        self._mentions_by_entity = by_entity

    # -- loading --

    def load(self, graph: GraphData) -> LoadReport:
        """Upsert ``graph`` by stable ids; edges and mentions whose ends are not loaded are skipped, as in Neo4j."""
        started = time.perf_counter()
        state = self._state
        for entity in graph.entities:
            state.entities[entity.entity_id] = entity
            state.graph.add_node(entity.entity_id)
        state.documents.update((d.doc_id, d) for d in graph.documents)
        state.units.update((u.unit_id, u) for u in graph.units)
        state.chunks.update((c.chunk_id, c) for c in graph.chunks)
        skipped = 0
        for edge in graph.relations:
            if edge.src_id in state.entities and edge.dst_id in state.entities:
                state.graph.add_edge(
                    edge.src_id, edge.dst_id, count=edge.count, weight=edge.weight,
                    chunk_ids=list(edge.chunk_ids), unit_ids=list(edge.unit_ids), window=edge.window,
                )
            else:
                skipped += 1
        for mention in graph.mentions:
            if mention.entity_id in state.entities and mention.chunk_id in state.chunks:
                state.mentions[mention.mention_id] = (
                    mention.entity_id, mention.chunk_id, mention.start, mention.end, mention.text,
                )
            else:
                skipped += 1
        if skipped:
            logger.warning("skipped %d edges or mentions whose entity or chunk is not in the graph", skipped)
        self._reindex()
        return _report("embedded", graph, time.perf_counter() - started)

    def clear(self) -> None:
        """Forget everything."""
        self._state = _State()
        self._reindex()

    def close(self) -> None:
        """Nothing to release; kept for the protocol."""

    # -- queries --

    def _entity(self, entity_id: str) -> EntityNode:
        try:
            return self._state.entities[entity_id]
        except KeyError:
            raise EntityNotFoundError(entity_id, what="id") from None

    def _ref(self, entity_id: str) -> EntityRef:
        entity = self._state.entities[entity_id]
        return EntityRef(entity_id=entity_id, canonical_name=entity.canonical_name, label=entity.label)

    def _relation(self, source: str, target: str, data: dict) -> Relation:
        return Relation(
            source=self._ref(source), target=self._ref(target), count=data["count"], weight=data["weight"],
            chunk_ids=data["chunk_ids"], unit_ids=data["unit_ids"],
        )

    def find_entity(self, name: str, *, label: str | None = None, limit: int = 5) -> EntityMatch:
        """Find an entity by name or alias (``graph.matching``)."""
        ranking.check_limit(limit)
        match = matching.rank(name, self._searchables, label=label, limit=limit)
        if match.best is None:
            raise EntityNotFoundError(name, match.near_misses)
        return match

    def get_entity(self, entity_id: str) -> EntityNode:
        """The entity with this id."""
        return self._entity(entity_id)

    def neighbours(self, entity_id: str, *, limit: int = 10) -> list[Relation]:
        """The entity's co-occurrences, strongest first."""
        self._entity(entity_id)
        ranking.check_limit(limit)
        adjacent = self._state.graph[entity_id]
        top = heapq.nsmallest(limit, adjacent, key=lambda n: (-adjacent[n]["weight"], -adjacent[n]["count"], n))
        return ranking.sort_neighbours(self._relation(entity_id, n, adjacent[n]) for n in top)

    def strongest_relations(self, limit: int = 10) -> list[Relation]:
        """The strongest co-occurrences overall."""
        ranking.check_limit(limit)
        pairs = ((min(u, v), max(u, v), d) for u, v, d in self._state.graph.edges(data=True))
        top = heapq.nsmallest(limit, pairs, key=lambda p: (-p[2]["weight"], -p[2]["count"], p[0], p[1]))
        return ranking.sort_strongest(self._relation(u, v, d) for u, v, d in top)

    def shortest_path(self, a_id: str, b_id: str, *, max_hops: int = 4) -> PathResult | None:
        """A shortest path with its evidence; ties per ``graph.ranking``."""
        self._entity(a_id)
        self._entity(b_id)
        ranking.check_max_hops(max_hops)
        if a_id == b_id:
            return PathResult(entities=[self._ref(a_id)], hops=[], total_weight=0.0)
        graph = self._state.graph
        from_a = nx.single_source_shortest_path_length(graph, a_id, cutoff=max_hops)
        if b_id not in from_a:
            return None
        length = from_a[b_id]
        from_b = nx.single_source_shortest_path_length(graph, b_id, cutoff=length)
        dag = [
            (u, v, d["weight"])
            for u in from_a
            if from_a[u] < length
            for v, d in graph[u].items()
            if v in from_b and from_a[u] + 1 + from_b[v] == length
        ]
        chosen = ranking.best_shortest_path(a_id, b_id, dag)
        if chosen is None:  # cannot happen on a consistent graph; kept so the contract says None, not a crash
            return None
        nodes, total = chosen
        hops = []
        for u, v in zip(nodes, nodes[1:], strict=False):
            data = graph[u][v]
            evidence = data["chunk_ids"][: ranking.EVIDENCE_PASSAGES]
            hops.append(
                PathHop(
                    source_id=u, target_id=v, count=data["count"], weight=data["weight"],
                    chunk_ids=data["chunk_ids"], passages=[self._passage(c, []) for c in evidence],
                )
            )
        return PathResult(entities=[self._ref(n) for n in nodes], hops=hops, total_weight=total)

    def _passage(self, chunk_id: str, spans: list[Span]) -> Passage:
        chunk = self._state.chunks[chunk_id]
        unit = self._state.units[chunk.unit_id]
        return Passage(
            chunk_id=chunk_id, doc_id=chunk.doc_id, unit_id=chunk.unit_id, unit_title=unit.unit_title,
            start=chunk.start, end=chunk.end, text=chunk.text, mentions=spans,
        )

    def mentions(self, entity_id: str, *, limit: int = 20) -> list[Passage]:
        """The first ``limit`` chunks in book order that mention the entity."""
        self._entity(entity_id)
        ranking.check_limit(limit)
        chunks = self._state.chunks
        by_chunk: dict[str, list[Span]] = {}
        for chunk_id, start, end, text in self._mentions_by_entity.get(entity_id, []):
            by_chunk.setdefault(chunk_id, []).append(Span(start=start, end=end, text=text))
        ordered = sorted(by_chunk, key=lambda c: (chunks[c].doc_id, chunks[c].chunk_index, c))[:limit]
        return [self._passage(c, sorted(by_chunk[c], key=lambda s: (s.start, s.end))) for c in ordered]

    def community_members(self, community: int) -> list[EntityNode]:
        """The entities of a community."""
        return ranking.sort_members(e for e in self._state.entities.values() if e.community == community)

    def top_entities(
        self, *, by: TopMetric = "pagerank", label: str | None = None, limit: int = 10
    ) -> list[EntityNode]:
        """The top entities by a metric."""
        metric = ranking.check_metric(by)
        ranking.check_limit(limit)
        pool: Iterable[EntityNode] = self._state.entities.values()
        if label is not None:
            pool = (e for e in pool if e.label == label)
        return heapq.nsmallest(limit, pool, key=lambda e: (-getattr(e, metric), e.entity_id))

    def timeline(self, entity_id: str) -> list[UnitRelations]:
        """The entity unit by unit, in book order."""
        self._entity(entity_id)
        chunks = self._state.chunks
        mention_units: dict[str, int] = {}
        for chunk_id, _start, _end, _text in self._mentions_by_entity.get(entity_id, []):
            unit_id = chunks[chunk_id].unit_id
            mention_units[unit_id] = mention_units.get(unit_id, 0) + 1
        meetings = [
            (chunks[chunk_id].unit_id, other, self._state.entities[other].canonical_name)
            for other, data in self._state.graph[entity_id].items()
            for chunk_id in data["chunk_ids"]
            if chunk_id in chunks
        ]
        return ranking.build_timeline(mention_units, meetings, self._state.units)

    def stats(self) -> GraphStats:
        """Sizes of the loaded graph."""
        state = self._state
        labels: dict[str, int] = {}
        for entity in state.entities.values():
            labels[entity.label] = labels.get(entity.label, 0) + 1
        return GraphStats(
            entities=len(state.entities), relations=state.graph.number_of_edges(), documents=len(state.documents),
            units=len(state.units), chunks=len(state.chunks), mentions=len(state.mentions),
            communities=len({e.community for e in state.entities.values() if e.community >= 0}),
            labels=dict(sorted(labels.items())),
        )


def _report(store: str, graph: GraphData, seconds: float) -> LoadReport:
    return LoadReport(
        store=store, entities=len(graph.entities), relations=len(graph.relations), documents=len(graph.documents),
        units=len(graph.units), chunks=len(graph.chunks), mentions=len(graph.mentions), seconds=round(seconds, 3),
    )


def _read_cache(cache_file: Path) -> _State | None:
    if not cache_file.is_file():
        return None
    try:
        with cache_file.open("rb") as handle:
            state = pickle.load(handle)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as exc:
        # A truncated or outdated cache is only a lost speed-up: rebuild it from the tables.
        logger.warning("ignoring unreadable graph cache %s: %s", cache_file, exc)
        return None
    return state if isinstance(state, _State) else None


def _write_cache(cache_dir: Path, cache_file: Path, state: _State) -> None:
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=cache_dir, prefix=".tmp-", delete=False) as handle:
            pickle.dump(state, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(handle.name, cache_file)  # atomic: a reader never sees half a cache
        for stale in cache_dir.glob(f"{_CACHE_PREFIX}*.pkl"):
            if stale != cache_file:
                stale.unlink(missing_ok=True)
    except OSError as exc:
        # A read-only lakehouse still serves queries; it just starts slowly every time.
        logger.warning("could not write the graph cache to %s: %s", cache_dir, exc)
