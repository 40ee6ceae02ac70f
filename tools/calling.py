"""How the chat engine calls one method of a tool: under a time limit counted from the call's start, sync methods on
a bounded pool of threads of their own, and a final callback that speaks for that tool alone.

Tools are other people's code. A sync tool that overruns its limit keeps its thread until it returns (Python cannot
stop a thread), so a pool shared with everything else would fill with them and the next request's quick tools would
spend their whole limit waiting in the queue. Here the limit starts when the method starts; the wait for a free
thread has a limit of its own, so a pool taken by runaway tools makes a tool fail with a message that says so instead
of hanging the request.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tools.deadlines import GroupDeadlines
from tools.errors import ToolError
from tools.streaming import FinalCallback, OpenAIResponse

logger = logging.getLogger(__name__)


class ToolThreadsBusy(ToolError):
    """Raised when a sync tool method waited longer than its queue limit for a free thread of the tool pool."""


class ToolThreads:
    """The bounded thread pool that runs the sync tool methods of one chat platform (one per platform, shared by its
    requests); threads are started on demand and named ``csillag-tool``."""

    def __init__(self, max_threads: int = 32, queue_timeout_s: float = 30.0) -> None:
        self.max_threads = max_threads
        self.queue_timeout_s = queue_timeout_s
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    @property
    def pool(self) -> ThreadPoolExecutor:
        """The executor, created on first use."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.max_threads, thread_name_prefix="csillag-tool")
            return self._pool

    def shutdown(self) -> None:
        """Stop taking work; threads still running a tool finish it in the background."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


@functools.lru_cache(maxsize=1024)
def _is_async(function: Callable[..., Any]) -> bool:
    """Whether a tool method is a coroutine function; asked per call, so remembered per function."""
    return inspect.iscoroutinefunction(function)


async def call_tool_method(
    fn: Callable[..., Any],
    *args: Any,
    timeout_s: float,
    threads: ToolThreads | None = None,
    deadlines: GroupDeadlines | None = None,
) -> Any:
    """Await ``fn(*args)`` if it is async, else run it on ``threads``; either way under ``timeout_s`` from its start.

    ``deadlines``: the limits of the group this call was started with (an async method's start is its group's).

    Raises:
        TimeoutError: the method ran longer than ``timeout_s`` (a sync one keeps its thread; its result is dropped).
        ToolThreadsBusy: a sync method found no free thread within the pool's queue limit (it never started).
    """
    if _is_async(getattr(fn, "__func__", fn)):
        if deadlines is not None:
            return await deadlines.run(fn(*args), timeout_s)
        async with asyncio.timeout(timeout_s):
            return await fn(*args)
    threads = threads or _DEFAULT_THREADS
    loop = asyncio.get_running_loop()
    started = asyncio.Event()

    def run() -> Any:
        loop.call_soon_threadsafe(started.set)
        return fn(*args)

    context = contextvars.copy_context()
    future = loop.run_in_executor(threads.pool, context.run, run)
    try:
        async with asyncio.timeout(threads.queue_timeout_s):
            await started.wait()
    except BaseException as exc:
        future.cancel()  # it has not started (or the request is gone): it never will
        if not isinstance(exc, TimeoutError):
            raise
        raise ToolThreadsBusy(
            f"no free tool thread within {threads.queue_timeout_s:g}s (all {threads.max_threads} busy: tools that "
            "overran their time limit still hold them)"
        ) from None
    async with asyncio.timeout(timeout_s):
        result = await future
    if inspect.isawaitable(result):  # a sync default delegating to an async implementation
        async with asyncio.timeout(timeout_s):
            result = await result
    return result


# For callers outside a platform (tests, the explicit activation of one tool); a platform passes its own.
_DEFAULT_THREADS = ToolThreads()


class ToolCallback:
    """The final callback one tool is handed: its answer answers the request; its error is that tool's failure.

    A tool that calls ``on_success`` answers the user itself, and the request ends with that answer. A tool that
    calls ``on_error`` has failed like one that raised: the error is kept here for the orchestrator to record, the
    tool's result is dropped and the request goes on, so one tool cannot throw away what its peers found.
    """

    def __init__(self, request_callback: FinalCallback) -> None:
        self._request = request_callback
        self.error: BaseException | None = None

    def on_success(self, response: OpenAIResponse) -> None:
        """The tool's own answer to the request."""
        self._request.on_success(response)

    def on_error(self, error: BaseException) -> None:
        """The tool reports its failure (the first report is kept)."""
        if self.error is None:
            self.error = error
