"""The graph model: entity, document, unit and chunk nodes, co-occurrence and mention edges, and the whole graph.

The model mirrors the lakehouse tables of ``docs/tables.md`` one to one (same column names), so that a row of
``graph_nodes`` validates into an ``EntityNode`` and a row of ``graph_edges`` into a ``CoOccurrence`` without any
renaming; the Neo4j store uses the same names as node and relationship properties.

Relationships in a store (fixed names, see ``graph.cypher``):

- ``(Entity)-[:CO_OCCURS_WITH {count, weight, chunk_ids, unit_ids, window}]-(Entity)``, stored once, ``src_id < dst_id``
- ``(Entity)-[:MENTIONED_IN {mention_id, start, end, text}]->(Chunk)``, one per resolved mention
- ``(Document)-[:HAS_UNIT]->(Unit)-[:HAS_CHUNK]->(Chunk)``, the document structure (provenance)
- ``(Entity)-[:RELATION_OF {type, count, confidence, chunk_ids}]->(Entity)``: "src is the TYPE of dst" (``relations``)
- ``(Quote)-[:IN_CHUNK]->(Chunk)``, ``(Entity)-[:SAID]->(Quote)``, ``(Quote)-[:ADDRESSED_TO]->(Entity)``: ``quotes``
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pandas as pd
import pyarrow as pa
from pydantic import BaseModel, Field, TypeAdapter

from graph.errors import GraphDataError
from graph.lakehouse import Lakehouse
from graph.published import (
    PUBLISHED_FILE,
    PublishedRun,
    arrow_dataset,
    open_table,
    published_text,
    read_published,
)
from graph.tables import (
    CHUNKS,
    DOCUMENTS,
    GRAPH_EDGES,
    GRAPH_NODES,
    MENTION_ENTITIES,
    MENTION_OFFSETS,
    MENTIONS,
    QUOTES,
    RELATIONS,
)

logger = logging.getLogger(__name__)

#: The Delta tables the graph is read from, with the columns read (``documents.text`` is deliberately left out:
#: a chat-side start must not load whole novels; passages come from ``chunks.text``).
LAKEHOUSE_TABLES: dict[str, list[str]] = {
    GRAPH_NODES.name: list(GRAPH_NODES.names),
    GRAPH_EDGES.name: list(GRAPH_EDGES.names),
    DOCUMENTS.name: DOCUMENTS.without("text"),
    CHUNKS.name: list(CHUNKS.names),
    MENTION_ENTITIES.name: MENTION_ENTITIES.pick("mention_id", "entity_id", "doc_id", "chunk_id"),
    MENTIONS.name: MENTIONS.pick("mention_id", "start", "end", "text"),
    RELATIONS.name: list(RELATIONS.names),
    QUOTES.name: list(QUOTES.names),
}
#: Tables read when the lakehouse has them: a lakehouse built before the stages that write them serves the graph
#: without typed relations and quotations.
OPTIONAL_TABLES: frozenset[str] = frozenset({RELATIONS.name, QUOTES.name})
#: Columns read when the table has them: ``mention_entities`` holds its mentions' offsets since the entities stage's
#: version 6, and then ``mentions`` is not read at all (the carried mentions have no row there).
#: ``kind`` (the entities stage's version 17): the graph's mentions are the names; pronouns and descriptions
#: (``kind`` pronoun, nominal) are left to the tables, so passages and counts stay those of names.
OPTIONAL_COLUMNS: dict[str, tuple[str, ...]] = {MENTION_ENTITIES.name: (*MENTION_OFFSETS, "kind")}


class EntityNode(BaseModel):
    """A canonical entity with its counts, first/last appearance and graph metrics (a ``graph_nodes`` row)."""

    entity_id: str
    canonical_name: str
    label: str
    aliases: list[str] = Field(default_factory=list)
    mention_count: int = 0
    doc_count: int = 0
    first_chunk_id: str | None = None
    last_chunk_id: str | None = None
    first_unit_id: str | None = None
    last_unit_id: str | None = None
    degree: int = 0
    weighted_degree: float = 0.0
    pagerank: float = 0.0
    community: int = -1


class DocumentNode(BaseModel):
    """A document (one novel), without its text."""

    doc_id: str
    source: str = ""
    title: str = ""
    language: str = ""
    n_chars: int = 0
    n_words: int = 0
    metadata: dict[str, str] = Field(default_factory=dict)


class UnitNode(BaseModel):
    """A structural unit of a document (part, chapter, or the whole document), in book order by ``unit_index``."""

    unit_id: str
    doc_id: str
    unit_index: int
    unit_kind: str = "document"
    unit_title: str = ""
    part_title: str = ""


class ChunkNode(BaseModel):
    """A paragraph-sized chunk; ``start``/``end`` are character offsets into the document text."""

    chunk_id: str
    doc_id: str
    chunk_index: int
    unit_id: str
    start: int
    end: int
    text: str
    n_words: int = 0


class CoOccurrence(BaseModel):
    """An undirected entity pair stored once with ``src_id < dst_id`` (a ``graph_edges`` row)."""

    src_id: str
    dst_id: str
    count: int
    weight: float
    chunk_ids: list[str] = Field(default_factory=list)
    unit_ids: list[str] = Field(default_factory=list)
    window: str = "sentence"


class Mention(BaseModel):
    """A resolved mention: entity → chunk, with its character offsets into the document and its surface text."""

    mention_id: str
    entity_id: str
    chunk_id: str
    doc_id: str
    start: int
    end: int
    text: str = ""


class TypedRelationEdge(BaseModel):
    """A typed relation, "src is the TYPE of dst" (a ``relations`` row); ``count`` 0: inferred from two others."""

    src_id: str
    type: str
    dst_id: str
    chunk_ids: list[str] = Field(default_factory=list)
    count: int = 0
    confidence: float = 0.0


class QuoteNode(BaseModel):
    """A quotation (a ``quotes`` row): its offsets into the document, its text, who says it and to whom."""

    quote_id: str
    doc_id: str
    chunk_id: str
    start: int
    end: int
    text: str
    speaker_id: str | None = None
    addressee_ids: list[str] = Field(default_factory=list)
    attribution: str = "none"


_ENTITIES = TypeAdapter(list[EntityNode])
_DOCUMENTS = TypeAdapter(list[DocumentNode])
_UNITS = TypeAdapter(list[UnitNode])
_CHUNKS = TypeAdapter(list[ChunkNode])
_EDGES = TypeAdapter(list[CoOccurrence])
_MENTIONS = TypeAdapter(list[Mention])
_TYPED = TypeAdapter(list[TypedRelationEdge])
_QUOTES = TypeAdapter(list[QuoteNode])


class GraphData(BaseModel):
    """The whole graph as plain lists, the unit of exchange between the lakehouse and every store's ``load``."""

    entities: list[EntityNode] = Field(default_factory=list)
    relations: list[CoOccurrence] = Field(default_factory=list)
    documents: list[DocumentNode] = Field(default_factory=list)
    units: list[UnitNode] = Field(default_factory=list)
    chunks: list[ChunkNode] = Field(default_factory=list)
    mentions: list[Mention] = Field(default_factory=list)
    typed_relations: list[TypedRelationEdge] = Field(default_factory=list)
    quotes: list[QuoteNode] = Field(default_factory=list)

    @classmethod
    def from_records(
        cls,
        *,
        nodes: list[dict[str, Any]],
        edges: list[dict[str, Any]],
        documents: list[dict[str, Any]],
        chunks: list[dict[str, Any]],
        mention_entities: list[dict[str, Any]],
        mentions: list[dict[str, Any]],
        relations: list[dict[str, Any]] | None = None,
        quotes: list[dict[str, Any]] | None = None,
    ) -> GraphData:
        """Build the graph from table rows (dicts keyed by the lakehouse column names)."""
        units: dict[str, dict[str, Any]] = {}
        for chunk in chunks:
            units.setdefault(
                chunk["unit_id"],
                {key: chunk.get(key) for key in ("unit_id", "doc_id", "unit_index", "unit_kind")}
                | {"unit_title": chunk.get("unit_title") or "", "part_title": chunk.get("part_title") or ""},
            )
        offsets = {row["mention_id"]: row for row in mentions}
        resolved = []
        for row in mention_entities:
            if row.get("kind") not in (None, "name"):
                continue
            if row.get("start") is not None:  # the offsets in the row itself (entities stage version 6)
                resolved.append(row | {"text": row.get("text") or ""})
                continue
            mention = offsets.get(row["mention_id"])
            if mention is None:  # a resolved mention must have a NER row; a missing one means stale tables
                raise GraphDataError(
                    f"mention {row['mention_id']!r} of entity {row['entity_id']!r} is in mention_entities but not in "
                    "mentions; rerun the pipeline",
                    path="mentions",
                )
            resolved.append(row | {"start": mention["start"], "end": mention["end"], "text": mention.get("text") or ""})
        for node in nodes:  # Spark writes NULL for a metric of an entity without edges; the model wants numbers
            for key in ("degree", "weighted_degree", "pagerank"):
                if node.get(key) is None:
                    node[key] = 0
            if node.get("community") is None:
                node["community"] = -1
            if node.get("aliases") is None:
                node["aliases"] = []
        for doc in documents:
            doc["metadata"] = dict(doc.get("metadata") or {})
        return cls(
            entities=_ENTITIES.validate_python(nodes),
            relations=_EDGES.validate_python(edges),
            documents=_DOCUMENTS.validate_python(documents),
            units=_UNITS.validate_python(sorted(units.values(), key=lambda u: (u["doc_id"], u["unit_index"]))),
            chunks=_CHUNKS.validate_python(chunks),
            mentions=_MENTIONS.validate_python(resolved),
            typed_relations=_TYPED.validate_python(relations or []),
            quotes=_QUOTES.validate_python([row | {"addressee_ids": row.get("addressee_ids") or []}
                                            for row in quotes or []]),
        )

    @classmethod
    def from_frames(
        cls,
        *,
        nodes: pd.DataFrame,
        edges: pd.DataFrame,
        documents: pd.DataFrame,
        chunks: pd.DataFrame,
        mention_entities: pd.DataFrame,
        mentions: pd.DataFrame,
        relations: pd.DataFrame | None = None,
        quotes: pd.DataFrame | None = None,
    ) -> GraphData:
        """Build the graph from pandas frames shaped like the lakehouse tables (used by tests and small tools)."""
        return cls.from_records(
            nodes=_frame_records(nodes),
            edges=_frame_records(edges),
            documents=_frame_records(documents),
            chunks=_frame_records(chunks),
            mention_entities=_frame_records(mention_entities),
            mentions=_frame_records(mentions),
            relations=None if relations is None else _frame_records(relations),
            quotes=None if quotes is None else _frame_records(quotes),
        )

    @classmethod
    def from_tables(cls, records: dict[str, list[dict[str, Any]]]) -> GraphData:
        """Build the graph from ``read_records``' rows, keyed by table name."""
        return cls.from_records(
            nodes=records[GRAPH_NODES.name], edges=records[GRAPH_EDGES.name], documents=records[DOCUMENTS.name],
            chunks=records[CHUNKS.name], mention_entities=records[MENTION_ENTITIES.name],
            mentions=records[MENTIONS.name], relations=records.get(RELATIONS.name), quotes=records.get(QUOTES.name),
        )

    @classmethod
    def from_lakehouse(cls, root: Lakehouse) -> GraphData:
        """Read the graph from the Delta tables under ``root`` with ``deltalake`` (no JVM).

        Every table is read at the version the last completed run published (``graph.published``), so a run in
        progress is never seen half-written; a lakehouse without a manifest is read at the latest versions.
        Raises ``GraphDataError`` naming the table's path when a table is missing or lacks a column.
        """
        graph = cls.from_tables(read_records(root, read_published(root)))
        logger.info(
            "read graph from %s: %d entities, %d relations, %d chunks, %d mentions",
            root, len(graph.entities), len(graph.relations), len(graph.chunks), len(graph.mentions),
        )
        return graph


def table_path(root: Lakehouse, table: str) -> str:
    """Where a lakehouse table lives (a path, an s3a:// or hdfs:// URI)."""
    return root.uri(table)


def missing_table_error(root: Lakehouse, table: str, reason: str) -> GraphDataError:
    """The error for a missing or unreadable table, saying which stage to run."""
    path = table_path(root, table)
    if table.startswith("graph_"):
        todo = "run the pipeline's 'graph' stage first"
    else:
        todo = "run the ingestion pipeline first (every stage up to and including 'graph')"
    return GraphDataError(
        f"lakehouse table {table!r} is missing or unreadable at {path} ({reason}); {todo}. "
        f"The graph reads the tables: {', '.join(LAKEHOUSE_TABLES)}",
        path=str(path),
    )


def read_records(root: Lakehouse, manifest: PublishedRun | None) -> dict[str, list[dict[str, Any]]]:
    """The rows of every table the graph reads, at the versions ``manifest`` names (else the latest).

    ``mentions`` is read only for a ``mention_entities`` table written before the entities stage's version 6,
    whose rows lack their offsets.
    """
    from deltalake.exceptions import TableNotFoundError

    records: dict[str, list[dict[str, Any]]] = {}
    for table, columns in LAKEHOUSE_TABLES.items():
        if table == MENTIONS.name:
            continue
        if table in OPTIONAL_TABLES:
            try:
                open_table(root, table, manifest)
            except TableNotFoundError:
                records[table] = []
                continue
        records[table] = read_table(root, table, columns, manifest=manifest, optional=OPTIONAL_COLUMNS.get(table, ()))
    resolved = records[MENTION_ENTITIES.name]
    with_offsets = all(row.get("start") is not None for row in resolved)
    records[MENTIONS.name] = (
        [] if with_offsets else read_table(root, MENTIONS.name, LAKEHOUSE_TABLES[MENTIONS.name], manifest=manifest)
    )
    return records


def read_table(
    root: Lakehouse,
    table: str,
    columns: list[str],
    *,
    manifest: PublishedRun | None = None,
    optional: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """Read ``columns`` of one Delta table at its published version as a list of dicts (``manifest``: the one
    already read, so that every table of one load comes from the same manifest); a missing table or column is a
    ``GraphDataError``. The ``optional`` columns are read too where the table has them."""
    from deltalake.exceptions import DeltaError, TableNotFoundError

    path = table_path(root, table)
    try:
        delta = open_table(root, table, manifest)
    except TableNotFoundError as exc:
        raise missing_table_error(root, table, "not a Delta table") from exc
    present = set(delta.schema().to_arrow().names)
    absent = [column for column in columns if column not in present]
    if absent:
        raise GraphDataError(
            f"lakehouse table {table!r} at {path} lacks the columns {', '.join(absent)} "
            f"(it has: {', '.join(sorted(present))}); rerun the stage that writes it",
            path=str(path),
        )
    columns = columns + [column for column in optional if column in present and column not in columns]
    try:
        return arrow_dataset(delta, root).to_table(columns=columns).to_pylist()
    except (DeltaError, OSError) as exc:
        raise missing_table_error(root, table, str(exc)) from exc


def table_versions(root: Lakehouse) -> dict[str, int]:
    """The Delta version of every table the graph reads: the published one, else the latest."""
    return {table: version for table, (version, _) in lakehouse_identity(root)["tables"].items()}


def lakehouse_identity(root: Lakehouse) -> dict[str, Any]:
    """What a reader of the graph's tables gets, in terms no later state of the lakehouse repeats: the publish
    manifest's run (id and finish time; None without a manifest) and each table's published (else latest) Delta
    version with the table's id — the key of the embedded store's cache.

    The versions alone repeat: a lakehouse deleted and rebuilt from another corpus starts its tables at version 0
    again, but every table created anew gets a new id (the UUID of its Delta metadata), and the run a new manifest.
    """
    from deltalake.exceptions import TableNotFoundError

    manifest = read_published(root)
    tables: dict[str, list[Any]] = {}
    for table in LAKEHOUSE_TABLES:
        try:
            delta = open_table(root, table, manifest)
        except TableNotFoundError as exc:
            if table in OPTIONAL_TABLES:
                continue
            raise missing_table_error(root, table, "not a Delta table") from exc
        tables[table] = [delta.version(), delta.metadata().id]
    return {"run": None if manifest is None else [manifest.run_id, manifest.finished_at], "tables": tables}


def publication_stamp(root: Lakehouse) -> str:
    """A cheap stamp of what the lakehouse publishes, for a long-running reader to compare with the one it took
    before loading: the publish manifest's text (``published_text``: one small read); without a manifest, the
    tables' identity (``lakehouse_identity``).

    Raises:
        GraphDataError: the manifest cannot be read from a folder, or there is none and a table is missing (e.g. the
            lakehouse was deleted).
        graph.errors.StorageError: the bucket cannot be read (names it).
    """
    try:
        text = published_text(root)
    except OSError as exc:
        path = root.uri(PUBLISHED_FILE)
        raise GraphDataError(f"cannot read the publish manifest {path}: {exc.strerror}", path=path) from exc
    return text if text is not None else json.dumps(lakehouse_identity(root), sort_keys=True)


def _frame_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    # Through Arrow, so that array columns come back as Python lists and NaN in nullable columns as None.
    return pa.Table.from_pandas(frame, preserve_index=False).to_pylist()
