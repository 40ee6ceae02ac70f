"""Issue 38 item 2b: a lakehouse whose table folder is a symbolic link to a folder outside it is never written through.

Through the real command (``csillag pipeline`` in this process): a link there at the start is a settings error (exit 2,
one line naming the link); a link planted while the run goes fails the stage about to write through it (exit 1).
Either way nothing lands in the outside folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLES


def _listing(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def test_issue_38_a_table_folder_linked_outside_is_refused_at_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.app import main

    lake, elsewhere = tmp_path / "evil", tmp_path / "elsewhere" / "documents"
    elsewhere.mkdir(parents=True)
    (elsewhere / "keep.txt").write_text("another team's table", encoding="utf-8")
    lake.mkdir()
    (lake / "documents").symlink_to(elsewhere, target_is_directory=True)

    code = main(["pipeline", str(SAMPLES / "en"), "--lakehouse", str(lake), "--stages", "documents", "--quiet"])

    assert code == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("csillag: ")]
    assert lines == [
        f"csillag: {lake.resolve() / 'documents'} in the lakehouse {lake.resolve()} is a symbolic link leading outside "
        "it; csillag writes only inside the lakehouse root: remove the link (or name the folder it leads to as the "
        "lakehouse)"
    ]
    assert _listing(elsewhere) == ["keep.txt"]
    assert sorted(p.name for p in lake.iterdir()) == ["documents"]  # no lock, no marker: nothing was started


def test_issue_38_a_link_planted_during_the_run_fails_the_stage_that_would_write_through_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli.app import main
    from ingestion.stages.documents import DocumentsStage

    lake, elsewhere = tmp_path / "lake", tmp_path / "elsewhere" / "chunks"
    elsewhere.mkdir(parents=True)
    real_compute = DocumentsStage.compute

    def compute_then_plant(self: DocumentsStage, ctx: Any, incremental: bool) -> Any:
        output = real_compute(self, ctx, incremental)
        (lake / "chunks").symlink_to(elsewhere, target_is_directory=True)  # after the start's check
        return output

    monkeypatch.setattr(DocumentsStage, "compute", compute_then_plant)
    result_file = tmp_path / "result.json"

    code = main(["pipeline", str(SAMPLES / "en"), "--lakehouse", str(lake), "--stages", "documents,chunks",
                 "--quiet", "--result-file", str(result_file)])

    assert code == 1
    result = json.loads(result_file.read_text(encoding="utf-8"))
    statuses = {stage["stage"]: (stage["status"], stage["reason"]) for stage in result["stages"]}
    assert statuses["documents"] == ("succeeded", None)
    assert statuses["chunks"] == (
        "failed",
        f"{lake.resolve() / 'chunks'} in the lakehouse {lake.resolve()} is a symbolic link leading outside it; csillag "
        "writes only inside the lakehouse root: remove the link (or name the folder it leads to as the lakehouse)",
    )
    assert _listing(elsewhere) == []
