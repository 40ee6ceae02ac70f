"""Issue 11: every input the documents stage sees ends in exactly one place, and no file escapes the allowed roots.

Real corpora in tmp_path (symlinks, FIFOs, 0-byte files, bad JSONL lines) through the real pipeline on local Spark;
the tables are read back with delta-rs.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from graph.lakehouse import Lakehouse
from tests.conftest import SAMPLES
from tests.unit.ingestion.tables import read

pytestmark = pytest.mark.spark

STORY = (SAMPLES / "en" / "harbour_notes.txt").read_text(encoding="utf-8")


def _text(n: int) -> str:
    """A short English text, different for every ``n`` (too short for the language check)."""
    return f"Note {n}. Margaret Hale walked to the harbour with Captain Vance, and they talked about ship {n}.\n"


def _outcomes(lake: Path) -> list[tuple[str, str]]:
    """Every (source, outcome) of the run: ``document`` or the reject's reason."""
    docs = [(s, "document") for s in read(lake, "documents").source]
    rejects = read(lake, "rejects")
    return docs + list(zip(rejects.source, rejects.reason, strict=True))


def _assert_each_once(lake: Path, expected: dict[str, str]) -> None:
    outcomes = _outcomes(lake)
    repeated = [s for s, n in Counter(s for s, _ in outcomes).items() if n > 1]
    assert not repeated, f"sources with more than one outcome: {repeated}"
    assert dict(outcomes) == expected


def test_issue_11_every_bad_input_class_is_a_document_or_a_named_reject(ingest: Any, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "good.txt").write_text(STORY, encoding="utf-8")
    (corpus / "sub" / "nested.md").write_text(_text(1), encoding="utf-8")
    (corpus / "zero.txt").write_bytes(b"")
    (corpus / "blank.txt").write_text("  \n\n ", encoding="utf-8")
    (corpus / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    os.mkfifo(corpus / "pipe.txt")  # a special file: opening it for reading would block a reader forever
    (corpus / "loop_a.txt").symlink_to(corpus / "loop_b.txt")
    (corpus / "loop_b.txt").symlink_to(corpus / "loop_a.txt")
    (corpus / "sub" / "up").symlink_to(corpus)  # a folder link back to an ancestor
    (corpus / "dangling.txt").symlink_to(corpus / "no_such_file.txt")
    (corpus / "notes.json").write_text("{}", encoding="utf-8")  # not a document type: not an input of a folder

    jsonl = tmp_path / "records.jsonl"
    lines = [
        json.dumps({"id": "j1", "text": _text(2), "author": {"name": "Ann"}, "year": 1855}),
        json.dumps({"text": _text(3)}),
        "{not json",
        json.dumps({"id": "j4", "text": 42}),
        json.dumps({"id": "j5", "text": ["a", "list"]}),
        json.dumps({"id": "j6", "text": {"an": "object"}}),
        json.dumps({"id": "j1", "text": _text(7)}),
        "",
        json.dumps([1, 2]),
        json.dumps({"id": None, "text": _text(10)}),
        json.dumps({"id": 11, "text": _text(11)}),
        json.dumps({"id": "j12"}),
    ]
    jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    empty_jsonl = tmp_path / "empty.jsonl"
    empty_jsonl.write_bytes(b"")

    # Table inputs (Parquet here; Delta goes through the same reader): bad rows and bad tables.
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows_table = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"id": ["t1", "t1", None, "t3"], "text": [_text(20), _text(21), _text(22), None]}),
                   rows_table)
    no_id = tmp_path / "no_id.parquet"
    pq.write_table(pa.table({"text": [_text(23)]}), no_id)
    number_text = tmp_path / "number_text.parquet"
    pq.write_table(pa.table({"id": ["n1"], "text": [42]}), number_text)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 this is not a parquet file PAR1")

    result = ingest([corpus, jsonl, empty_jsonl, rows_table, no_id, number_text, broken], stages=["documents"])

    assert result.status == "partial", result
    c, j = str(corpus), str(jsonl)
    expected = {
        f"{c}/good.txt": "document",
        f"{c}/sub/nested.md": "document",
        f"{c}/zero.txt": "empty",
        f"{c}/blank.txt": "empty",
        f"{c}/binary.txt": "binary",
        f"{c}/pipe.txt": "unreadable",
        f"{c}/loop_a.txt": "symlink_loop",
        f"{c}/loop_b.txt": "symlink_loop",
        f"{c}/sub/up": "symlink_loop",
        f"{c}/dangling.txt": "unreadable",
        f"{j}#j1": "document",
        f"{j}:2": "missing_id",
        f"{j}:3": "malformed_json",
        f"{j}:4": "text_not_string",
        f"{j}:5": "text_not_string",
        f"{j}:6": "text_not_string",
        f"{j}:7": "duplicate_id",
        f"{j}:9": "malformed_json",
        f"{j}:10": "missing_id",
        f"{j}#11": "document",
        f"{j}:12": "text_not_string",
        str(empty_jsonl): "empty",
        f"{rows_table}#t1": "document",
        f"{rows_table}#t1 (copy 2)": "duplicate_id",
        f"{rows_table}#<no id {hashlib.sha256(_text(22).encode()).hexdigest()[:12]}>": "missing_id",
        f"{rows_table}#t3": "text_not_string",
        str(no_id): "missing_id",
        str(number_text): "text_not_string",
        str(broken): "unreadable",
    }
    _assert_each_once(tmp_path / "lake", expected)
    assert result.rejects == sum(1 for outcome in expected.values() if outcome != "document")

    rejects = read(tmp_path / "lake", "rejects").set_index("source")
    details = rejects.detail.to_dict()
    assert details[f"{j}:7"] == "line 7: id 'j1' repeats line 1; the first is kept"
    assert details[f"{j}:3"].startswith("line 3: not valid JSON")
    assert details[f"{j}:9"] == "line 9: an array where an object with id and text is expected"
    assert details[f"{j}:5"] == "line 5 (id 'j5'): 'text' is an array; expected a string"
    assert "FIFO" in details[f"{c}/pipe.txt"]
    assert details[f"{rows_table}#t1 (copy 2)"] == "id 't1' occurs more than once in the table; one row is kept"
    assert details[str(number_text)].startswith("the table has 'text' of type bigint, expected strings")
    assert details[str(no_id)] == "the table has no 'id' column (columns: text)"
    assert details[str(broken)].startswith("cannot read the parquet table: broken.parquet: ")
    docs = read(tmp_path / "lake", "documents").set_index("source")
    first = docs.loc[f"{j}#j1"]
    assert first.text == _text(2)  # the first record of a repeated id is the one kept
    assert dict(first.metadata) == {"author": '{"name": "Ann"}', "year": "1855"}  # JSON, no _corrupt_record
    assert docs.loc[f"{j}#11"].title == "11"


@pytest.mark.parametrize("reader", ["driver", "spark"])
def test_issue_11_a_file_that_cannot_be_read_is_a_reject_and_the_rest_is_ingested(
    ingest: Any, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    from ingestion.stages import documents

    # "spark": no corpus is small enough to be read in the driver, Spark's workers read the files
    settings = make_settings(ingestion={"driver_max_chars": 0 if reader == "spark" else 8_000_000})

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "kept.txt").write_text(_text(1), encoding="utf-8")
    vanishing = corpus / "vanishing.txt"
    vanishing.write_text(_text(2), encoding="utf-8")
    real_without_files = documents.without_files

    def listed_then_deleted(scan: Any, skip: set[str]) -> Any:
        # Listed by the scan, gone when it is opened (a file deleted while a run is going): between the listing and
        # the reading, whether the driver (a small corpus) or Spark's workers read it.
        to_read = real_without_files(scan, skip)
        vanishing.unlink()
        return to_read

    monkeypatch.setattr(documents, "without_files", listed_then_deleted)
    result = ingest([corpus], stages=["documents"], settings=settings)
    assert result.status == "partial", result
    _assert_each_once(tmp_path / "lake", {str(corpus / "kept.txt"): "document", str(vanishing): "unreadable"})
    detail = read(tmp_path / "lake", "rejects").detail.iloc[0]
    assert detail == f"{vanishing}: No such file or directory"


def test_issue_11_symlink_farm_nothing_outside_the_allowed_roots_is_read(
    ingest: Any, make_settings: Any, tmp_path: Path
) -> None:
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    corp, shelf = allowed / "corp", allowed / "shelf"
    for folder in (corp, shelf, outside / "private"):
        folder.mkdir(parents=True)
    (corp / "own.txt").write_text(_text(1), encoding="utf-8")
    (shelf / "shelved.txt").write_text(_text(2), encoding="utf-8")
    (shelf / "deep").mkdir()
    (shelf / "deep" / "deeper.md").write_text(_text(3), encoding="utf-8")
    secret = "SECRET " + _text(4)
    (outside / "secret.txt").write_text(secret, encoding="utf-8")
    (outside / "private" / "diary.txt").write_text(secret, encoding="utf-8")
    (corp / "inside_link.txt").symlink_to(shelf / "shelved.txt")  # a file link within the roots: read
    (corp / "shelf_link").symlink_to(shelf / "deep")  # a folder link within the roots: walked
    (corp / "leak.txt").symlink_to(outside / "secret.txt")  # a file link out
    (corp / "private").symlink_to(outside / "private")  # a folder link out
    (corp / "relative_leak.md").symlink_to(Path("..") / ".." / "outside" / "secret.txt")
    (corp / "gone_out.txt").symlink_to(outside / "missing.txt")  # dangling, and outside
    (corp / "self").symlink_to(corp)  # a loop
    (corp / "me.txt").symlink_to(corp / "me.txt")  # a loop of one

    settings = make_settings(ingestion={"allowed_roots": [allowed]})
    result = ingest([corp, outside / "secret.txt"], settings=settings, stages=["documents"])

    assert result.status == "partial", result
    c = str(corp)
    _assert_each_once(tmp_path / "lake", {
        f"{c}/own.txt": "document",
        f"{c}/inside_link.txt": "document",
        f"{c}/shelf_link/deeper.md": "document",
        f"{c}/leak.txt": "outside_allowed_roots",
        f"{c}/private": "outside_allowed_roots",
        f"{c}/relative_leak.md": "outside_allowed_roots",
        f"{c}/gone_out.txt": "outside_allowed_roots",
        f"{c}/self": "symlink_loop",
        f"{c}/me.txt": "symlink_loop",
        str(outside / "secret.txt"): "outside_allowed_roots",  # named directly, e.g. by the CLI
    })
    assert not any("SECRET" in text for text in read(tmp_path / "lake", "documents").text)
    rejects = read(tmp_path / "lake", "rejects")
    # Rejects reach API clients: they name neither the link's target nor the roots.
    outside_details = rejects[rejects.reason == "outside_allowed_roots"].detail
    assert all(str(outside) not in d and str(allowed) not in d for d in outside_details)

    # Without roots (the default) the same farm is ingested through its links, loops still rejected.
    open_settings = make_settings(lakehouse={"root": tmp_path / "open_lake"})
    assert ingest([corp], settings=open_settings, stages=["documents"]).status == "partial"
    assert "SECRET" in "".join(read(tmp_path / "open_lake", "documents").text)


def test_issue_11_a_renamed_file_gets_its_new_source_and_title_everywhere(ingest: Any, tmp_path: Path) -> None:
    from tools.retrieval.chunks import ChunkRetriever

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "draft_name.txt").write_text(STORY, encoding="utf-8")
    (corpus / "other.txt").write_text(_text(1), encoding="utf-8")
    stages = ["documents", "chunks", "index"]
    assert ingest([corpus], stages=stages).status == "succeeded"
    before = read(tmp_path / "lake", "documents")
    (corpus / "draft_name.txt").rename(corpus / "Harbour Notes.txt")

    again = ingest([corpus], stages=stages)

    assert again.status == "succeeded", again
    statuses = {s.stage: s.status for s in again.stages}
    assert statuses == {"documents": "succeeded", "chunks": "skipped", "index": "skipped"}  # same contents
    counts = next(s.counts for s in again.stages if s.stage == "documents")
    assert (counts["added"], counts["removed"], counts["updated"]) == (0, 0, 1)
    after = read(tmp_path / "lake", "documents")
    assert sorted(after.doc_id) == sorted(before.doc_id)
    renamed = after.set_index("doc_id").loc[before.set_index("source").doc_id[str(corpus / "draft_name.txt")]]
    assert (renamed.source, renamed.title) == (str(corpus / "Harbour Notes.txt"), "Harbour Notes")
    # The chat side cites passages by the document's title: it shows the new one.
    retriever = ChunkRetriever.from_lakehouse(Lakehouse.for_root(tmp_path / "lake"), "en")
    assert {c.doc_title for c in retriever.chunks if c.doc_id == renamed.name} == {"Harbour Notes"}


def test_jsonl_line_numbers_are_right_across_many_file_blocks(spark: Any, tmp_path: Path) -> None:
    from ingestion.stages.documents import _jsonl_rows

    jsonl = tmp_path / "many.jsonl"
    jsonl.write_text("".join(json.dumps({"id": f"r{n}", "text": "x" * (n % 50)}) + "\n" for n in range(1, 401)))
    # ~30 lines a segment: many segments, many tasks
    rows = _jsonl_rows(spark, jsonl, 10_000, segment_bytes=2048).select("line", "value").collect()
    partitions = _jsonl_rows(spark, jsonl, 10_000, segment_bytes=2048).rdd.getNumPartitions()
    assert partitions > 5
    assert sorted((r.line, json.loads(r.value)["id"]) for r in rows) == [(n, f"r{n}") for n in range(1, 401)]
