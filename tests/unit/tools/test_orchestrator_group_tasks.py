"""A group's tools run in a task each, a group of tools that do not wait costs the request one loop iteration, and a
tool's group follows its own priority however it joined the plan."""

from __future__ import annotations

import asyncio
import contextvars

from tests.unit.tools.tooltest_helpers import make_platform
from tools.contracts import ContextConsumerTool, OrchestratorActivatedTool, ToolDependent
from tools.documents import TextAnswer, ToolExecutionResult
from tools.orchestrator import AbstractOrchestratorTool
from tools.plugins import Injected
from tools.request import ChatRequest

SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("SEEN", default="nobody")
READ: dict[str, str] = {}


def guaranteed(name: str, text: str) -> ToolExecutionResult:
    return ToolExecutionResult.as_guaranteed_context(name, TextAnswer.as_set(text))


class Quick(OrchestratorActivatedTool, abstract=True):
    priority = 1

    def get_priority(self) -> int:
        return self.priority

    async def execute_with_result(self, *args):
        READ[self.name] = SEEN.get()
        SEEN.set(self.name)
        return guaranteed(self.name, f"{self.name} answered.")


class QuickA(Quick):
    name = "quick_a"


class QuickB(Quick):
    name = "quick_b"


class LaterC(Quick):
    name = "later_c"
    priority = 2


class LaterD(Quick):
    name = "later_d"
    priority = 2


class OwnTimeout(Quick):
    """Enters asyncio.timeout before it first waits: the timeout must belong to this tool's task alone."""

    name = "own_timeout"

    async def execute_with_result(self, *args):
        try:
            async with asyncio.timeout(0.01):
                await asyncio.sleep(1)
        except TimeoutError:
            return guaranteed(self.name, "The search gave up after ten milliseconds.")
        return guaranteed(self.name, "The search finished.")


class SlowPeer(Quick):
    name = "slow_peer"

    async def execute_with_result(self, *args):
        await asyncio.sleep(0.05)
        return guaranteed(self.name, "The slow peer finished its search.")


def test_a_group_of_tools_that_do_not_wait_costs_the_request_one_loop_iteration():
    platform = make_platform(QuickA, QuickB, LaterC, LaterD, rag_fallback=False).start()

    async def scenario() -> tuple[int, list[str]]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0)
                ticks += 1

        ticker = asyncio.ensure_future(tick())
        await asyncio.sleep(0)
        before = ticks
        response = await platform.handle(ChatRequest("Who answered?"))
        ticker.cancel()
        return ticks - before, response.tools_run

    iterations, ran = asyncio.run(scenario())
    assert sorted(ran[:2]) == ["quick_a", "quick_b"] and sorted(ran[2:]) == ["later_c", "later_d"]
    assert iterations == 2  # one per group; through asyncio.gather it was three per group


def test_tools_of_one_group_keep_their_own_task_context_and_timeouts():
    READ.clear()
    platform = make_platform(
        QuickA, QuickB, OwnTimeout, SlowPeer, LaterC, LaterD, rag_fallback=False, answer_max_quotes=10
    ).start()

    async def scenario():
        SEEN.set("the request")
        response = await platform.handle(ChatRequest("Who answered?"))
        return response, SEEN.get()

    response, request_sees = asyncio.run(scenario())
    assert response.failures == {}
    assert "The search gave up after ten milliseconds." in response.content
    assert "The slow peer finished its search." in response.content
    # every tool started from the request's context, not from a peer's or an earlier group's
    assert READ == dict.fromkeys(["quick_a", "quick_b", "later_c", "later_d"], "the request")
    assert request_sees == "the request"


# -- a required tool from outside the orchestrator's list keeps its own priority (R-PRIO-1, R-DEP-2) ---------------
class Early(Quick):
    name = "early"
    priority = 0


class NeedsEarly(ToolDependent):
    name = "needs_early"
    early: Injected[Early]

    def get_priority(self) -> int:
        return 5

    def get_required_tools(self):
        return [self.early]

    async def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        return guaranteed(self.name, "The dependant used the early context.")


class ReaderOfEarly(ContextConsumerTool):
    name = "reader_of_early"

    def get_priority(self) -> int:
        return 1

    async def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        READ[self.name] = ",".join(sorted(prior))
        return guaranteed(self.name, "The reader read what came before.")


class ListedOnly(AbstractOrchestratorTool):
    name = "listed_only"
    tool_names = ("needs_early", "reader_of_early")


def test_r_prio_1_a_required_tool_outside_the_orchestrators_list_runs_in_its_own_priority_group():
    READ.clear()
    platform = make_platform(ListedOnly, Early, NeedsEarly, ReaderOfEarly, rag_fallback=False).start()
    response = asyncio.run(platform.handle(ChatRequest("What came first?")))
    assert response.tools_run == ["early", "reader_of_early", "needs_early"]
    assert READ["reader_of_early"] == "1:early"  # priority 0 ran in a group before the reader's priority 1
