"""Issue 38 item 9: ``_lock.json`` that no run made (a symbolic link, a FIFO) and a lock that keeps vanishing.

A symbolic link is never followed — not even to a well-formed lock of a dead process, which would otherwise be
"taken over" through it — and whatever stands in the lock's place, every acquire ends by its deadline.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import ingestion.lock as lock_module
from graph.lakehouse import Lakehouse
from ingestion.errors import LakehouseError
from ingestion.lock import LOCK_FILE, LakehouseBusyError, LakehouseLock


def _acquire_within(lock: LakehouseLock, seconds: float) -> BaseException | None:
    """``lock.acquire()`` in a daemon thread: what it raised, or fail when it has not ended after ``seconds``."""
    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            lock.acquire()
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test to assert on
            outcome.append(exc)

    thread = threading.Thread(target=attempt, daemon=True)  # daemon: a hung attempt must not hold pytest's exit
    thread.start()
    thread.join(seconds)
    assert outcome, f"acquire still running after {seconds} s"
    return outcome[0]


def test_issue_38_a_link_to_a_stale_lock_is_not_followed_nor_taken_over(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)
    target = tmp_path / "elsewhere.json"
    content = json.dumps({"run_id": "run-dead", "tool": "t", "pid": gone.pid, "host": socket.gethostname(),
                          "started_at": "2026-01-01T00:00:00+00:00", "process_start": None})
    target.write_text(content, encoding="utf-8")
    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / LOCK_FILE).symlink_to(target)
    with pytest.raises(LakehouseError, match=r"_lock.json is a symbolic link \(to .*elsewhere.json"):
        LakehouseLock(Lakehouse.for_root(lake), run_id="run-new", tool="t").acquire()
    assert target.read_text(encoding="utf-8") == content
    assert (lake / LOCK_FILE).is_symlink() and sorted(p.name for p in lake.iterdir()) == [LOCK_FILE]


def test_issue_38_a_fifo_lock_fails_at_once_instead_of_blocking(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    os.mkfifo(lake / LOCK_FILE)
    failure = _acquire_within(LakehouseLock(Lakehouse.for_root(lake), run_id="run-new", tool="t", wait_seconds=2), 10)
    assert isinstance(failure, LakehouseError) and "_lock.json is not a regular file" in str(failure)


def test_issue_38_a_lock_that_keeps_vanishing_ends_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The name is taken (link(2) fails) but every read finds no lock: runs quicker than this one, or a file system
    # whose names and reads disagree. The wait must end at --wait all the same, and say so.
    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / LOCK_FILE).write_text("{}", encoding="utf-8")
    monkeypatch.setattr(lock_module, "_read_tagged", lambda storage: None)
    started = time.monotonic()
    failure = _acquire_within(LakehouseLock(Lakehouse.for_root(lake), run_id="run-new", tool="t", wait_seconds=1.5), 15)
    assert isinstance(failure, LakehouseBusyError), failure
    assert 1.4 <= time.monotonic() - started < 5
    assert "kept changing" in str(failure) and "after waiting 2 s" in str(failure)
