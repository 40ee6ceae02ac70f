"""Issue 38 item 7: a lakehouse whose path has a space, a non-ASCII letter or ``%`` is written and read back.

delta-rs names a table's files as percent-encoded URIs (``k%C3%B6nyvt%C3%A1r%20mappa``): read as paths, no file was
found and every run failed; deltalake 1.1 also makes an empty percent-encoded twin of the root's folders beside it.
A path it cannot store a table under at all (``#``, ``?``, ``[``…) is refused with one line before anything starts.
Through the real command line, in this process: ``csillag pipeline``, then the chat side's ``csillag ask``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cli.app import main
from cli.base import EXIT_OK, EXIT_USAGE
from tests.conftest import SAMPLES
from tests.unit.ingestion.tables import read


@pytest.mark.parametrize("folder", ["könyvtár mappa", "50% off & more"])
def test_issue_38_lakehouse_under_a_space_accent_or_percent_is_written_and_read_back(
    folder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SAMPLES / "en" / "harbour_notes.txt", corpus)
    parent = tmp_path / "place"
    lake = parent / folder / "lh"
    assert main(["pipeline", str(corpus), "--lakehouse", str(lake), "--master", "local[2]", "--quiet"]) == EXIT_OK
    assert "status: succeeded" in capsys.readouterr().out
    assert sorted(p.name for p in parent.iterdir()) == [folder]  # no percent-encoded twin beside it
    assert list(read(lake, "documents").title) == ["harbour_notes"]
    assert len(read(lake, "graph_nodes")) > 0
    assert main(["ask", "Who is Margaret Hale?", "--lakehouse", str(lake), "--quiet"]) == EXIT_OK
    answer = capsys.readouterr().out
    assert "harbour_notes" in answer  # a cited passage of the corpus
    assert sorted(p.name for p in parent.iterdir()) == [folder]


@pytest.mark.parametrize("folder", ["notes #1", "why?", "a[b]"])
def test_issue_38_lakehouse_path_the_delta_library_cannot_store_is_refused_in_one_line(
    folder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lake = tmp_path / folder / "lh"
    assert main(["pipeline", str(SAMPLES / "en"), "--lakehouse", str(lake), "--quiet"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"csillag: invalid setting lakehouse.root = {str(lake)!r}"), err
    assert "the Delta library cannot store tables under such a path" in err[0]
    assert list(tmp_path.iterdir()) == []
