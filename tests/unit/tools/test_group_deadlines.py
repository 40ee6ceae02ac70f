"""The shared time limits of a group of tools behave as ``asyncio.timeout`` does, one timer per distinct limit."""

from __future__ import annotations

import asyncio
import time

import pytest

from tools.deadlines import GroupDeadlines


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
