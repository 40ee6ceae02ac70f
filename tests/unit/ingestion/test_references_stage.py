"""The pronoun and description rows the quotes stage adds to ``mention_entities``, on a crafted document, by both
engines: the same rows, written from reading the text; a Hungarian document and the document's non-name rows are
not read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from graph.tables import QUOTES
from ingestion.stages.quotes import document_quotes
from ingestion.stages.references import document_references, reference_rows

PARAGRAPHS = (
    "Pierre met Natasha at the gate.",
    "“I am cold,” said Natasha.",
    "He gave her his coat.",
)
TEXT = "\n\n".join(PARAGRAPHS)
HU_TEXT = "Pierre látta Natasát. He?"
CHUNKS = [("d", "d:c0", 0, "chapter"), ("h", "h:c0", 0, "chapter")]
ENTITIES = {"pierre": "PERSON", "natasha": "PER", "gate": "FAC"}
# doc, entity, start, end, sentence id, kind: the names, and a row of kind pronoun left by an earlier run
MENTIONS = [
    ("d", "pierre", 0, 6, "d:c0:s0", "name"),
    ("d", "natasha", 11, 18, "d:c0:s0", "name"),
    ("d", "natasha", TEXT.index("Natasha."), TEXT.index("Natasha.") + 7, "d:c0:s1", "name"),
    ("d", "natasha", TEXT.index("He "), TEXT.index("He ") + 2, "d:c0:s2", "pronoun"),
    ("h", "pierre", 0, 6, "h:c0:s0", "name"),
]


def _expected() -> list[dict[str, Any]]:
    """From reading: "I" is Natasha, who says the quotation; "He" and "his" are Pierre, the only man; "her" is
    Natasha. The last sentence names no one: its sentence id is made from its chunk and start."""
    last = TEXT.index("He gave")
    rows = []
    for word, at, entity, sentence in (
        ("I", TEXT.index("I am"), "natasha", "d:c0:s1"),
        ("He", last, "pierre", f"d:c0:t{last}"),
        ("her", TEXT.index("her "), "natasha", f"d:c0:t{last}"),
        ("his", TEXT.index("his "), "pierre", f"d:c0:t{last}"),
    ):
        rows.append({
            "entity_id": entity, "mention_id": f"d:r{at}", "doc_id": "d", "chunk_id": "d:c0",
            "sentence_id": sentence, "start": at, "end": at + len(word), "text": word, "kind": "pronoun",
        })
    return rows


def _quotes() -> list[dict[str, Any]]:
    people = [(s, e, entity) for doc, entity, s, e, _, kind in MENTIONS if doc == "d" and kind == "name"]
    return document_quotes("d", TEXT, [(0, "d:c0")], people)


def test_references_document_rows() -> None:
    people = [(s, e, entity, sid) for doc, entity, s, e, sid, kind in MENTIONS if doc == "d" and kind == "name"]
    quotes = [(q["start"], q["end"], q["speaker_id"], q["addressee_ids"]) for q in _quotes()]
    assert _quotes()[0]["speaker_id"] == "natasha"
    assert document_references("d", TEXT, [(0, "d:c0")], people, quotes) == _expected()


def _arrow_inputs() -> tuple[pa.Table, ...]:
    documents = pa.table({"doc_id": ["d", "h"], "text": [TEXT, HU_TEXT], "language": ["en", "hu"]})
    chunks = pa.table({name: [c[i] for c in CHUNKS] for i, name in enumerate(("doc_id", "chunk_id", "start",
                                                                               "unit_kind"))})
    mention_entities = pa.table({name: [m[i] for m in MENTIONS] for i, name in enumerate(
        ("doc_id", "entity_id", "start", "end", "sentence_id", "kind"))})
    entities = pa.table({"entity_id": list(ENTITIES), "label": list(ENTITIES.values())})
    quotes = pa.Table.from_pylist(_quotes(), schema=QUOTES.arrow_schema())
    return documents, chunks, mention_entities, entities, quotes


def test_references_driver_engine_rows() -> None:
    rows = reference_rows(*_arrow_inputs()).to_pylist()
    assert sorted(rows, key=lambda row: row["start"]) == _expected()


def test_references_spark_engine_equals_the_driver(spark: Any) -> None:
    frames = [spark.createDataFrame(table.to_pandas()) for table in _arrow_inputs()[:4]]
    quotes = spark.createDataFrame(_quotes(), QUOTES.ddl())
    rows = [row.asDict() for row in reference_rows(*frames, quotes).collect()]
    assert sorted(rows, key=lambda row: row["start"]) == _expected()


@pytest.mark.parametrize("in_process", [True, False], ids=["delta-rs", "spark"])
def test_references_deleted_by_document_or_all_names_kept(spark: Any, tmp_path: Path, in_process: bool) -> None:
    """What makes the quotes stage's rows idempotent: a rerun first deletes the references it will write again — of
    some documents, or all — and never a name."""
    from deltalake import DeltaTable

    from graph.lakehouse import Lakehouse
    from graph.tables import MENTION_ENTITIES
    from ingestion.lakehouse import LakehouseTables
    from ingestion.stages.references import delete_references

    lake = LakehouseTables(Lakehouse.for_root(tmp_path), spark, driver_max_delete_bytes=10**9 if in_process else 0)
    rows = [
        {"entity_id": "e", "mention_id": f"{doc}:{kind}", "doc_id": doc, "chunk_id": f"{doc}:c0",
         "sentence_id": f"{doc}:c0:s0", "start": 0, "end": 2, "text": "He", "kind": kind}
        for doc in ("a", "b") for kind in ("name", "pronoun", "nominal")
    ]
    lake.write_arrow(pa.Table.from_pylist(rows, schema=MENTION_ENTITIES.arrow_schema()), MENTION_ENTITIES.name)

    def left() -> list[str]:
        return sorted(DeltaTable(str(tmp_path / MENTION_ENTITIES.name)).to_pandas().mention_id)

    delete_references(lake, ["a"])
    assert left() == ["a:name", "b:name", "b:nominal", "b:pronoun"]
    delete_references(lake, None)
    assert left() == ["a:name", "b:name"]


def test_references_are_made_again_after_a_forced_run_of_the_entities_stage_alone(
    ingest: Any, make_settings: Any, tmp_path: Path
) -> None:
    # The entities stage rewrites mention_entities' names and keeps the quotes stage's pronoun rows; the quotes stage
    # must not take itself for up to date because the names came out the same: it checks its rows again (all of them
    # stand here, the names being the same) after every run of the entities stage.
    import shutil

    from tests.unit.ingestion.tables import read

    corpus = tmp_path / "corpus"
    shutil.copytree(Path(__file__).resolve().parents[3] / "ingestion" / "samples" / "en", corpus)
    settings = make_settings()  # its lakehouse: tmp_path / "lake"
    first = ingest([corpus], settings=settings)
    links = read(tmp_path / "lake", "mention_entities")
    references = links[links.kind != "name"].sort_values("mention_id").reset_index(drop=True)
    assert first.status == "succeeded" and len(references) > 0

    forced = ingest([corpus], settings=settings, stages=["entities"], force=True)
    assert forced.status == "succeeded"
    links = read(tmp_path / "lake", "mention_entities")
    assert links[links.kind != "name"].sort_values("mention_id").reset_index(drop=True).equals(references)

    again = ingest([corpus], settings=settings)
    quotes = next(report for report in again.stages if report.stage == "quotes")
    assert quotes.status == "succeeded" and quotes.counts["documents_read"] == 0
    links = read(tmp_path / "lake", "mention_entities")
    assert links[links.kind != "name"].sort_values("mention_id").reset_index(drop=True).equals(references)


def test_references_gather_query_gives_the_same_lists_on_both_engines(spark: Any) -> None:
    """``references_sql`` per document, by DuckDB and by Spark SQL: English documents with prose and a person's name
    only ("h" is Hungarian, "n" names no person), the pronoun row and the name of a gate left out, the quotations
    (null speaker and all) sorted by start."""
    from ingestion.relational import query_rows
    from ingestion.stages.references import references_sql

    chunks = [("d", "d:c0", 0, "chapter"), ("d", "d:c9", 90, "back_matter"), ("h", "h:c0", 0, "chapter"),
              ("n", "n:c0", 0, "chapter")]
    mentions = [("d", "natasha", 11, 18, "d:s0", "name"), ("d", "pierre", 0, 6, "d:s0", "name"),
                ("d", "pierre", 30, 32, "d:s1", "pronoun"), ("d", "gate", 26, 30, "d:s0", "name"),
                ("h", "pierre", 0, 6, "h:s0", "name"), ("n", "gate", 0, 4, "n:s0", "name")]
    quotes = [("d", 60, 70, None, []), ("d", 40, 50, "natasha", ["pierre"]), ("h", 8, 12, "pierre", [])]
    tables = {
        "documents": pa.table({"doc_id": ["d", "h", "n"], "text": ["D", "H", "N"], "language": ["en", "hu", "en"]}),
        "chunks": pa.table({name: [c[i] for c in chunks] for i, name in enumerate(("doc_id", "chunk_id", "start",
                                                                                    "unit_kind"))}),
        "mention_entities": pa.table({name: [m[i] for m in mentions] for i, name in enumerate(
            ("doc_id", "entity_id", "start", "end", "sentence_id", "kind"))}),
        "entities": pa.table({"entity_id": list(ENTITIES), "label": list(ENTITIES.values())}),
        "quotes": pa.table({name: pa.array([q[i] for q in quotes], pa.list_(pa.string()) if i == 4 else None)
                            for i, name in enumerate(("doc_id", "start", "end", "speaker_id", "addressee_ids"))}),
    }
    frames = {name: spark.createDataFrame(table) for name, table in tables.items()}
    expected = [{
        "doc_id": "d", "text": "D", "chunks": [{"start": 0, "chunk_id": "d:c0"}],
        "people": [{"start": 0, "end": 6, "entity_id": "pierre", "sentence_id": "d:s0"},
                   {"start": 11, "end": 18, "entity_id": "natasha", "sentence_id": "d:s0"}],
        "quotes": [{"start": 40, "end": 50, "speaker_id": "natasha", "addressee_ids": ["pierre"]},
                   {"start": 60, "end": 70, "speaker_id": None, "addressee_ids": []}],
    }]
    for engine in (tables, frames):
        assert query_rows(references_sql(), engine) == expected
