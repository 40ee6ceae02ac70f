"""What the quotes and relations stages redo in an increment: the fingerprint of each document's inputs, the same on
both engines and changed by exactly what those stages read; and, through the pipeline, an increment that redoes only
the documents whose inputs changed and leaves the tables a fresh run would write."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from ingestion.stages.increments import fingerprints_of

SAMPLES = Path(__file__).resolve().parents[3] / "ingestion" / "samples" / "en"
# doc, entity, start, end, chunk, sentence, kind
MENTIONS = [
    ("a", "pierre", 0, 6, "a:c0", "a:c0:s0", "name"),
    ("a", "natasha", 11, 18, "a:c0", "a:c0:s0", "name"),
    ("a", "natasha", 30, 33, "a:c0", "a:c0:s1", "pronoun"),
    ("a", "moscow", 40, 46, "a:c1", "a:c1:s0", "name"),
    ("b", "natasha", 0, 7, "b:c0", "b:c0:s0", "name"),
]
CHUNKS = [("a", "a:c0", 0, "chapter"), ("a", "a:c1", 20, None), ("a", "a:c9", 90, "back_matter"),
          ("b", "b:c0", 0, "chapter"), ("c", "c:c0", 0, "contents")]
LABELS = {"pierre": "PERSON", "natasha": "PER", "moscow": "GPE"}


def _tables(mentions: list[tuple[Any, ...]] = MENTIONS, chunks: list[tuple[Any, ...]] = CHUNKS,
            labels: dict[str, str] = LABELS, languages: tuple[str, ...] = ("en", "en", "en")) -> dict[str, pa.Table]:
    names = ("doc_id", "entity_id", "start", "end", "chunk_id", "sentence_id", "kind")
    return {
        "documents": pa.table({"doc_id": ["a", "b", "c"], "language": list(languages)}),
        "chunks": pa.table({name: pa.array([row[i] for row in chunks], pa.int64() if name == "start" else pa.string())
                            for i, name in enumerate(("doc_id", "chunk_id", "start", "unit_kind"))}),
        "mention_entities": pa.table({name: pa.array([row[i] for row in mentions],
                                                     pa.int64() if name in ("start", "end") else pa.string())
                                      for i, name in enumerate(names)}),
        "entities": pa.table({"entity_id": list(labels), "label": list(labels.values())}),
    }


def _prints(tables: dict[str, pa.Table]) -> dict[str, str]:
    return fingerprints_of(tables["documents"], tables["chunks"], tables["mention_entities"], tables["entities"])


def test_input_fingerprints_the_same_on_both_engines(spark: Any) -> None:
    """Every document has one, a document with no prose chunk or no person too; Spark's workers hash what DuckDB's
    rows hash in process, to the digit."""
    tables = _tables()
    in_process = _prints(tables)
    assert sorted(in_process) == ["a", "b", "c"]
    assert len(set(in_process.values())) == 3
    frames = {name: spark.createDataFrame(table) for name, table in tables.items()}
    assert fingerprints_of(frames["documents"], frames["chunks"], frames["mention_entities"],
                           frames["entities"]) == in_process


def _changed(tables: dict[str, pa.Table]) -> list[str]:
    before, after = _prints(_tables()), _prints(tables)
    return sorted(doc for doc in before if before[doc] != after[doc])


def test_input_fingerprints_change_with_what_the_stages_read_and_only_that() -> None:
    """The documents whose fingerprint changes are those whose names of people, prose chunks or language changed;
    a pronoun row, a place, a non-prose chunk or another document's change leave it as it was."""
    moved = [row if row[1] != "pierre" else (*row[:2], 1, 7, *row[4:]) for row in MENTIONS]
    renamed = [row if row[0] != "b" else ("b", "natasha2", *row[2:]) for row in MENTIONS]
    pronoun_gone = [row for row in MENTIONS if row[6] != "pronoun"]
    place_gone = [row for row in MENTIONS if row[1] != "moscow"]
    assert _changed(_tables(mentions=moved)) == ["a"]
    assert _changed(_tables(mentions=renamed, labels={**LABELS, "natasha2": "PER"})) == ["b"]
    assert _changed(_tables(labels={**LABELS, "pierre": "GPE"})) == ["a"]  # no longer a person
    assert _changed(_tables(languages=("en", "hu", "en"))) == ["b"]
    assert _changed(_tables(chunks=[row for row in CHUNKS if row[1] != "a:c1"])) == ["a"]
    assert _changed(_tables(mentions=pronoun_gone)) == []
    assert _changed(_tables(mentions=place_gone)) == []
    assert _changed(_tables(chunks=[row for row in CHUNKS if row[1] != "a:c9"])) == []


# A document of people the samples never name, with a quotation, pronouns and a marriage: what the increment adds.
ADDED = (
    "THE ORCHARD\n\n"
    "Ivor Pendlebury came home late in the rain. Agatha Crumm is Ivor Pendlebury's wife, and she waited for him "
    "at the door of the farmhouse.\n\n"
    "“You are very late, Ivor Pendlebury,” said Agatha Crumm.\n\n"
    "“The road from the market was long,” he said. Ivor Pendlebury took off his coat and sat by the fire, and "
    "Agatha Crumm gave him his supper.\n"
)
# The tables of the quotes and relations stages; mention_entities holds the quotes stage's pronoun rows too.
THEIR_TABLES = ("quotes", "mention_entities", "relations")
# Every stage but NER through Spark (the new document's NER stays in the driver: its engine is not what is tested).
NOTHING_IN_THE_DRIVER = {"driver_max_chars": 0, "driver_max_delete_bytes": 0}


def _people(lake: Path) -> dict[str, set[tuple[Any, ...]]]:
    """Per document, its names with their entities: what decides whether its quotations must be found again."""
    from tests.unit.ingestion.tables import read

    names = read(lake, "mention_entities")
    names = names[names.kind == "name"]
    out: dict[str, set[tuple[Any, ...]]] = {}
    for row in names.itertuples():
        out.setdefault(row.doc_id, set()).add((row.start, row.end, row.entity_id))
    return out


def _assert_tables_equal(a: Path, b: Path) -> None:
    from tests.unit.ingestion.tables import comparable, read

    for table in THEIR_TABLES:
        assert comparable(read(a, table)) == comparable(read(b, table)), table


@pytest.mark.parametrize("scope, engine", [("corpus", "driver"), ("document", "driver"), ("corpus", "spark")])
def test_an_increment_redoes_the_quotes_and_relations_of_the_changed_documents_only(
    ingest: Any, make_settings: Any, tmp_path: Path, scope: str, engine: str
) -> None:
    """One document added to the samples: the quotes and relations stages read it alone and keep the rows of the
    two documents whose names did not change — also in corpus scope, where the entities stage resolved every
    document again — and their tables are those of a fresh run over the three. With nothing in the driver, Spark
    does the increment's reads and writes (the entities stage's overwrite of mention_entities keeping the pronoun
    rows included)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLES, corpus)
    settings = make_settings(ingestion={"entity_scope": scope})
    assert ingest([corpus], settings=settings).status == "succeeded"
    before = _people(tmp_path / "lake")
    (corpus / "the_orchard.txt").write_text(ADDED, encoding="utf-8")
    increment = settings if engine == "driver" else make_settings(
        ingestion={"entity_scope": scope, **NOTHING_IN_THE_DRIVER})
    result = ingest([corpus], settings=increment)
    assert result.status == "succeeded", result
    after = _people(tmp_path / "lake")
    new = sorted(set(after) - set(before))
    assert len(new) == 1 and all(after[doc] == before[doc] for doc in before)  # the samples' names as they were
    reports = {report.stage: report for report in result.stages}
    for stage in ("quotes", "relations"):
        assert reports[stage].status == "succeeded"
        assert (reports[stage].counts["documents_read"], reports[stage].counts["documents_kept"]) == (1, 2), stage
        assert reports[stage].details["engine"] == engine
    assert reports["quotes"].counts["quotes"] > 0 and reports["quotes"].counts["references"] > 0
    from tests.unit.ingestion.tables import read

    quotes = read(tmp_path / "lake", "quotes")
    assert new[0] in set(quotes.doc_id)  # the new document's quotation was found
    fresh = ingest([corpus], settings=make_settings(lakehouse={"root": tmp_path / "fresh"},
                                                    ingestion={"entity_scope": scope}))
    assert fresh.status == "succeeded"
    _assert_tables_equal(tmp_path / "lake", tmp_path / "fresh")


def test_quotes_redo_a_document_whose_references_are_gone(ingest: Any, make_settings: Any, tmp_path: Path) -> None:
    """The rows recorded for a document are trusted only while its pronoun and description rows are all there: with
    one document's deleted, the next run of the stage (after an entities run) makes that document's again, and only
    its."""
    from graph.lakehouse import Lakehouse
    from ingestion.lakehouse import LakehouseTables
    from ingestion.stages.references import delete_references
    from tests.unit.ingestion.tables import comparable, read

    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLES, corpus)
    settings = make_settings()
    assert ingest([corpus], settings=settings).status == "succeeded"
    links = read(tmp_path / "lake", "mention_entities")
    references = links[links.kind != "name"]
    doc = references.doc_id.value_counts().index[0]  # the document with the most
    delete_references(LakehouseTables(Lakehouse.for_root(tmp_path / "lake"), None), [doc])  # type: ignore[arg-type]
    assert ingest([corpus], settings=settings, stages=["entities"], force=True).status == "succeeded"
    again = ingest([corpus], settings=settings)
    quotes = next(report for report in again.stages if report.stage == "quotes")
    assert (quotes.counts["documents_read"], quotes.counts["documents_kept"]) == (1, 1)
    assert comparable(read(tmp_path / "lake", "mention_entities")) == comparable(links)


def test_relations_read_every_document_again_after_the_quotes_stage_changes(
    ingest: Any, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A document's statements read its quotations, which another version of the quotes stage makes otherwise from
    the same inputs: the statements kept are those of the quotes stage's code and settings, or none."""
    from ingestion.stages.quotes import QuotesStage

    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLES, corpus)
    settings = make_settings()
    assert ingest([corpus], settings=settings).status == "succeeded"
    monkeypatch.setattr(QuotesStage, "version", QuotesStage.version + 1)
    result = ingest([corpus], settings=settings)
    reports = {report.stage: report for report in result.stages}
    assert reports["quotes"].counts["documents_read"] == 2  # the quotes stage's new version: everything
    assert (reports["relations"].counts["documents_read"], reports["relations"].counts["documents_kept"]) == (2, 0)
