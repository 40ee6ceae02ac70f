"""The pronoun and description rows the quotes stage adds to ``mention_entities``, on a crafted document: the rows
written from reading the text (by both engines, through the stage's one pass: ``test_quote_outputs``), their deletion
before a rerun, and a rerun after a forced run of the entities stage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from ingestion.stages.quotes import document_quotes
from ingestion.stages.references import document_references

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
    """The quotes stage's inputs: documents "d" (English) and "h" (Hungarian), chunks, mention_entities, entities."""
    documents = pa.table({"doc_id": ["d", "h"], "text": [TEXT, HU_TEXT], "language": ["en", "hu"]})
    chunks = pa.table({name: [c[i] for c in CHUNKS] for i, name in enumerate(("doc_id", "chunk_id", "start",
                                                                               "unit_kind"))})
    mention_entities = pa.table({name: [m[i] for m in MENTIONS] for i, name in enumerate(
        ("doc_id", "entity_id", "start", "end", "sentence_id", "kind"))})
    entities = pa.table({"entity_id": list(ENTITIES), "label": list(ENTITIES.values())})
    return documents, chunks, mention_entities, entities


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
