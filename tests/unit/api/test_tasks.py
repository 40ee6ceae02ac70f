from __future__ import annotations

import time
from pathlib import Path

import pytest

from api.state import INTERRUPTED, StateStore
from api.tasks import PersistentTaskRunner
from tests.unit.api.apitest_tools import FailTask, SleepTask, SumTask
from tools.errors import TaskError


def make_runner(path: Path) -> PersistentTaskRunner:
    return PersistentTaskRunner(StateStore(path), [SumTask(), SleepTask(), FailTask()])


def wait_for(runner: PersistentTaskRunner, task_id: str, status: str, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = runner.get(task_id)
        if state.status == status:
            return state
        time.sleep(0.02)
    raise AssertionError(f"task {task_id} is {runner.get(task_id).status}, not {status}")


def test_persistent_runner_finished_task_is_read_back_after_restart(tmp_path):
    db = tmp_path / "state.sqlite3"
    first = make_runner(db)
    task_id = first.start("sum.v1", {"numbers": [2, 3, 4]})
    first.wait(task_id, timeout=5)
    first.shutdown()
    first.store.close()

    second = make_runner(db)
    try:
        state = second.get(task_id)
        assert state.status == "succeeded"
        assert state.result == {"total": 9}
        assert state.progress == 1.0
        assert state.task_type == "sum.v1"
    finally:
        second.shutdown()


def test_persistent_runner_running_task_of_a_crashed_process_is_failed_interrupted(tmp_path):
    db = tmp_path / "state.sqlite3"
    crashed = make_runner(db)
    task_id = crashed.start("sleep.v1", {"seconds": 30})
    wait_for(crashed, task_id, "running")
    # A crash: no shutdown(), the runner is simply abandoned; a new process opens the same file.
    second = make_runner(db)
    try:
        state = second.get(task_id)
        assert state.status == "failed"
        assert state.error == INTERRUPTED == "interrupted by restart"
        assert state.finished_at is not None
    finally:
        crashed.cancel(task_id)
        second.shutdown()


def test_persistent_runner_shutdown_records_running_tasks_as_interrupted_not_cancelled(tmp_path):
    db = tmp_path / "state.sqlite3"
    runner = make_runner(db)
    task_id = runner.start("sleep.v1", {"seconds": 30})
    wait_for(runner, task_id, "running")
    runner.shutdown()
    doc = StateStore(db).get("tasks", task_id)
    assert doc["status"] == "failed" and doc["error"] == "interrupted by restart"


def test_persistent_runner_failure_and_cancel_are_recorded(tmp_path):
    db = tmp_path / "state.sqlite3"
    runner = make_runner(db)
    try:
        failing = runner.start("fail.v1", {"path": "/corpora/egri.txt"})
        runner.wait(failing, timeout=5)
        sleeping = runner.start("sleep.v1", {"seconds": 30})
        wait_for(runner, sleeping, "running")
        runner.cancel(sleeping)
        time.sleep(0.1)
        stored = {doc["task_id"]: doc for doc in runner.store.recent("tasks")}
        assert stored[failing]["status"] == "failed"
        assert stored[failing]["error"] == "FileNotFoundError: no such corpus: egri.txt"
        assert stored[sleeping]["status"] == "cancelled"
    finally:
        runner.shutdown()


def test_persistent_runner_list_is_newest_first_and_filters_by_status(tmp_path):
    runner = make_runner(tmp_path / "state.sqlite3")
    try:
        a = runner.start("sum.v1", {"numbers": [1]})
        runner.wait(a, timeout=5)
        b = runner.start("fail.v1", {"path": "x"})
        runner.wait(b, timeout=5)
        assert [s.task_id for s in runner.list()] == [b, a]
        assert [s.task_id for s in runner.list(status="failed")] == [b]
    finally:
        runner.shutdown()


def test_persistent_runner_unknown_id_and_invalid_input_raise_task_error(tmp_path):
    runner = make_runner(tmp_path / "state.sqlite3")
    try:
        with pytest.raises(TaskError, match="no task with id 'nope'"):
            runner.get("nope")
        with pytest.raises(TaskError, match="numbers"):
            runner.start("sum.v1", {"numbers": []})
    finally:
        runner.shutdown()
