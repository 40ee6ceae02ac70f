"""The shared time limits of a group of tools behave as ``asyncio.timeout`` does, one timer per distinct limit."""

from __future__ import annotations

import asyncio
import contextvars
import time

import pytest

from tools.deadlines import GroupDeadlines, run_together


async def _sleep_then(seconds: float, value: str) -> str:
    await asyncio.sleep(seconds)
    return value


def test_tools_of_one_limit_share_a_timer_and_only_the_slow_one_times_out():
    async def scenario() -> list[object]:
        deadlines = GroupDeadlines()
        quick = asyncio.ensure_future(deadlines.run(_sleep_then(0.01, "quick"), 0.1))
        slow = asyncio.ensure_future(deadlines.run(_sleep_then(5, "slow"), 0.1))
        other_limit = asyncio.ensure_future(deadlines.run(_sleep_then(0.15, "longer limit"), 1.0))
        results = await asyncio.gather(quick, slow, other_limit, return_exceptions=True)
        deadlines.close()
        return results

    started = time.perf_counter()
    quick, slow, other = asyncio.run(scenario())
    assert quick == "quick" and other == "longer limit"
    assert isinstance(slow, TimeoutError)
    assert time.perf_counter() - started < 1.0


def test_the_limit_counts_from_the_group_start_not_from_the_call():
    async def scenario() -> None:
        deadlines = GroupDeadlines()
        await asyncio.sleep(0.06)  # the group started 60 ms ago; a 50 ms limit has already passed
        await deadlines.run(_sleep_then(1, "late"), 0.05)

    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(scenario(), 0.5))


def test_a_cancellation_by_someone_else_stays_a_cancellation():
    async def scenario() -> None:
        deadlines = GroupDeadlines()
        task = asyncio.ensure_future(deadlines.run(_sleep_then(5, "never"), 10))
        await asyncio.sleep(0.01)
        task.cancel()  # the request going away, not the limit
        try:
            await task
        finally:
            deadlines.close()

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(scenario())


def test_a_tool_that_swallows_the_cancellation_leaves_its_task_usable():
    async def stubborn() -> str:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            return "cleaned up"
        return "finished"

    async def scenario() -> tuple[str, str]:
        deadlines = GroupDeadlines()
        value = await deadlines.run(stubborn(), 0.02)
        deadlines.close()
        after = await _sleep_then(0.01, "next await works")  # no cancellation left pending on the task
        return value, after

    assert asyncio.run(scenario()) == ("cleaned up", "next await works")


def test_a_task_that_finished_its_call_is_not_cancelled_when_the_limit_passes_later():
    async def scenario() -> str:
        deadlines = GroupDeadlines()
        value = await deadlines.run(_sleep_then(0, "done"), 0.03)
        await asyncio.sleep(0.06)  # the timer fires meanwhile: this task has left it and must not be cancelled
        deadlines.close()
        return value

    assert asyncio.run(scenario()) == "done"


# -- a tool that does not wait needs no timer; a group's tools run together in fewer loop iterations ---------------
async def _returns(value: str) -> str:
    return value


def test_a_call_that_returns_without_waiting_arms_no_timer_and_one_that_waits_arms_one():
    async def scenario() -> tuple[int, int, str, str]:
        loop = asyncio.get_running_loop()
        armed: list[float] = []
        call_at = loop.call_at

        def counting_call_at(when, callback, *args, context=None):
            armed.append(when)
            return call_at(when, callback, *args, context=context)

        loop.call_at = counting_call_at  # type: ignore[method-assign]
        deadlines = GroupDeadlines()
        at_once = await deadlines.run(_returns("at once"), 0.5)
        after_quick = len(armed)
        waited = await deadlines.run(_sleep_then(0.01, "waited"), 0.5)
        deadlines.close()
        return after_quick, len(armed), at_once, waited

    after_quick, after_waiting, at_once, waited = asyncio.run(scenario())
    assert (at_once, waited) == ("at once", "waited")
    assert after_quick == 0
    assert after_waiting >= 1  # the shared timer (asyncio.sleep arms its own too)


def test_the_limit_still_counts_from_the_group_start_when_the_first_step_was_slow():
    async def slow_first_step() -> str:
        time.sleep(0.06)  # runs before the tool first waits: past the 50 ms limit when it does
        await asyncio.sleep(1)
        return "late"

    async def scenario() -> str:
        deadlines = GroupDeadlines()
        try:
            return await deadlines.run(slow_first_step(), 0.05)
        finally:
            deadlines.close()

    started = time.perf_counter()
    with pytest.raises(TimeoutError):
        asyncio.run(scenario())
    assert time.perf_counter() - started < 0.5


def _ticking() -> tuple[list[int], asyncio.Task[None]]:
    ticks = [0]

    async def tick() -> None:
        while True:
            await asyncio.sleep(0)
            ticks[0] += 1

    return ticks, asyncio.ensure_future(tick())


def test_run_together_finishes_a_group_that_does_not_wait_in_one_loop_iteration():
    async def scenario() -> tuple[list[str], int]:
        ticks, ticker = _ticking()
        await asyncio.sleep(0)  # the ticker is running
        before = ticks[0]
        results = await run_together([_returns(name) for name in ("a", "b", "c", "d")])
        ticker.cancel()
        return results, ticks[0] - before

    results, iterations = asyncio.run(scenario())
    assert results == ["a", "b", "c", "d"]
    assert iterations == 1  # asyncio.gather takes three: the tasks, their done callbacks, the waiter's wake-up


def test_run_together_gives_each_coroutine_its_own_task_and_context():
    variable: contextvars.ContextVar[str] = contextvars.ContextVar("variable", default="unset")

    async def record(name: str, wait: float) -> tuple[asyncio.Task[object] | None, str, str]:
        seen_before = variable.get()
        variable.set(name)
        await asyncio.sleep(wait)
        return asyncio.current_task(), seen_before, variable.get()

    async def scenario() -> tuple[asyncio.Task[object] | None, list[tuple[asyncio.Task[object] | None, str, str]], str]:
        variable.set("caller")
        results = await run_together([record("a", 0), record("b", 0.01), record("c", 0.02)])
        return asyncio.current_task(), results, variable.get()

    caller, results, caller_sees = asyncio.run(scenario())
    tasks = [task for task, _, _ in results]
    assert caller not in tasks and len(set(tasks)) == 3
    assert [(before, after) for _, before, after in results] == [("caller", "a"), ("caller", "b"), ("caller", "c")]
    assert caller_sees == "caller"


def test_run_together_waits_for_members_that_wait_and_raises_the_first_failure_as_gather_does():
    async def fails(message: str, wait: float) -> str:
        await asyncio.sleep(wait)
        raise ValueError(message)

    assert asyncio.run(run_together([_sleep_then(0.02, "slow"), _returns("quick")])) == ["slow", "quick"]
    with pytest.raises(ValueError, match="fails first"):
        asyncio.run(run_together([_sleep_then(0.02, "slow"), fails("fails later", 0.01), fails("fails first", 0)]))


@pytest.mark.parametrize("cancel_after_s", [0, 0.02], ids=["before-the-first-look", "while-gathering"])
def test_cancelling_the_caller_of_run_together_cancels_every_member_before_it_returns(cancel_after_s):
    cancelled: list[str] = []

    async def waits(name: str) -> str:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            await asyncio.sleep(0.01)  # cleaning up takes a while
            cancelled.append(name)
            raise
        return name

    async def scenario() -> list[str]:
        group = asyncio.ensure_future(run_together([waits("a"), waits("b"), _returns("c")]))
        await asyncio.sleep(cancel_after_s)
        group.cancel()
        with pytest.raises(asyncio.CancelledError):
            await group
        return list(cancelled)  # what had finished when the caller heard of the cancellation

    started = time.perf_counter()
    assert sorted(asyncio.run(scenario())) == ["a", "b"]
    assert time.perf_counter() - started < 1
