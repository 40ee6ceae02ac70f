"""Issue 38 item 8: one file whose name is not valid UTF-8 failed the whole run (``UnicodeEncodeError``: no table
can store such a name). It is now one ``rejects`` row under its printable name (undecodable bytes as ``\\xNN``) that
says to rename it, and the rest of the corpus is ingested. Through the real command line, in this process.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cli.app import main
from cli.base import EXIT_OK, EXIT_PARTIAL
from tests.conftest import SAMPLES
from tests.unit.ingestion.tables import read


def test_issue_38_a_file_name_that_is_not_utf8_is_one_named_reject_and_the_rest_is_ingested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, lake = tmp_path / "corpus", tmp_path / "lake"
    corpus.mkdir()
    shutil.copy(SAMPLES / "en" / "harbour_notes.txt", corpus)
    fd = os.open(os.fsencode(corpus) + b"/caf\xe9.txt", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"Margaret Hale met Captain Vance at the cafe by the harbour.\n" * 3)
    os.close(fd)
    argv = ["pipeline", str(corpus), "--lakehouse", str(lake), "--quiet"]
    assert main(argv) == EXIT_PARTIAL
    assert "status: partial — 1 document(s) rejected" in capsys.readouterr().out
    assert read(lake, "documents").source.tolist() == [str(corpus / "harbour_notes.txt")]
    rejects = read(lake, "rejects").to_dict("records")
    assert [(r["source"], r["reason"]) for r in rejects] == [(f"{corpus}/caf\\xe9.txt", "undecodable")]
    assert "file name is not valid UTF-8" in rejects[0]["detail"] and "rename the file" in rejects[0]["detail"]
    assert main(argv) == EXIT_OK  # nothing changed: every stage up to date
    assert "every stage was up to date" in capsys.readouterr().out
