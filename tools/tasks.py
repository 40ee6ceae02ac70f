"""Async tasks: started by type id with structured input, run in the background, queried by id (R-ASYNC-1, R-ASYNC-2).

``TaskRunner`` is the in-process runner: its own event loop in a daemon thread, so it serves sync callers (a CLI,
a test) and async ones (the REST API) alike. Async ``run`` methods are awaited there; sync ones run in worker
threads. Cancellation cancels the waiting coroutine and sets ``TaskContext.cancelled``, which sync tasks poll.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from tools.contracts import AsyncTaskTool
from tools.errors import TaskError

logger = logging.getLogger(__name__)

TaskStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
FINISHED: frozenset[str] = frozenset({"succeeded", "failed", "cancelled"})


@dataclass(frozen=True, slots=True)
class TaskState:
    """A snapshot of one task, independent of its execution (R-ASYNC-2)."""

    task_id: str
    task_type: str
    status: TaskStatus
    progress: float = 0.0
    message: str | None = None
    result: Any = None
    error: str | None = None
    created_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict."""
        return asdict(self)


class TaskCancelledError(Exception):
    """Raised inside a task (by ``TaskContext.raise_if_cancelled``) when its cancellation was requested."""


class TaskContext:
    """Handed to ``AsyncTaskTool.run``: report progress, check for cancellation."""

    def __init__(self, runner: TaskRunner, task_id: str) -> None:
        self._runner = runner
        self.task_id = task_id
        self._cancelled = threading.Event()

    @property
    def cancelled(self) -> bool:
        """Whether the caller asked to cancel; sync tasks should stop soon after."""
        return self._cancelled.is_set()

    def raise_if_cancelled(self) -> None:
        """Stop here if the task was cancelled."""
        if self.cancelled:
            raise TaskCancelledError(self.task_id)

    def report(self, fraction: float, message: str | None = None) -> None:
        """Record progress (0..1, clamped) and an optional message."""
        self._runner._update(self.task_id, progress=min(1.0, max(0.0, float(fraction))), message=message)


class TaskRunner:
    """Runs AsyncTaskTools in the background; at most ``max_concurrent`` at once, ``max_kept`` finished kept."""

    def __init__(self, tools: Iterable[AsyncTaskTool] = (), *, max_concurrent: int = 4, max_kept: int = 1000):
        self._tools: dict[str, AsyncTaskTool] = {}
        self._states: OrderedDict[str, TaskState] = OrderedDict()
        self._contexts: dict[str, TaskContext] = {}
        self._futures: dict[str, Any] = {}
        self._done: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._semaphore: asyncio.Semaphore | None = None
        self.max_concurrent = max_concurrent
        self.max_kept = max_kept
        for tool in tools:
            self.register(tool)

    @classmethod
    def from_container(cls, container: Any, **kwargs: Any) -> TaskRunner:
        """A runner for every AsyncTaskTool of a started ``ToolContainer``."""
        return cls([t for t in container.tools() if isinstance(t, AsyncTaskTool)], **kwargs)

    def register(self, tool: AsyncTaskTool) -> None:
        """Make ``tool`` startable under its ``task_type``; a taken type id is refused."""
        if not isinstance(tool, AsyncTaskTool):
            raise TaskError(f"{tool!r} is not an AsyncTaskTool")
        if tool.task_type in self._tools and self._tools[tool.task_type] is not tool:
            raise TaskError(f"task type {tool.task_type!r} is already registered", task_type=tool.task_type)
        self._tools[tool.task_type] = tool

    def task_types(self) -> dict[str, dict[str, Any]]:
        """Every task type id with the JSON schema of its input."""
        return {name: tool.input_model.model_json_schema() for name, tool in self._tools.items()}

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    self._semaphore = asyncio.Semaphore(self.max_concurrent)
                    ready.set()
                    loop.run_forever()

                self._thread = threading.Thread(target=serve, name="csillag-tasks", daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    def start(self, task_type: str, task_input: Mapping[str, Any] | BaseModel) -> str:
        """Validate the input against the type's model and queue the task; returns its id.

        Raises:
            TaskError: unknown task type (naming the known ones) or invalid input (naming the bad fields).
        """
        tool = self._tools.get(task_type)
        if tool is None:
            raise TaskError(f"unknown task type {task_type!r}; known: {sorted(self._tools)}", task_type=task_type)
        raw = task_input.model_dump() if isinstance(task_input, BaseModel) else task_input
        try:
            validated = tool.input_model.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '<input>'}: {e['msg']}" for e in exc.errors()[:5]
            )
            raise TaskError(f"invalid input for task type {task_type!r}: {problems}", task_type=task_type) from None
        task_id = uuid.uuid4().hex
        context = TaskContext(self, task_id)
        with self._lock:
            self._states[task_id] = TaskState(task_id, task_type, "queued", created_at=time.time())
            self._contexts[task_id] = context
            self._done[task_id] = threading.Event()
            self._trim()
        loop = self._ensure_loop()
        self._futures[task_id] = asyncio.run_coroutine_threadsafe(self._run(tool, validated, context), loop)
        return task_id

    async def _run(self, tool: AsyncTaskTool, task_input: Any, context: TaskContext) -> None:
        task_id = context.task_id
        try:
            assert self._semaphore is not None
            async with self._semaphore:
                if context.cancelled:
                    raise asyncio.CancelledError
                self._update(task_id, status="running", started_at=time.time())
                if inspect.iscoroutinefunction(tool.run):
                    result = await tool.run(task_input, context)
                else:
                    result = await asyncio.to_thread(tool.run, task_input, context)
            if isinstance(result, BaseModel):
                result = result.model_dump(mode="json")
            self._update(task_id, status="succeeded", progress=1.0, result=result, finished_at=time.time())
        except (asyncio.CancelledError, TaskCancelledError):
            self._update(task_id, status="cancelled", finished_at=time.time())
        except Exception as exc:  # noqa: BLE001 - a task's failure is its state, never the runner's crash
            logger.error("task %s (%s) failed: %r", task_id, tool.task_type, exc, exc_info=exc)
            self._update(task_id, status="failed", error=f"{type(exc).__name__}: {exc}", finished_at=time.time())
        finally:
            self._done[task_id].set()

    def _update(self, task_id: str, **changes: Any) -> None:
        with self._lock:
            state = self._states.get(task_id)
            if state is None or state.status in FINISHED:  # a cancelled task stays cancelled
                return
            self._states[task_id] = replace(state, **changes)

    def _trim(self) -> None:
        finished = [tid for tid, s in self._states.items() if s.status in FINISHED]
        for task_id in finished[: max(0, len(self._states) - self.max_kept)]:
            for store in (self._states, self._contexts, self._done, self._futures):
                store.pop(task_id, None)

    def get(self, task_id: str) -> TaskState:
        """The task's current state.

        Raises:
            TaskError: no such task id.
        """
        with self._lock:
            state = self._states.get(task_id)
        if state is None:
            raise TaskError(f"no task with id {task_id!r}", task_id=task_id)
        return state

    def cancel(self, task_id: str) -> TaskState:
        """Request cancellation; a queued or async task stops at once, a sync one when it next checks."""
        state = self.get(task_id)
        if state.status in FINISHED:
            return state
        self._contexts[task_id]._cancelled.set()
        self._update(task_id, status="cancelled", finished_at=time.time())
        future = self._futures.get(task_id)
        if future is not None:
            future.cancel()
        self._done[task_id].set()  # the state is final now, even if a sync run() is still winding down
        return self.get(task_id)

    def wait(self, task_id: str, timeout: float | None = None) -> TaskState:
        """Block until the task finished (or ``timeout`` seconds); returns its state."""
        self.get(task_id)
        event = self._done.get(task_id)
        if event is not None:
            event.wait(timeout)
        return self.get(task_id)

    def shutdown(self) -> None:
        """Cancel what runs and stop the runner's loop."""
        for task_id, state in list(self._states.items()):
            if state.status not in FINISHED:
                self.cancel(task_id)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=5)
            self._loop = None
