"""Issue 12, "also mend": one column definition per lakehouse table (``graph.tables``) for writers and readers."""

from __future__ import annotations

import dataclasses

import pyarrow as pa
import pytest

from graph.model import LAKEHOUSE_TABLES, ChunkNode, CoOccurrence, DocumentNode, EntityNode
from graph.tables import CHUNKS, DOCUMENTS, GRAPH_EDGES, GRAPH_NODES, MENTIONS, TABLES, TableSpec, ddl
from tools.retrieval.chunks import CHUNK_COLUMNS, Chunk


def test_issue_12_every_lakehouse_table_is_defined_once() -> None:
    assert list(TABLES) == [
        "documents", "rejects", "chunks", "mentions", "mention_chunks", "entities", "mention_entities",
        "quotes", "relations", "cooccurrences", "graph_nodes", "graph_edges",
    ]
    assert GRAPH_EDGES.columns == TABLES["cooccurrences"].columns
    assert GRAPH_NODES.columns[: len(TABLES["entities"].columns)] == TABLES["entities"].columns


def test_issue_12_pick_and_without_refuse_a_column_the_table_lacks() -> None:
    assert CHUNKS.pick("text", "chunk_id") == ["text", "chunk_id"]
    assert DOCUMENTS.without("text") == ["doc_id", "source", "title", "language", "n_chars", "n_words", "metadata"]
    with pytest.raises(ValueError, match=r"table chunks has no column txt; its columns: chunk_id, doc_id, "):
        CHUNKS.pick("chunk_id", "txt")
    with pytest.raises(ValueError, match=r"table documents has no column body"):
        DOCUMENTS.without("body")


def test_issue_12_unknown_column_type_fails_when_defined() -> None:
    with pytest.raises(ValueError, match=r"table t: unknown column types n integer; accepted: string, int, long"):
        TableSpec("t", (("a", "string"), ("n", "integer")))  # type: ignore[arg-type]


def test_issue_12_spark_and_arrow_schemas_from_one_definition() -> None:
    assert ddl(MENTIONS.columns[:4]) == "mention_id string, doc_id string, chunk_id string, sentence_index int"
    schema = DOCUMENTS.arrow_schema()
    assert schema.names == list(DOCUMENTS.names)
    assert schema.field("n_words").type == pa.int64()
    assert schema.field("metadata").type == pa.map_(pa.string(), pa.string())
    assert CHUNKS.arrow_schema().field("chunk_index").type == pa.int32()
    assert GRAPH_NODES.arrow_schema().field("aliases").type == pa.list_(pa.string())
    assert GRAPH_NODES.arrow_schema().field("weighted_degree").type == pa.float64()


def test_issue_12_readers_take_their_columns_from_the_definition() -> None:
    for table, columns in LAKEHOUSE_TABLES.items():
        assert set(columns) <= set(TABLES[table].names), table
    # The graph model mirrors the tables one to one (same names), as graph.model's docstring promises.
    assert tuple(EntityNode.model_fields) == GRAPH_NODES.names
    assert tuple(CoOccurrence.model_fields) == GRAPH_EDGES.names
    assert tuple(DocumentNode.model_fields) == tuple(DOCUMENTS.without("text"))
    assert set(ChunkNode.model_fields) <= set(CHUNKS.names)
    fields = [f.name for f in dataclasses.fields(Chunk) if f.name != "doc_title"]
    assert fields == CHUNK_COLUMNS == CHUNKS.without("n_words")
