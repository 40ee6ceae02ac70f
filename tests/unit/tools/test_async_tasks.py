from __future__ import annotations

import asyncio
import threading
import time

import pytest
from pydantic import BaseModel, Field

from tools.contracts import AsyncTaskTool
from tools.errors import TaskError
from tools.tasks import TaskRunner


class CountInput(BaseModel):
    words: list[str]
    repeat: int = Field(default=1, ge=1, le=10)


class CountWords(AsyncTaskTool):
    name = "count_words"
    task_type = "count_words.v1"
    input_model = CountInput

    async def run(self, task_input: CountInput, context):
        context.report(0.5, "counting")
        return {"total": len(task_input.words) * task_input.repeat}


class Forever(AsyncTaskTool):
    name = "forever"
    task_type = "forever.v1"
    input_model = CountInput

    async def run(self, task_input, context):
        context.report(0.1, "started")
        await asyncio.sleep(60)


class SyncLoop(AsyncTaskTool):
    name = "sync_loop"
    task_type = "sync_loop.v1"
    input_model = CountInput
    started = threading.Event()

    def run(self, task_input, context):
        self.started.set()
        for _ in range(1000):
            context.raise_if_cancelled()
            time.sleep(0.01)
        return "finished"


class Broken(AsyncTaskTool):
    name = "broken"
    task_type = "broken.v1"
    input_model = CountInput

    def run(self, task_input, context):
        raise ValueError("corpus file missing: egri.txt")


@pytest.fixture
def runner():
    runner = TaskRunner([CountWords(), Forever(), SyncLoop(), Broken()])
    yield runner
    runner.shutdown()


def test_r_async_1_started_by_type_id_with_structured_input(runner):
    task_id = runner.start("count_words.v1", {"words": ["Eger", "Dobó", "Gergely"], "repeat": 2})
    state = runner.wait(task_id, timeout=5)
    assert (state.status, state.result, state.progress, state.message) == ("succeeded", {"total": 6}, 1.0, "counting")
    assert runner.task_types()["count_words.v1"]["properties"]["repeat"]["maximum"] == 10


def test_r_async_1_invalid_input_is_a_clear_validation_error(runner):
    with pytest.raises(TaskError, match=r"count_words.v1.*repeat: Input should be less than or equal to 10"):
        runner.start("count_words.v1", {"words": [], "repeat": 11})
    with pytest.raises(TaskError, match=r"words: Field required"):
        runner.start("count_words.v1", {})
    with pytest.raises(TaskError, match=r"unknown task type 'nope'; known: \['broken.v1', 'count_words.v1'"):
        runner.start("nope", {})


def test_r_async_2_state_is_queried_by_id_while_running_and_cancel_stops_it(runner):
    task_id = runner.start("forever.v1", CountInput(words=["x"]))
    deadline = time.monotonic() + 5
    while runner.get(task_id).status != "running" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runner.get(task_id).status == "running"
    state = runner.cancel(task_id)
    assert state.status == "cancelled"
    assert runner.wait(task_id, timeout=5).status == "cancelled"


def test_r_async_2_sync_task_stops_cooperatively_on_cancel(runner):
    task_id = runner.start("sync_loop.v1", {"words": []})
    assert SyncLoop.started.wait(5)
    runner.cancel(task_id)
    time.sleep(0.1)
    assert runner.get(task_id).status == "cancelled"


def test_r_async_2_failure_is_a_state_with_the_error(runner):
    state = runner.wait(runner.start("broken.v1", {"words": []}), timeout=5)
    assert state.status == "failed"
    assert state.error == "ValueError: corpus file missing: egri.txt"


def test_async_tasks_unknown_task_id(runner):
    with pytest.raises(TaskError, match="no task with id 'missing'"):
        runner.get("missing")


def test_async_tasks_refuse_a_taken_type_id(runner):
    class Again(CountWords):
        name = "again"

    with pytest.raises(TaskError, match="already registered"):
        runner.register(Again())
