"""``Neo4jGraphStore``: the ``GraphStore`` on a Neo4j 5 server through the official driver.

A load makes the server hold exactly the new graph (``graph.sync``): ``UNWIND $rows … MERGE`` on stable ids
(``graph.cypher``), then deletion by key of what the new graph no longer has. A small graph is written in one
transaction; a bigger one in managed write transactions of ``batch_size`` rows (the driver retries transient
failures); ids are stable, so a load repeated after a failure completes the graph without duplicating anything.
Nodes are merged first, then relationships between nodes found through the unique-constraint indexes; relationship
rows travel as lists of values, co-occurrences one way round only.
Throughput on War and Peace is in ``docs/benchmarks.md`` (``bench/bench_graph.py``).

Queries fetch with Cypher and leave matching and tie-breaks to ``graph.matching`` and ``graph.ranking`` — the same
code the embedded store runs — so both stores answer identically.

Driver errors are translated at this boundary (``_translated``): refused credentials → ``GraphAuthError`` naming the
URI and the user, an unreachable or lost server → ``GraphUnavailableError`` naming the URI, anything else from the
server → ``GraphStoreError`` with its Neo4j code.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Self

from neo4j import Driver, GraphDatabase, ManagedTransaction
from neo4j import exceptions as neo4j_errors
from pydantic import BaseModel

from graph import cypher, matching, ranking, sync
from graph.errors import EntityNotFoundError, GraphAuthError, GraphStoreError, GraphUnavailableError
from graph.model import EntityNode, GraphData, QuoteNode, UnitNode
from graph.results import (
    EntityMatch,
    EntityRef,
    GraphStats,
    Kinship,
    LoadReport,
    Passage,
    PathHop,
    PathResult,
    Quotation,
    Relation,
    Span,
    UnitRelations,
)
from graph.settings import Neo4jSettings
from graph.store import TopMetric

logger = logging.getLogger(__name__)

_ENTITY_FIELDS = set(EntityNode.model_fields)
#: One step of a load: what it does (for messages), its statement, and its rows (None: a statement without rows).
_Step = tuple[str, str, Sequence[Any] | None]


def _values(model: BaseModel, columns: Sequence[str]) -> list[Any]:
    """A list-shaped load row: the model's values in the column order of the statement (``graph.cypher``)."""
    return [getattr(model, column) for column in columns]


def _typed_steps(graph: GraphData) -> list[_Step]:
    """The load steps of the typed relations and the quotations: the relations between people the graph holds, the
    quotation nodes (with their search key), then who said each and to whom — again only people the graph holds, as
    ``graph.sync.graph_keys`` counts them."""
    people = {e.entity_id for e in graph.entities}
    typed = [
        _values(r, cypher.TYPED_RELATION_COLUMNS) for r in graph.typed_relations if {r.src_id, r.dst_id} <= people
    ]
    nodes = [q.model_dump() | {"search_text": ranking.quote_key(q.text)} for q in graph.quotes]
    said = [[q.quote_id, q.speaker_id] for q in graph.quotes if q.speaker_id in people]
    addressed = [[q.quote_id, a] for q in graph.quotes for a in dict.fromkeys(q.addressee_ids) if a in people]
    return [
        ("typed relations", cypher.MERGE_TYPED_RELATIONS, typed),
        ("quotations", cypher.MERGE_QUOTES, nodes),
        ("speakers", cypher.MERGE_SAID, said),
        ("addressees", cypher.MERGE_ADDRESSED_TO, addressed),
    ]


class Neo4jGraphStore:
    """The ``GraphStore`` on Neo4j (see ``graph.store`` for the query contract)."""

    def __init__(
        self, driver: Driver, database: str = "neo4j", batch_size: int = 20_000, *, uri: str = "", user: str = ""
    ) -> None:
        self._driver = driver
        self._database = database
        self._batch_size = ranking.check_limit(batch_size, "batch_size")
        self._uri = uri or "<injected driver>"
        self._user = user or "<unknown>"
        self._schema_ready = False

    @classmethod
    def from_settings(cls, settings: Neo4jSettings) -> Self:
        """Connect with ``settings`` and check that the server answers and accepts the credentials."""
        driver = GraphDatabase.driver(
            settings.uri,
            auth=(settings.user, settings.password.get_secret_value()),
            connection_timeout=settings.connection_timeout_s,
        )
        store = cls(driver, settings.database, settings.batch_size, uri=settings.uri, user=settings.user)
        try:
            with store._translated("connect"):
                driver.verify_connectivity()
        except GraphStoreError:
            driver.close()
            raise
        return store

    # -- plumbing --

    @contextmanager
    def _translated(self, action: str) -> Iterator[None]:
        """Turn driver errors into ours, naming the URI (and user); the driver's traceback stays in ``__cause__``."""
        try:
            yield
        except neo4j_errors.AuthError as exc:
            raise GraphAuthError(
                f"Neo4j at {self._uri} refused the credentials of user {self._user!r} ({action}); check "
                "CSILLAG_NEO4J_USER / CSILLAG_NEO4J_PASSWORD",
                uri=self._uri, user=self._user,
            ) from exc
        except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired) as exc:
            raise GraphUnavailableError(
                f"Neo4j at {self._uri} is unreachable ({action}): {exc}; is the server running? "
                "(scripts/neo4j.sh start)",
                uri=self._uri,
            ) from exc
        except neo4j_errors.Neo4jError as exc:
            if (exc.code or "").startswith("Neo.ClientError.Security."):  # e.g. AuthenticationRateLimit
                raise GraphAuthError(
                    f"Neo4j at {self._uri} refused user {self._user!r} ({action}): {exc.message}",
                    uri=self._uri, user=self._user,
                ) from exc
            raise GraphStoreError(f"Neo4j at {self._uri} failed to {action}: {exc.code}: {exc.message}") from exc
        except neo4j_errors.DriverError as exc:
            raise GraphStoreError(f"Neo4j driver failed to {action} at {self._uri}: {exc}") from exc

    def _read(self, action: str, query: str, **params: Any) -> list[dict[str, Any]]:
        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            return [record.data() for record in tx.run(query, params)]

        with self._translated(action), self._driver.session(database=self._database) as session:
            return session.execute_read(work)

    def _write(self, action: str, query: str, **params: Any) -> int:
        def work(tx: ManagedTransaction) -> int:
            record = tx.run(query, params).single()
            return int(record["n"]) if record and "n" in record.keys() else 0

        with self._translated(action), self._driver.session(database=self._database) as session:
            return session.execute_write(work)

    def ensure_schema(self) -> None:
        """Create the constraints and indexes and drop retired ones (idempotent: ``IF [NOT] EXISTS``)."""
        with self._translated("create the schema"), self._driver.session(database=self._database) as session:
            for statement in (*cypher.SCHEMA, *cypher.RETIRED_SCHEMA):
                session.run(statement).consume()
        self._schema_ready = True

    # -- loading --

    def _held_keys(self) -> dict[str, set[sync.Key]]:
        """The key of every item the server holds, by kind (``graph.sync``)."""
        return {
            kind: {tuple(r["key"]) for r in self._read(f"read the {kind} keys", query)}
            for kind, query in cypher.KEYS.items()
        }

    def _load_rows(self, step: _Step) -> int:
        """Run one step in batches of ``batch_size`` rows, one managed transaction each."""
        kind, query, rows = step
        if rows is None:
            return self._write(kind, query)
        written = 0
        for offset in range(0, len(rows), self._batch_size):
            batch = list(rows[offset : offset + self._batch_size])
            written += self._write(f"write {kind} rows {offset}..{offset + len(batch) - 1}", query, rows=batch)
        return written

    def _write_in_one_transaction(self, steps: list[_Step]) -> list[int]:
        """Run every step in one managed transaction: a reader sees the old graph or the new one, nothing between."""

        def work(tx: ManagedTransaction) -> list[int]:
            written = []
            for _, query, rows in steps:
                record = tx.run(query, {} if rows is None else {"rows": list(rows)}).single()
                written.append(int(record["n"]) if record else 0)
            return written

        with self._translated("load the graph"), self._driver.session(database=self._database) as session:
            return session.execute_write(work)

    def load(self, graph: GraphData) -> LoadReport:
        """Make the server hold exactly ``graph``, as a load into an empty database would (``graph.sync``).

        Every item is upserted (``UNWIND … MERGE`` on stable ids), then what the server holds beyond ``graph`` is
        deleted by key. A graph of at most ``batch_size`` rows (counting the deletions) is written in one
        transaction, so a chat reader never sees it half-loaded; a bigger one in transactions of ``batch_size``
        rows, upserts first and deletions last, so that while it loads a reader sees old and new items side by side
        but never misses one that both graphs hold. Raises ``GraphUnavailableError`` if the server goes away: the
        load is idempotent, rerun it.
        """
        started = time.perf_counter()
        if not self._schema_ready:
            self.ensure_schema()
        change = sync.diff(self._held_keys(), sync.graph_keys(graph))
        documents = [
            d.model_dump(exclude={"metadata"}) | {"metadata_json": json.dumps(d.metadata, sort_keys=True)}
            for d in graph.documents
        ]  # Neo4j properties cannot hold maps
        entities = [
            e.model_dump() | {"search_keys": matching.search_keys(e.canonical_name, e.aliases)} for e in graph.entities
        ]
        pairs = [  # MERGE on a directed pattern: always store the pair one way round, src_id < dst_id
            [min(r.src_id, r.dst_id), max(r.src_id, r.dst_id), *_values(r, cypher.CO_OCCURRENCE_COLUMNS[2:])]
            for r in graph.relations
        ]
        upserts: list[_Step] = [
            ("documents", cypher.MERGE_DOCUMENTS, documents),
            ("units", cypher.MERGE_UNITS, [u.model_dump() for u in graph.units]),
            ("chunks", cypher.MERGE_CHUNKS, [c.model_dump() for c in graph.chunks]),
            ("entities", cypher.MERGE_ENTITIES, entities),
            ("co-occurrences", cypher.MERGE_CO_OCCURRENCES, pairs),
            *_typed_steps(graph),
            ("mentions", cypher.MERGE_MENTIONS, [_values(m, cypher.MENTION_COLUMNS) for m in graph.mentions]),
        ]
        removed = {kind: [list(key) for key in keys] for kind, keys in change.removed.items()}

        def deletion(kind: str) -> _Step:
            return f"delete stale {kind}", cypher.DELETE[kind], removed[kind]

        # relationships before the nodes they hang on; DETACH DELETE of a node takes what is left on it anyway
        steps = [
            *upserts, deletion("mentions"), deletion("relations"), deletion("typed_relations"), deletion("quotes"),
            *[("prune moved structure", query, None) for query in cypher.PRUNE_STRUCTURE],
            deletion("chunks"), deletion("units"), deletion("documents"), deletion("entities"),
        ]
        steps = [step for step in steps if step[2] is None or step[2]]
        rows = sum(len(step[2] or ()) for step in steps)
        if rows <= self._batch_size:
            written = self._write_in_one_transaction(steps)
        else:
            written = [self._load_rows(step) for step in steps]
        for (kind, _, sent), n in zip(steps, written, strict=True):
            if sent and not kind.startswith("delete") and n < len(sent):
                logger.warning("%s: %d of %d rows had no matching end nodes and were skipped", kind, len(sent) - n,
                               len(sent))
        seconds = time.perf_counter() - started
        logger.info("loaded %d entities and %d relations into Neo4j at %s in %.1f s (removed %s)",
                    len(graph.entities), len(graph.relations), self._uri, seconds, change.removed_counts())
        return LoadReport(
            store="neo4j", entities=len(graph.entities), relations=len(graph.relations),
            documents=len(graph.documents), units=len(graph.units), chunks=len(graph.chunks),
            mentions=len(graph.mentions), seconds=round(seconds, 3), added=change.added,
            removed=change.removed_counts(),
        )

    def clear(self) -> None:
        """Delete every node of our labels (and their relationships), in batches."""
        with self._translated("clear the graph"), self._driver.session(database=self._database) as session:
            session.run(cypher.CLEAR).consume()

    def close(self) -> None:
        """Close the driver."""
        self._driver.close()

    # -- queries --

    @staticmethod
    def _node(props: dict[str, Any]) -> EntityNode:
        return EntityNode.model_validate({k: v for k, v in props.items() if k in _ENTITY_FIELDS})

    def get_entity(self, entity_id: str) -> EntityNode:
        """The entity with this id."""
        rows = self._read("get an entity", cypher.GET_ENTITY, id=entity_id)
        if not rows:
            raise EntityNotFoundError(entity_id, what="id")
        return self._node(rows[0]["e"])

    def find_entity(self, name: str, *, label: str | None = None, limit: int = 5) -> EntityMatch:
        """Find an entity by name or alias: candidates by Cypher pre-filter, ranked by ``graph.matching``."""
        ranking.check_limit(limit)
        query_probes = matching.probes(matching.normalise(name))
        rows = []
        if query_probes:  # an empty query has no probe and matches nothing, as in the embedded store
            rows = self._read("find an entity", cypher.FIND_CANDIDATES, probes=query_probes, label=label)
        candidates = [
            matching.Searchable(r["entity_id"], r["canonical_name"], r["label"], r["mention_count"], tuple(r["keys"]))
            for r in rows
        ]
        match = matching.rank(name, candidates, label=label, limit=limit)
        if match.best is None:
            raise EntityNotFoundError(name, match.near_misses)
        return match

    def neighbours(self, entity_id: str, *, limit: int = 10) -> list[Relation]:
        """The entity's co-occurrences, strongest first."""
        ranking.check_limit(limit)
        source = self._ref(self.get_entity(entity_id))
        rows = self._read("list neighbours", cypher.NEIGHBOURS, id=entity_id, limit=limit)
        return ranking.sort_neighbours(
            Relation(
                source=source, target=EntityRef(entity_id=r["id"], canonical_name=r["name"], label=r["label"]),
                count=r["count"], weight=r["weight"], chunk_ids=r["chunk_ids"], unit_ids=r["unit_ids"],
            )
            for r in rows
        )

    def shortest_path(self, a_id: str, b_id: str, *, max_hops: int = 4) -> PathResult | None:
        """A shortest path with its evidence; the path is chosen by ``graph.ranking.best_shortest_path``."""
        a, b = self.get_entity(a_id), self.get_entity(b_id)
        ranking.check_max_hops(max_hops)
        if a_id == b_id:
            return PathResult(entities=[self._ref(a)], hops=[], total_weight=0.0)
        rows = self._read("find a shortest path", cypher.shortest_path_edges(max_hops), a=a_id, b=b_id)
        chosen = ranking.best_shortest_path(a_id, b_id, [(r["u"], r["v"], r["weight"]) for r in rows])
        if chosen is None:
            return None
        nodes, total = chosen
        pairs = [[u, v] for u, v in zip(nodes, nodes[1:], strict=False)]
        hops = {(r["u"], r["v"]): r for r in self._read("read path hops", cypher.HOPS, pairs=pairs)}
        evidence = sorted({c for r in hops.values() for c in r["chunk_ids"][: ranking.EVIDENCE_PASSAGES]})
        passages = {p.chunk_id: p for p in self._passages(evidence)}
        refs = {a_id: self._ref(a), b_id: self._ref(b)}
        refs.update({n: self._ref(self.get_entity(n)) for n in nodes[1:-1]})
        return PathResult(
            entities=[refs[n] for n in nodes],
            hops=[
                PathHop(
                    source_id=u, target_id=v, count=hops[(u, v)]["count"], weight=hops[(u, v)]["weight"],
                    chunk_ids=hops[(u, v)]["chunk_ids"],
                    passages=[passages[c] for c in hops[(u, v)]["chunk_ids"][: ranking.EVIDENCE_PASSAGES]],
                )
                for u, v in pairs
            ],
            total_weight=total,
        )

    def _passages(self, chunk_ids: list[str]) -> list[Passage]:
        if not chunk_ids:
            return []
        rows = self._read("read passages", cypher.PASSAGES, chunk_ids=chunk_ids)
        return [Passage.model_validate(r | {"unit_title": r["unit_title"] or ""}) for r in rows]

    def mentions(self, entity_id: str, *, limit: int = 20) -> list[Passage]:
        """The first ``limit`` chunks in book order that mention the entity."""
        ranking.check_limit(limit)
        self.get_entity(entity_id)
        rows = self._read("list mentions", cypher.MENTIONS, id=entity_id, limit=limit)
        return [
            Passage(
                chunk_id=r["chunk_id"], doc_id=r["doc_id"], unit_id=r["unit_id"], unit_title=r["unit_title"] or "",
                start=r["start"], end=r["end"], text=r["text"],
                mentions=sorted((Span.model_validate(s) for s in r["spans"]), key=lambda s: (s.start, s.end)),
            )
            for r in rows
        ]

    def top_entities(
        self, *, by: TopMetric = "pagerank", label: str | None = None, limit: int = 10
    ) -> list[EntityNode]:
        """The top entities by a metric."""
        field = ranking.check_metric(by)
        ranking.check_limit(limit)
        rows = self._read("list top entities", cypher.top_entities(by), label=label, limit=limit)
        return ranking.sort_top((self._node(r["e"]) for r in rows), field)

    def timeline(self, entity_id: str) -> list[UnitRelations]:
        """The entity unit by unit, in book order."""
        self.get_entity(entity_id)
        mention_units = {
            r["unit_id"]: r["n"] for r in self._read("read a timeline", cypher.TIMELINE_MENTIONS, id=entity_id)
        }
        meetings = [
            (r["unit_id"], r["id"], r["name"])
            for r in self._read("read a timeline", cypher.TIMELINE_MEETINGS, id=entity_id)
        ]
        units = {
            r["u"]["unit_id"]: UnitNode.model_validate(r["u"])
            for r in self._read("read units", cypher.UNITS_BY_ID, ids=sorted(mention_units))
        }
        return ranking.build_timeline(mention_units, meetings, units)

    def _kinships(self, rows: list[dict[str, Any]], source: dict[str, EntityRef], target: EntityRef) -> list[Kinship]:
        """``Kinship`` answers from relation rows (``source``: each row's source by its ``id``), with passages."""
        evidence = [c for r in rows for c in r["chunk_ids"][: ranking.EVIDENCE_PASSAGES]]
        passages = {p.chunk_id: p for p in self._passages(sorted(set(evidence)))}
        return ranking.sort_kinships(
            Kinship(
                source=source[r["id"]], type=r["type"], target=target, count=r["count"], confidence=r["confidence"],
                chunk_ids=r["chunk_ids"],
                passages=[passages[c] for c in r["chunk_ids"][: ranking.EVIDENCE_PASSAGES] if c in passages],
            )
            for r in rows
        )

    def relatives(self, entity_id: str, *, types: Sequence[str] | None = None, limit: int = 20) -> list[Kinship]:
        """Who is what to the entity, surest first."""
        target = self._ref(self.get_entity(entity_id))
        ranking.check_limit(limit)
        asked = ranking.check_types(types)
        rows = self._read("list relatives", cypher.RELATIVES, id=entity_id,
                          types=None if asked is None else sorted(asked), limit=limit)
        sources = {r["id"]: EntityRef(entity_id=r["id"], canonical_name=r["name"], label=r["label"]) for r in rows}
        return self._kinships(rows, sources, target)

    def relations_between(self, a_id: str, b_id: str) -> list[Kinship]:
        """What ``a`` is to ``b``, surest first."""
        source, target = self._ref(self.get_entity(a_id)), self._ref(self.get_entity(b_id))
        rows = [r | {"id": a_id} for r in self._read("relate two entities", cypher.RELATIONS_BETWEEN, a=a_id, b=b_id)]
        return self._kinships(rows, {a_id: source}, target)

    def _quotations(self, rows: list[dict[str, Any]]) -> list[Quotation]:
        """``Quotation`` answers from ``Quote`` node properties: the people among the graph's entities, the passage."""
        quotes = [QuoteNode.model_validate(r["q"]) for r in rows]
        ids = sorted({i for q in quotes for i in [q.speaker_id, *q.addressee_ids] if i is not None})
        people = {r["entity_id"]: EntityRef.model_validate(r)
                  for r in (self._read("read entities", cypher.ENTITY_REFS, ids=ids) if ids else [])}
        passages = {p.chunk_id: p for p in self._passages(sorted({q.chunk_id for q in quotes}))}
        return ranking.sort_quotations(
            Quotation(
                quote_id=q.quote_id, doc_id=q.doc_id, start=q.start, end=q.end, text=q.text,
                attribution=q.attribution, speaker=people.get(q.speaker_id or ""),
                addressees=[people[a] for a in q.addressee_ids if a in people], passage=passages[q.chunk_id],
            )
            for q in quotes
        )

    def quotations(
        self, *, speaker_id: str | None = None, addressee_id: str | None = None, limit: int = 20
    ) -> list[Quotation]:
        """The quotations said by and / or to someone, in book order."""
        for entity_id in (speaker_id, addressee_id):
            if entity_id is not None:
                self.get_entity(entity_id)
        ranking.check_limit(limit)
        rows = self._read("list quotations", cypher.QUOTATIONS, speaker=speaker_id, addressee=addressee_id,
                          limit=limit)
        return self._quotations(rows)

    def find_quotations(self, text: str, *, limit: int = 5) -> list[Quotation]:
        """The quotations holding ``text``'s words in a row, in book order."""
        ranking.check_limit(limit)
        needle = ranking.quote_key(text)
        if not needle.strip():
            return []
        return self._quotations(self._read("find quotations", cypher.FIND_QUOTATIONS, needle=needle, limit=limit))

    def stats(self) -> GraphStats:
        """Sizes of the loaded graph."""
        row = self._read("count the graph", cypher.STATS)[0]
        labels = {r["label"]: r["n"] for r in self._read("count labels", cypher.LABEL_COUNTS)}
        return GraphStats(**row, labels=dict(sorted(labels.items())))

    @staticmethod
    def _ref(entity: EntityNode) -> EntityRef:
        return EntityRef(entity_id=entity.entity_id, canonical_name=entity.canonical_name, label=entity.label)
