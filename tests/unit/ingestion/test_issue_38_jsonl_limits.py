"""Issue 38 item 10: one huge JSONL record ran the Spark driver out of memory and the small records beside it were
lost. A JSONL file is now read in bounded pieces (``ingestion.records``): a line over ``ingestion.max_document_bytes``
is a ``too_large`` reject named by its line number, skipped to its end unread, and the records beside it are
ingested. The test's record is 1 MB against a 10 kB limit (the same code path as 200 MB against 50 MB).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import ingestion.records as records
from cli.app import main
from cli.base import EXIT_PARTIAL
from tests.unit.ingestion.tables import read

STORY = ("Margaret Hale walked down to the harbour with Captain Vance, and they talked about the ships that had "
         "come in from the north that week. ") * 4


def _jsonl(path: Path, big_bytes: int) -> Path:
    lines = [
        json.dumps({"id": "small-1", "text": STORY}),
        json.dumps({"id": "huge", "text": "x" * big_bytes}),
        json.dumps({"id": "small-2", "text": STORY.replace("Margaret", "Ellen")}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.spark
def test_issue_38_a_jsonl_line_over_the_document_limit_is_rejected_by_line_and_its_neighbours_ingested(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    jsonl = _jsonl(tmp_path / "records.jsonl", 1_000_000)
    lake = tmp_path / "lake"
    monkeypatch.setenv("CSILLAG_INGESTION_MAX_DOCUMENT_BYTES", "10000")
    argv = ["pipeline", str(jsonl), "--lakehouse", str(lake), "--master", "local[2]", "--quiet",
            "--stages", "documents"]
    assert main(argv) == EXIT_PARTIAL
    assert "1 document(s) rejected" in capsys.readouterr().out
    assert sorted(read(lake, "documents").source) == [f"{jsonl}#small-1", f"{jsonl}#small-2"]
    rejects = read(lake, "rejects").to_dict("records")
    assert [(r["source"], r["reason"]) for r in rejects] == [(f"{jsonl}:2", "too_large")]
    size = len(jsonl.read_bytes().split(b"\n")[1])
    assert rejects[0]["detail"].startswith(f"line 2: {size} bytes, over the limit of 10000")


class _CountingReads(io.BytesIO):
    """A file whose reads are recorded: what the reader asks for at once is what it may hold."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.sizes: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        assert size is not None and size > 0, "an unbounded read"
        self.sizes.append(size)
        return super().read(size)

    def readline(self, size: int | None = -1) -> bytes:
        raise AssertionError("readline reads a whole line, however long")


def test_issue_38_the_jsonl_reader_never_holds_more_than_a_chunk_and_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _jsonl(tmp_path / "records.jsonl", 1_000_000).read_bytes()
    monkeypatch.setattr(records, "READ_CHUNK", 4096)
    handle = _CountingReads(data)
    lines = list(records._lines(handle, len(data), 10_000))  # noqa: SLF001 - the bounded loop itself
    assert [size for _, size in lines] == [len(line) for line in data.split(b"\n")[:3]]
    assert lines[1][0] is None and lines[0][0] == data.split(b"\n")[0]  # the long line was never kept
    assert max(handle.sizes) == 4096
    segments = records.jsonl_segments(str(tmp_path / "records.jsonl"), segment_bytes=100)
    assert [first for _, _, first in segments] == [1, 2, 3]
    assert segments[-1][1] == len(data)
