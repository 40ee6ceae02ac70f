"""Issue 38 item 6 (i): two JSONL records with the same text under different ids are one document, and the second
id was found nowhere — no row, no count. It is now a ``duplicate_text`` reject naming the record the text is kept
under (and the run says how many were rejected). Through the real command line, in this process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli.app import main
from cli.base import EXIT_PARTIAL
from tests.unit.ingestion.tables import read

pytestmark = pytest.mark.spark

TEXT = "Margaret Hale walked to the harbour with Captain Vance, and they talked about the ships of the north. " * 3


def test_issue_38_a_record_repeating_another_records_text_is_a_named_reject(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jsonl = tmp_path / "records.jsonl"
    lines = [{"id": "a", "text": TEXT}, {"id": "b", "text": TEXT.replace("Margaret", "Ellen")},
             {"id": "c", "text": TEXT}]
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    lake = tmp_path / "lake"
    argv = ["pipeline", str(jsonl), "--lakehouse", str(lake), "--master", "local[2]", "--quiet",
            "--stages", "documents"]
    assert main(argv) == EXIT_PARTIAL
    assert "1 document(s) rejected" in capsys.readouterr().out
    documents = read(lake, "documents")
    assert sorted(documents.source) == [f"{jsonl}#a", f"{jsonl}#b"]
    rejects = read(lake, "rejects").to_dict("records")
    kept = documents.set_index("source").doc_id[f"{jsonl}#a"]
    assert [(r["source"], r["reason"], r["doc_id"]) for r in rejects] == [(f"{jsonl}#c", "duplicate_text", kept)]
    assert rejects[0]["detail"] == f"id 'c': the same text as {jsonl}#a, kept once under that name"
