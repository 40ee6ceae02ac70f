"""Issue 38 items 12 and 6 (ii): the publish manifest ``_published.json`` and the inputs ``--check`` refuses.

A damaged manifest told the user to rerun the pipeline to rewrite it, and every rerun (``--force`` too) failed the
same way: the run that holds the lock now writes a new one over it. A manifest of an unknown ``format`` was read as
format 1: it is refused, naming the valid formats. A folder holding only JSONL files failed after the run started:
``--check`` (and so ``spark-submit.sh``, before a JVM) now refuses it, naming the files.
Through the real command line, in this process.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli.app import main
from cli.base import EXIT_OK, EXIT_USAGE
from graph.errors import GraphDataError
from graph.lakehouse import Lakehouse
from graph.published import PUBLISHED_FILE, read_published
from tests.conftest import SAMPLES


def _ingested(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    corpus, lake = tmp_path / "corpus", tmp_path / "lake"
    corpus.mkdir()
    shutil.copy(SAMPLES / "en" / "harbour_notes.txt", corpus)
    assert main(["pipeline", str(corpus), "--lakehouse", str(lake), "--quiet"]) == EXIT_OK
    capsys.readouterr()
    return corpus, lake


@pytest.mark.parametrize("force", [False, True], ids=["rerun", "force"])
def test_issue_38_a_damaged_manifest_is_replaced_by_the_next_run(
    force: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, lake = _ingested(tmp_path, capsys)
    published = read_published(Lakehouse.for_root(lake))
    assert published is not None
    (lake / PUBLISHED_FILE).write_text("{not json at all", encoding="utf-8")
    with pytest.raises(GraphDataError, match="rerun the ingestion pipeline to rewrite it"):
        read_published(Lakehouse.for_root(lake))
    argv = ["pipeline", str(corpus), "--lakehouse", str(lake), "--quiet", *(["--force"] if force else [])]
    assert main(argv) == EXIT_OK
    assert "csillag:" not in capsys.readouterr().err
    rewritten = read_published(Lakehouse.for_root(lake))
    assert rewritten is not None and rewritten.run_id not in (None, published.run_id)
    assert rewritten.tables.keys() == published.tables.keys()
    assert main(["ask", "Who is Margaret Hale?", "--lakehouse", str(lake), "--quiet"]) == EXIT_OK
    assert "harbour_notes" in capsys.readouterr().out


def test_issue_38_a_manifest_of_an_unknown_format_is_refused_naming_the_valid_ones_and_then_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, lake = _ingested(tmp_path, capsys)
    manifest = json.loads((lake / PUBLISHED_FILE).read_text(encoding="utf-8"))
    (lake / PUBLISHED_FILE).write_text(json.dumps({**manifest, "format": 99}), encoding="utf-8")
    with pytest.raises(GraphDataError, match=r"format: 99 is not a publish manifest format .*\(valid: 1\)"):
        read_published(Lakehouse.for_root(lake))
    assert main(["status", "--lakehouse", str(lake)]) != EXIT_OK  # the chat side's readers refuse it too
    assert "99 is not a publish manifest format" in capsys.readouterr().err
    assert main(["pipeline", str(corpus), "--lakehouse", str(lake), "--quiet"]) == EXIT_OK
    replaced = read_published(Lakehouse.for_root(lake))
    assert replaced is not None and replaced.format == 1 and replaced.tables == manifest["tables"]


def test_issue_38_a_folder_of_only_jsonl_files_is_refused_at_check_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "a.jsonl").write_text(json.dumps({"id": "a", "text": "Margaret walked."}) + "\n", encoding="utf-8")
    lake = tmp_path / "lake"
    assert main(["pipeline", str(folder), "--lakehouse", str(lake), "--check"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"csillag: folder {str(folder)!r} holds no .txt/.md documents; its 1 JSONL file(s) are inputs "
                   f"only when named one by one: {folder / 'a.jsonl'}"]
    assert not lake.exists()
    assert main(["pipeline", str(folder / "a.jsonl"), "--lakehouse", str(lake), "--check"]) == EXIT_OK
