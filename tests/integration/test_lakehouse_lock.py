"""Issue 11 item 3: two real pipeline jobs on one lakehouse — started together, and four seconds apart.

One run owns the lakehouse; the other exits 4 at once with one line naming the holder, or with ``--wait`` waits and
then finds everything up to date. Neither reports success over wrong data: the final tables equal a fresh single
run's, computed here for real.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from graph.lakehouse import Lakehouse
from graph.published import read_published
from tests.conftest import ROOT, SAMPLES
from tests.unit.ingestion.tables import comparable, read

pytestmark = [pytest.mark.spark, pytest.mark.integration]

TABLES = ("documents", "chunks", "mentions", "entities", "mention_entities", "quotes", "relations", "cooccurrences",
          "graph_nodes", "graph_edges")


def _start(lake: Path, run_id: str, out: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``python -m jobs.pipeline`` over the bundled sample; ``extra`` arguments replace ``--quiet``."""
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable, **(env or {}))
    return subprocess.Popen(
        [sys.executable, "-m", "jobs.pipeline", str(SAMPLES / "en"), "--lakehouse", str(lake), "--master",
         "local[2]", "--run-id", run_id, "--result-file", str(out / f"{run_id}.json"), *(extra or ("--quiet",))],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _finish(job: subprocess.Popen[str], timeout: float = 1500) -> tuple[int, str]:
    _, stderr = job.communicate(timeout=timeout)
    return job.returncode, stderr


def _status(out: Path, run_id: str) -> str:
    return json.loads((out / f"{run_id}.json").read_text(encoding="utf-8"))["status"]


def _holder_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("csillag: ")]
    assert len(lines) == 1, stderr[-3000:]
    return lines[0]


@pytest.fixture(scope="module")
def fresh(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample ingested once, alone, into a fresh lakehouse: what every contended lakehouse must end up as."""
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings
    from tools.ingestion import IngestionRequest

    lake = tmp_path_factory.mktemp("fresh") / "lake"
    tool = GenericNERIngestionTool()
    tool.set_settings(load_settings(lakehouse={"root": lake}, spark={"master": "local[2]", "shuffle_partitions": 2}))
    tool.set_spark_session(spark)
    assert tool.execute_ingestion(IngestionRequest(inputs=[str(SAMPLES / "en")])).status == "succeeded"
    assert len(read(lake, "graph_edges")) > 0
    return lake


def _assert_same_as_fresh(lake: Path, fresh: Path) -> None:
    for table in TABLES:
        assert comparable(read(lake, table)) == comparable(read(fresh, table)), table


def test_issue_11_two_runs_started_together_one_runs_one_exits_4(fresh: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    jobs = {run_id: _start(lake, run_id, tmp_path) for run_id in ("run-a", "run-b")}
    outcomes = {run_id: _finish(job) for run_id, job in jobs.items()}
    codes = sorted(code for code, _ in outcomes.values())
    assert codes == [0, 4], {k: (c, e[-2000:]) for k, (c, e) in outcomes.items()}
    winner = next(run_id for run_id, (code, _) in outcomes.items() if code == 0)
    loser = next(run_id for run_id, (code, _) in outcomes.items() if code == 4)
    line = _holder_line(outcomes[loser][1])
    assert f"is being written by run {winner} (tool ner_ingestion, pid {jobs[winner].pid} on host " in line
    assert "wait with --wait SECONDS" in line
    assert (_status(tmp_path, winner), _status(tmp_path, loser)) == ("succeeded", "busy")
    assert read_published(Lakehouse.for_root(lake)).run_id == winner
    assert not (lake / "_lock.json").exists()
    _assert_same_as_fresh(lake, fresh)


def test_issue_11_second_run_4s_later_exits_4_or_waits_and_finds_all_done(fresh: Path, tmp_path: Path) -> None:
    from graph.errors import GraphDataError
    from graph.model import GraphData
    from jobs.status import lakehouse_status

    lake = tmp_path / "lake"
    # The samples alone take ~3 s, all in the driver; through Spark (nothing in the driver) the first run holds the
    # lakehouse long enough (~15 s) for the others to meet its lock. The tables are the same either way.
    first = _start(lake, "run-first", tmp_path, env={"CSILLAG_INGESTION_DRIVER_MAX_CHARS": "0"})
    deadline = time.monotonic() + 120
    while not (lake / "_lock.json").exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    refused = _start(lake, "run-refused", tmp_path)
    waiting = _start(lake, "run-waiting", tmp_path, "--wait", "1500")
    code, stderr = _finish(refused, timeout=300)
    assert first.poll() is None, "the first run ended before the second was refused: no contention was tested"
    assert code == 4, stderr[-3000:]
    assert f"is being written by run run-first (tool ner_ingestion, pid {first.pid} on host " in _holder_line(stderr)
    assert _status(tmp_path, "run-refused") == "busy"
    # Meanwhile the readers see no half-written run: nothing is published yet on this new lakehouse.
    status = lakehouse_status(Lakehouse.for_root(lake))
    assert status["running"]["run_id"] == "run-first" and not status["running"]["stale"]
    assert status["published"]["run_id"] is None and status["published"]["tables"] == {}
    with pytest.raises(GraphDataError, match="missing or unreadable"):
        GraphData.from_lakehouse(Lakehouse.for_root(lake))

    code, stderr = _finish(first)
    assert code == 0, stderr[-3000:]
    code, stderr = _finish(waiting)
    assert code == 0, stderr[-3000:]
    assert "is being written by run run-first" in stderr and "waiting up to" in stderr  # it said what it waited for
    assert _status(tmp_path, "run-first") == "succeeded"
    assert _status(tmp_path, "run-waiting") == "skipped"  # it ran after the first and found every stage up to date
    assert read_published(Lakehouse.for_root(lake)).run_id == "run-first"
    _assert_same_as_fresh(lake, fresh)
    graph = GraphData.from_lakehouse(Lakehouse.for_root(lake))
    assert len(graph.relations) == len(read(fresh, "graph_edges")) > 0
