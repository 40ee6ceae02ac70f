"""Issue 11 item 3: one run at a time owns a lakehouse (``ingestion.lock``); real processes hold and race for it."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph.lakehouse import Lakehouse
from ingestion.lock import LOCK_FILE, LakehouseBusyError, LakehouseLock, process_start, read_holder
from tests.conftest import ROOT, SAMPLES

HOLD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from graph.lakehouse import Lakehouse
    from ingestion.lock import LakehouseLock, LakehouseBusyError
    root, run_id, hold = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    try:
        with LakehouseLock(Lakehouse.for_root(root), run_id=run_id, tool="holder"):
            print("locked", flush=True)
            time.sleep(hold)
    except LakehouseBusyError as exc:
        print("busy", exc, flush=True)
        sys.exit(4)
    """
)


def _holder_process(root: Path, run_id: str, hold: float) -> subprocess.Popen[str]:
    """A real process that takes the lock and keeps it for ``hold`` seconds (returns once it holds it)."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(root), run_id, str(hold)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "locked"
    return process


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    process = _holder_process(tmp_path / "lake", "run-A", 60)
    yield process
    process.kill()
    process.wait(10)


def test_issue_11_lock_file_names_the_holder_and_is_removed_on_release(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    with LakehouseLock(Lakehouse.for_root(lake), run_id="run-1", tool="ner_ingestion") as lock:
        data = json.loads((lake / LOCK_FILE).read_text(encoding="utf-8"))
        assert data["run_id"] == "run-1" and data["tool"] == "ner_ingestion"
        assert data["pid"] == os.getpid() and data["host"] == socket.gethostname()
        assert data["started_at"] and data["process_start"] == process_start(os.getpid())
        assert lock.held
    assert not (lake / LOCK_FILE).exists()
    assert [p.name for p in lake.iterdir()] == []  # no temp file left behind


def test_issue_11_lock_released_when_the_run_raises(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lock = LakehouseLock(Lakehouse.for_root(lake), run_id="r", tool="t")
    with pytest.raises(RuntimeError, match="stage exploded"), lock:
        raise RuntimeError("stage exploded")
    assert not (lake / LOCK_FILE).exists()
    with LakehouseLock(Lakehouse.for_root(lake), run_id="next", tool="t"):  # the next run gets it at once
        assert read_holder(Lakehouse.for_root(lake)).run_id == "next"


def test_issue_11_racing_processes_one_wins_the_others_are_busy(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    racers = [
        subprocess.Popen([sys.executable, "-c", HOLD, str(lake), f"run-{n}", "3"], cwd=ROOT,
                         stdout=subprocess.PIPE, text=True)
        for n in range(4)
    ]
    outputs = [(p.communicate(timeout=60)[0], p.returncode) for p in racers]
    winners = [out for out, code in outputs if code == 0]
    losers = [out for out, code in outputs if code == 4]
    assert len(winners) == 1 and len(losers) == 3, outputs
    assert all("is being written by run run-" in out for out in losers)
    assert not (lake / LOCK_FILE).exists()


def test_issue_11_busy_error_names_the_holder_at_once(tmp_path: Path, holder: subprocess.Popen[str]) -> None:
    started = time.monotonic()
    with pytest.raises(LakehouseBusyError) as caught:
        LakehouseLock(Lakehouse.for_root(tmp_path / "lake"), run_id="run-B", tool="t").acquire()
    assert time.monotonic() - started < 2
    message = str(caught.value)
    assert len(message.splitlines()) == 1
    assert f"lakehouse {(tmp_path / 'lake').resolve()} is being written by run run-A" in message
    assert f"pid {holder.pid} on host {socket.gethostname()}" in message
    assert "wait with --wait SECONDS" in message
    assert caught.value.holder is not None and caught.value.holder.pid == holder.pid
    assert read_holder(Lakehouse.for_root(tmp_path / "lake")).run_id == "run-A"  # the holder's lock is untouched


def test_issue_11_wait_then_busy_with_progress_log(
    tmp_path: Path, holder: subprocess.Popen[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="ingestion.lock")
    started = time.monotonic()
    with pytest.raises(LakehouseBusyError, match=r"run run-A .* after waiting 1 s; wait longer with --wait"):
        LakehouseLock(Lakehouse.for_root(tmp_path / "lake"), run_id="run-B", tool="t", wait_seconds=1.2).acquire()
    assert time.monotonic() - started >= 1.2
    assert any("waiting up to" in r.getMessage() and "run-A" in r.getMessage() for r in caplog.records)


def test_issue_11_wait_gets_the_lock_when_the_holder_finishes(tmp_path: Path) -> None:
    first = _holder_process(tmp_path / "lake", "run-A", 1.5)
    started = time.monotonic()
    try:
        with LakehouseLock(Lakehouse.for_root(tmp_path / "lake"), run_id="run-B", tool="t", wait_seconds=30):
            assert time.monotonic() - started >= 1.0  # waited for run-A to finish
            assert read_holder(Lakehouse.for_root(tmp_path / "lake")).run_id == "run-B"
        assert first.wait(30) == 0
    finally:
        first.kill()
        first.wait(10)


def _write_holder(lake: Path, **fields: object) -> None:
    lake.mkdir(parents=True, exist_ok=True)
    holder = {"run_id": "run-dead", "tool": "t", "pid": 1, "host": socket.gethostname(),
              "started_at": "2026-01-01T00:00:00+00:00", "process_start": None} | fields
    (lake / LOCK_FILE).write_text(json.dumps(holder), encoding="utf-8")


def test_issue_11_stale_lock_of_a_dead_process_is_taken_over_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)
    lake = tmp_path / "lake"
    _write_holder(lake, pid=gone.pid)
    caplog.set_level(logging.WARNING, logger="ingestion.lock")
    with LakehouseLock(Lakehouse.for_root(lake), run_id="run-new", tool="t"):
        assert read_holder(Lakehouse.for_root(lake)).run_id == "run-new"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "took over the stale lock of run run-dead" in warnings[0]
    assert f"pid {gone.pid}" in warnings[0]


def test_issue_11_lock_of_a_reused_pid_is_stale(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    lake = tmp_path / "lake"
    # our own pid is alive, but recorded with another process start time: the pid was reused, the holder is gone
    _write_holder(lake, pid=os.getpid(), process_start=(process_start(os.getpid()) or 0) + 12345)
    with LakehouseLock(Lakehouse.for_root(lake), run_id="run-new", tool="t"):
        assert read_holder(Lakehouse.for_root(lake)).run_id == "run-new"
    assert "took over the stale lock of run run-dead" in caplog.text


def test_issue_11_lock_of_another_host_is_not_taken_over(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    _write_holder(lake, host="elsewhere.example", pid=os.getpid())
    with pytest.raises(LakehouseBusyError, match="if host elsewhere.example is gone, remove .*_lock.json"):
        LakehouseLock(Lakehouse.for_root(lake), run_id="run-new", tool="t").acquire()
    assert read_holder(Lakehouse.for_root(lake)).host == "elsewhere.example"


def test_issue_11_release_leaves_a_lock_that_is_no_longer_ours(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lock = LakehouseLock(Lakehouse.for_root(lake), run_id="run-1", tool="t")
    lock.acquire()
    _write_holder(lake, run_id="run-2", pid=os.getpid())  # e.g. we were wrongly judged dead and taken over
    lock.release()
    assert read_holder(Lakehouse.for_root(lake)).run_id == "run-2"


def test_issue_11_pipeline_job_on_a_locked_lakehouse_exits_4_naming_the_holder(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "jobs.pipeline", str(SAMPLES / "en"), "--lakehouse", str(tmp_path / "lake"),
         "--master", "local[1]", "--quiet", "--run-id", "run-B"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 4, done.stderr[-2000:]
    assert time.monotonic() - started < 60  # refused before Spark starts
    lines = [line for line in done.stderr.splitlines() if line.startswith("csillag: ")]
    assert len(lines) == 1, done.stderr
    assert "is being written by run run-A" in lines[0] and f"pid {holder.pid}" in lines[0]
    assert "status: busy" in done.stdout
    assert read_holder(Lakehouse.for_root(tmp_path / "lake")).run_id == "run-A"
    assert not (tmp_path / "lake" / "documents").exists()

