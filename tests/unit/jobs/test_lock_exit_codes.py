"""Issue 11 item 3 at the command line: exit 4 with one line naming the run that holds the lakehouse."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.lakehouse import Lakehouse
from ingestion.lock import LakehouseLock
from tests.conftest import SAMPLES


def test_issue_11_csillag_ingest_on_a_locked_lakehouse_exits_4_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.app import main

    lake = tmp_path / "lake"
    with LakehouseLock(Lakehouse.for_root(lake), run_id="run-holder", tool="ner_ingestion"):
        code = main(["ingest", str(SAMPLES / "en"), "--lakehouse", str(lake), "--quiet", "--wait", "0.6"])
    assert code == 4
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("csillag: ")]
    assert len(lines) == 1
    assert f"lakehouse {lake.resolve()} is being written by run run-holder (tool ner_ingestion" in lines[0]
    assert "after waiting 1 s; wait longer with --wait SECONDS" in lines[0]
    assert not (lake / "documents").exists()


def test_issue_11_negative_wait_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from jobs.pipeline import main

    assert main([str(SAMPLES / "en"), "--lakehouse", str(tmp_path / "lake"), "--wait", "-3"]) == 2
    assert capsys.readouterr().err.strip() == "csillag: --wait -3: expected a number of seconds >= 0"
