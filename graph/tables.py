"""The lakehouse tables' columns, defined once: the ingestion stages write them, the graph, tools and jobs read them.

Each table is a ``TableSpec``: its name and its columns in the order the Delta table holds them, each with a small
neutral type (``ColumnType``). The writers turn a spec into a Spark schema (``ddl``, or ``ingestion.schema.conform``
for a computed DataFrame) or an Arrow schema (``arrow_schema``, for the in-process commits); the readers take column
lists from it (``names``, ``pick``, ``without``), so a name a reader asks for that no table holds fails at import,
not at the first read. This module sits in ``graph``, the bottom layer, because every other package reads the
tables; it imports none of ours and no Spark. docs/tables.md describes what the columns mean.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    import pyarrow as pa

logger = logging.getLogger(__name__)

ColumnType = Literal["string", "int", "long", "double", "array<string>", "map<string,string>"]
Column = tuple[str, ColumnType]
COLUMN_TYPES: tuple[str, ...] = get_args(ColumnType)


def ddl(columns: Sequence[Column]) -> str:
    """A Spark DDL schema string (``"a string, b long"``) of ``columns``; Spark takes the neutral types as they are."""
    return ", ".join(f"{name} {kind}" for name, kind in columns)


def arrow_type(kind: str) -> pa.DataType:
    """The Arrow type of a neutral column type (the types Spark's Delta writer gives the same columns)."""
    import pyarrow as pa

    types = {
        "string": pa.string(),
        "int": pa.int32(),
        "long": pa.int64(),
        "double": pa.float64(),
        "array<string>": pa.list_(pa.string()),
        "map<string,string>": pa.map_(pa.string(), pa.string()),
    }
    if kind not in types:
        raise ValueError(f"unknown column type {kind!r}; accepted: {', '.join(COLUMN_TYPES)}")
    return types[kind]


@dataclass(frozen=True)
class TableSpec:
    """One Delta table: its name and its (column, type) pairs in table order; ``unindexed``: the columns Delta keeps
    no statistics of — long text, whose minimum and maximum delta-rs would copy whole into the log (a novel's text
    twice in the documents table's commit: 6.7 MB of JSON that every later open of the table parsed, ~60 ms)."""

    name: str
    columns: tuple[Column, ...]
    unindexed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Checked when the module is imported: a typo in a type would otherwise surface in a Spark job.
        bad = [f"{column} {kind}" for column, kind in self.columns if kind not in COLUMN_TYPES]
        if bad:
            raise ValueError(f"table {self.name}: unknown column types {', '.join(bad)}; accepted: "
                             f"{', '.join(COLUMN_TYPES)}")
        self._check(self.unindexed)

    @property
    def properties(self) -> dict[str, str]:
        """The Delta table properties the table is created with: with ``unindexed`` columns, the columns statistics
        are kept of (``delta.dataSkippingStatsColumns``, which delta-rs and Delta Spark both honour)."""
        if not self.unindexed:
            return {}
        # plain columns only: Delta keeps no statistics of maps and arrays, and Delta Spark refuses them here
        plain = ("string", "int", "long", "double")
        kept = [n for n, kind in self.columns if n not in self.unindexed and kind in plain]
        return {"delta.dataSkippingStatsColumns": ",".join(kept)}

    @property
    def names(self) -> tuple[str, ...]:
        """The column names in table order."""
        return tuple(name for name, _ in self.columns)

    def type_of(self, column: str) -> ColumnType:
        """The neutral type of one column."""
        self._check((column,))
        return dict(self.columns)[column]

    def pick(self, *columns: str) -> list[str]:
        """Some of the columns, in the order given; a name the table does not hold is a ValueError."""
        self._check(columns)
        return list(columns)

    def without(self, *columns: str) -> list[str]:
        """Every column but the given ones, in table order (the others must be columns of the table)."""
        self._check(columns)
        return [name for name in self.names if name not in columns]

    def ddl(self) -> str:
        """The Spark DDL schema string of the whole table."""
        return ddl(self.columns)

    def arrow_schema(self) -> pa.Schema:
        """The Arrow schema of the whole table."""
        import pyarrow as pa

        return pa.schema([(name, arrow_type(kind)) for name, kind in self.columns])

    def renamed(self, name: str) -> TableSpec:
        """The same columns under another table name (``graph_edges`` holds the ``cooccurrences`` columns)."""
        return TableSpec(name, self.columns)

    def extended(self, name: str, *columns: Column) -> TableSpec:
        """This table's columns followed by more, under another name (``graph_nodes`` = ``entities`` + metrics)."""
        return TableSpec(name, self.columns + tuple(columns))

    def _check(self, columns: Sequence[str]) -> None:
        unknown = [c for c in columns if c not in self.names]
        if unknown:
            raise ValueError(
                f"table {self.name} has no column {', '.join(unknown)}; its columns: {', '.join(self.names)}"
            )


DOCUMENTS = TableSpec("documents", (
    ("doc_id", "string"), ("source", "string"), ("title", "string"), ("language", "string"), ("text", "string"),
    ("n_chars", "long"), ("n_words", "long"), ("metadata", "map<string,string>"),
), unindexed=("text",))
REJECTS = TableSpec("rejects", (
    ("source", "string"), ("doc_id", "string"), ("stage", "string"), ("reason", "string"), ("detail", "string"),
))
CHUNKS = TableSpec("chunks", (
    ("chunk_id", "string"), ("doc_id", "string"), ("chunk_index", "int"), ("unit_id", "string"),
    ("unit_index", "int"), ("unit_kind", "string"), ("unit_title", "string"), ("part_title", "string"),
    ("start", "long"), ("end", "long"), ("text", "string"), ("n_words", "long"),
), unindexed=("text",))
#: ``chunks.unit_kind`` values of text that is not the story (title pages, tables of contents, notes, licence):
#: kept in ``chunks``, left out of NER (so of entities, "first mention" and the graph) and of retrieval.
NON_PROSE_UNIT_KINDS: frozenset[str] = frozenset({"front_matter", "contents", "back_matter"})
#: Between the titles of nested units in ``chunks.part_title`` ("VOLUME I › BOOK SECOND"), outermost first.
UNIT_PATH_SEPARATOR = " › "
MENTIONS = TableSpec("mentions", (
    ("mention_id", "string"), ("doc_id", "string"), ("chunk_id", "string"), ("sentence_index", "int"),
    ("sentence_id", "string"), ("start", "long"), ("end", "long"), ("text", "string"), ("label", "string"),
    ("ent_id", "string"), ("model", "string"), ("model_version", "string"),
))
#: The mentions stage's progress record: one row per chunk done by NER.
MENTION_CHUNKS = TableSpec("mention_chunks", (
    ("chunk_id", "string"), ("doc_id", "string"), ("n_mentions", "long"), ("n_words", "long"),
))
ENTITIES = TableSpec("entities", (
    ("entity_id", "string"), ("canonical_name", "string"), ("label", "string"), ("aliases", "array<string>"),
    ("mention_count", "long"), ("doc_count", "long"), ("first_chunk_id", "string"), ("last_chunk_id", "string"),
    ("first_unit_id", "string"), ("last_unit_id", "string"),
))
# entity_id first: the order the table has always had (Spark puts the key of the entities semi-join first). The
# offsets and the text as written since the entities stage's version 6: its carried mentions have no NER row in
# ``mentions`` (``ingestion.carrying``); tables written before have only the first five columns.
MENTION_ENTITIES = TableSpec("mention_entities", (
    ("entity_id", "string"), ("mention_id", "string"), ("doc_id", "string"), ("chunk_id", "string"),
    ("sentence_id", "string"), ("start", "long"), ("end", "long"), ("text", "string"), ("kind", "string"),
))
#: ``mention_entities.kind``: a name (the entities stage's rows), a pronoun or a description of a person (the quotes
#: stage's ``ingestion.coref`` rows).
MENTION_KINDS: tuple[str, ...] = ("name", "pronoun", "nominal")
#: The ``mention_entities`` columns that tables written before the entities stage's version 6 lack (their offsets
#: are in ``mentions``): readers take them when present.
MENTION_OFFSETS: tuple[str, ...] = ("start", "end", "text")
COOCCURRENCES = TableSpec("cooccurrences", (
    ("src_id", "string"), ("dst_id", "string"), ("count", "long"), ("weight", "double"),
    ("chunk_ids", "array<string>"), ("unit_ids", "array<string>"), ("window", "string"),
))
#: One row per quotation of a document: offsets into ``documents.text`` (marks included), the speaker and the people
#: addressed as entity ids (null / empty when unknown), and the evidence kind (``ingestion.quotes.attribution``).
QUOTES = TableSpec("quotes", (
    ("quote_id", "string"), ("doc_id", "string"), ("chunk_id", "string"), ("start", "long"), ("end", "long"),
    ("text", "string"), ("speaker_id", "string"), ("addressee_ids", "array<string>"), ("attribution", "string"),
), unindexed=("text",))
#: One row per typed relation between two people, read "src is the TYPE of dst" (types: ``graph.kinship``): the
#: chunks that state it, how many statements (0: inferred from two other rows), and how sure they make it.
RELATIONS = TableSpec("relations", (
    ("src_id", "string"), ("type", "string"), ("dst_id", "string"), ("chunk_ids", "array<string>"),
    ("count", "long"), ("confidence", "double"),
))
GRAPH_NODES = ENTITIES.extended(
    "graph_nodes", ("degree", "long"), ("weighted_degree", "double"), ("pagerank", "double"), ("community", "long")
)
GRAPH_EDGES = COOCCURRENCES.renamed("graph_edges")

#: Every Delta table of a lakehouse by name, in the order the pipeline writes them.
TABLES: dict[str, TableSpec] = {
    spec.name: spec
    for spec in (
        DOCUMENTS, REJECTS, CHUNKS, MENTIONS, MENTION_CHUNKS, ENTITIES, MENTION_ENTITIES, QUOTES, RELATIONS,
        COOCCURRENCES, GRAPH_NODES, GRAPH_EDGES,
    )
}
