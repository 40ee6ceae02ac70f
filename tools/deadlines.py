"""Running the tools of one group together, and their time limits: one timer per distinct limit, not one per tool.

A priority group starts its tools in one loop iteration, so each tool's limit counted from its own start is the
group's start plus that limit. ``asyncio.timeout`` would arm a timer per tool (a heap entry pushed and cancelled per
call, about a quarter of the orchestrator's own time per request); here the tools sharing a limit share its timer,
and a timer is armed only once a tool actually waits: a tool that returns without suspending cannot be interrupted
by any timer, so it needs none. The semantics are ``asyncio.timeout``'s: on expiry the task is cancelled, and the
cancellation leaves ``GroupDeadlines.run`` as ``TimeoutError`` unless somebody else cancelled the task too (the
request going away).

``run_together`` is ``asyncio.gather`` for a group's tools with fewer loop iterations: every tool still runs in a task
of its own (what it sees as the current task, its context variables, its cancellation stay its own), but the caller
looks at them after one iteration, when tools that had nothing to wait for are already done, instead of waiting for
each task's completion callbacks to be scheduled and run.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Awaitable, Coroutine, Generator, Sequence
from typing import Any, TypeVar, cast

T = TypeVar("T")


class _SharedTimer:
    """One deadline and the tasks currently running under it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        self._loop = loop
        self.when = when
        self._handle: asyncio.TimerHandle | None = None
        self._inside: dict[asyncio.Task[object], int] = {}  # task -> its cancelling() count on entry
        self._expired: set[asyncio.Task[object]] = set()
        self._fired = False

    def enter(self, task: asyncio.Task[object]) -> None:
        self._inside[task] = task.cancelling()
        if self._fired or (self._handle is None and self._loop.time() >= self.when):
            # already past: expire on the next iteration, as asyncio.timeout does
            self._loop.call_soon(self._expire, task)
        elif self._handle is None:
            self._handle = self._loop.call_at(self.when, self._fire)

    def leave(self, task: asyncio.Task[object]) -> bool:
        """Take ``task`` out; True when this timer cancelled it and nobody else did (the caller then times out)."""
        cancelling = self._inside.pop(task, None)
        if cancelling is None or task not in self._expired:
            return False
        self._expired.discard(task)
        return task.uncancel() <= cancelling

    def _fire(self) -> None:
        self._handle, self._fired = None, True
        for task in list(self._inside):
            self._expire(task)

    def _expire(self, task: asyncio.Task[object]) -> None:
        if task in self._inside and task not in self._expired and not task.done():
            self._expired.add(task)
            task.cancel()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


class GroupDeadlines:
    """The time limits of the tools of one group, counted from the moment the group starts.

    Create it in the loop right before starting the group's tools; ``close()`` it when the group is done.
    """

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._start = self._loop.time()
        self._timers: dict[float, _SharedTimer] = {}

    async def run(self, awaitable: Awaitable[T], timeout_s: float) -> T:
        """Await ``awaitable`` in the current task, cancelled ``timeout_s`` after the group's start.

        Raises:
            TimeoutError: the limit passed first (a cancellation of the task by anyone else stays a cancellation).
        """
        steps = awaitable.__await__()
        try:
            waiting_for = steps.send(None)
        except StopIteration as done:  # finished without waiting: no timer could have stopped it
            return cast(T, done.value)
        timer = self._timers.get(timeout_s)
        if timer is None:
            timer = self._timers[timeout_s] = _SharedTimer(self._loop, self._start + timeout_s)
        task = asyncio.current_task()
        if task is None:
            steps.close()
            raise RuntimeError("a tool time limit must be awaited inside a task")
        timer.enter(task)
        try:
            return cast(T, await _resume(steps, waiting_for))
        except asyncio.CancelledError as exc:
            if timer.leave(task):
                raise TimeoutError from exc
            raise
        finally:
            timer.leave(task)  # nothing left to do when the branch above has left

    def close(self) -> None:
        """Disarm the timers (every tool of the group has finished)."""
        for timer in self._timers.values():
            timer.close()


@types.coroutine
def _resume(steps: Generator[Any, None, Any], waiting_for: Any) -> Generator[Any, None, Any]:
    """Go on awaiting ``steps`` whose first step has run and is waiting for ``waiting_for`` (what it yielded)."""
    while True:
        try:
            yield waiting_for
        except BaseException as exc:  # noqa: BLE001 - what the task throws in (a cancellation) is the tool's to handle
            try:
                waiting_for = steps.throw(exc)
            except StopIteration as done:
                return done.value
        else:
            return (yield from steps)


async def run_together(runs: Sequence[Coroutine[Any, Any, T]]) -> list[T]:
    """The results of ``runs``, run concurrently, in their order (``asyncio.gather``'s semantics, fewer iterations).

    One coroutine runs in the caller's task. Several run in a task each; the caller wakes up after their first steps,
    and only if some are still waiting does it gather those. Cancelling the caller cancels every task of the group.
    """
    if len(runs) == 1:
        return [await runs[0]]
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(run) for run in runs]
    try:
        await asyncio.sleep(0)  # the tasks' first steps are already queued: they run before this task resumes
        waiting = [task for task in tasks if not task.done()]
        if waiting:
            await asyncio.gather(*waiting)
    except asyncio.CancelledError:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # as gather does: the group ends before its caller
        raise
    try:
        return [task.result() for task in tasks]
    except BaseException:
        for task in tasks:  # as gather does: every failure counts as seen, only the first is raised
            if not task.cancelled():
                task.exception()
        raise
