"""The orchestrator isolates every way a tool can fail, and a tool's time limit counts from its start.

Each test failed on the orchestrator before this change (a rule-by-rule probe found them): the request ended, or
lost a peer's context, or a quick tool failed behind slow ones.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from tests.unit.tools.tooltest_helpers import SelectAll, make_platform
from tools.contracts import (
    PRIORITY_MAX,
    ChatbotTool,
    ClarifiableTool,
    ContextConsumerTool,
    OrchestratorActivatedTool,
    ToolDependent,
)
from tools.documents import InternalContextDocument, TextAnswer, ToolExecutionResult
from tools.plugins import Injected
from tools.request import ChatRequest

ANSWER = "The castle of Eger was besieged in 1552."
QUICK_ANSWER = "Dobó István held the castle of Eger."
SEEN: dict[str, object] = {}


@pytest.fixture(autouse=True)
def _clear():
    SEEN.clear()
    Overrunning.release.clear()
    Quick.enabled = True
    yield
    Overrunning.release.set()  # let the overrunning threads go, whatever the test did


def guaranteed(name: str, *texts: str) -> ToolExecutionResult:
    return ToolExecutionResult.as_guaranteed_context(name, TextAnswer.as_set(*texts))


class Activated(OrchestratorActivatedTool, abstract=True):
    priority = 1

    def get_priority(self) -> int:
        return self.priority


class Peer(Activated):
    name = "peer"

    async def execute_with_result(self, *args):
        await asyncio.sleep(0.01)
        return guaranteed(self.name, ANSWER)


def answer(platform, prompt: str = "When was Eger besieged?"):
    return asyncio.run(platform.handle(ChatRequest(prompt)))


# -- BaseExceptions a tool raises are its own failure -------------------------------------------------------------
class CancelsItself(Activated):
    name = "cancels_itself"

    async def execute_with_result(self, *args):
        raise asyncio.CancelledError("a tool's own cancellation")


class ExitsAsync(Activated):
    name = "exits_async"

    async def execute_with_result(self, *args):
        raise SystemExit(3)


class ExitsInThread(Activated):
    name = "exits_in_thread"

    def execute_with_result(self, *args):
        raise SystemExit(4)


@pytest.mark.parametrize("tool", [CancelsItself, ExitsAsync, ExitsInThread])
def test_issue_43_a_tool_raising_cancelled_error_or_system_exit_is_isolated(tool):
    response = answer(make_platform(tool, Peer))
    assert ANSWER in response.content
    assert set(response.failures) == {f"1:{tool.name}"}
    assert "peer" in response.tools_run


class Sleeper(Activated):
    name = "sleeper"

    async def execute_with_result(self, *args):
        SEEN["started"] = True
        await asyncio.sleep(5)
        return guaranteed(self.name, "never")


def test_issue_43_cancelling_the_request_itself_still_cancels_it():
    platform = make_platform(Sleeper)

    async def cancel_midway():
        task = asyncio.ensure_future(platform.handle(ChatRequest("q")))
        while "started" not in SEEN:
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.perf_counter()

    started = time.perf_counter()
    assert asyncio.run(cancel_midway()) - started < 2  # did not sit out the tool's 5 s as an "isolated failure"


# -- contract methods that raise ----------------------------------------------------------------------------------
class Upstream(Activated):
    name, priority = "upstream", 0

    def execute_with_result(self, *args):
        SEEN["upstream ran"] = True
        return guaranteed(self.name, "upstream text")


class BrokenRequirements(ToolDependent):
    name = "broken_requirements"
    upstream: Injected[Upstream]
    broken = False  # set after start-up: the container asks too, and this is about the request

    def get_priority(self) -> int:
        return 2

    def get_required_tools(self):
        if BrokenRequirements.broken:
            raise RuntimeError("requirement registry unavailable")
        return [self.upstream]

    def execute_with_required_context(self, *args):
        SEEN["broken ran"] = True
        return guaranteed(self.name, "should not run")


def test_issue_43_get_required_tools_raising_fails_that_tool_only():
    platform = make_platform(BrokenRequirements, Upstream, Peer)
    platform.container.start()
    BrokenRequirements.broken = True
    try:
        response = answer(platform)
    finally:
        BrokenRequirements.broken = False
    assert ANSWER in response.content
    assert "requirement registry unavailable" in response.failures["1:broken_requirements"]
    assert "broken ran" not in SEEN


class BrokenInstruction(ChatbotTool):
    name = "broken_instruction"

    def get_executable_instruction(self) -> str:
        raise ValueError("no instruction today")

    def execute_with_result(self, *args):
        SEEN["broken instruction ran"] = True
        return guaranteed(self.name, "should not run")


class Routed(ChatbotTool):
    name = "routed"
    instruction = "Answers questions about sieges."

    def execute_with_result(self, *args):
        return guaranteed(self.name, ANSWER)


def test_issue_43_get_executable_instruction_raising_fails_that_tool_only():
    router = SelectAll()
    response = answer(make_platform(BrokenInstruction, Routed, router=router))
    assert ANSWER in response.content
    assert "no instruction today" in response.failures["1:broken_instruction"]
    assert router.offered == [["routed"]] and "broken instruction ran" not in SEEN


# -- time limits count from the tool's start ----------------------------------------------------------------------
class Overrunning(Activated):
    """A sync tool far over its limit: its thread stays busy until the test releases it."""

    name = "overrunning"
    timeout_s = 0.05
    release = threading.Event()

    def execute_with_result(self, *args):
        Overrunning.release.wait(3)
        return guaranteed(self.name, "too late")


class Quick(ChatbotTool):
    """A routed sync tool well within its limit; ``enabled`` off makes it ineligible for a request."""

    name = "quick"
    instruction = "Answers quickly."
    timeout_s = 0.3
    enabled = True

    def is_eligible(self, request) -> bool:
        return Quick.enabled

    def execute_with_result(self, *args):
        time.sleep(0.01)
        return guaranteed(self.name, QUICK_ANSWER)


def _overrunners(count: int) -> list[type]:
    return [type(f"Overrunning{i}", (Overrunning,), {"name": f"overrunning_{i}", "priority": 0}) for i in range(count)]


def test_issue_43_overrunning_sync_tools_do_not_starve_the_next_requests_quick_tool():
    # Eight runaway threads outlast the first request; the next request's quick tool must still get its own 0.3 s.
    # One event loop, as in the API server: the runaway threads outlive the first request.
    Quick.enabled = False
    platform = make_platform(*_overrunners(8), Peer, Quick)

    async def two_requests():
        first = await platform.handle(ChatRequest("q"))
        Quick.enabled = True
        return first, await platform.handle(ChatRequest("q"))

    first, second = asyncio.run(two_requests())
    assert len(first.failures) == 8 and "quick" not in first.tools_run
    assert QUICK_ANSWER in second.content and "1:quick" not in second.failures


def test_issue_43_a_pool_held_by_runaway_tools_fails_the_waiting_tool_with_a_clear_message():
    platform = make_platform(*_overrunners(2), Quick, Peer, tool_threads=2, tool_queue_timeout_s=0.2)
    started = time.perf_counter()
    response = answer(platform)
    assert time.perf_counter() - started < 2
    assert "no free tool thread within 0.2s" in response.failures["1:quick"]


def test_issue_43_a_quick_tool_waits_for_a_thread_but_its_limit_starts_when_it_does():
    platform = make_platform(*_overrunners(2), Quick, tool_threads=2)

    def release_soon():
        time.sleep(0.5)  # longer than the quick tool's whole limit
        Overrunning.release.set()

    threading.Thread(target=release_soon, daemon=True).start()
    response = answer(platform)
    assert QUICK_ANSWER in response.content and "1:quick" not in response.failures


# -- the fallback that requires a tool and consumes the context sees what is addressed to it -----------------------
class InternalSource(Activated):
    name = "internal_source"

    def execute_with_result(self, *args):
        docs = InternalContextDocument.as_set('{"for": "fallback"}') | TextAnswer.as_set("public background")
        return ToolExecutionResult.as_optional_context(self.name, docs)  # optional: the fallback still runs


class DependentConsumerFallback(ToolDependent, ContextConsumerTool):
    name = "dependent_consumer_fallback"
    source: Injected[InternalSource]

    def get_priority(self) -> int:
        return PRIORITY_MAX

    def get_required_tools(self):
        return [self.source]

    def execute_with_required_context(self, *args):
        raise AssertionError("a consumer is always called with the prior context (R-CC-1)")

    def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        SEEN["internal"] = [d.text for contexts in prior.values() for c in contexts for d in c.documents
                            if d.is_internal]
        return guaranteed(self.name, ANSWER)


def test_issue_43_a_fallback_dependent_consumer_keeps_its_required_tools_internal_context():
    response = answer(make_platform(DependentConsumerFallback, InternalSource))
    assert SEEN["internal"] == ['{"for": "fallback"}']
    assert ANSWER in response.content and '"for"' not in response.content  # still never in the answer (R-INT-2)


# -- question turns and final-callback errors ---------------------------------------------------------------------
class Crashing(Activated):
    name, priority = "crashing", 0

    def execute_with_result(self, *args):
        raise RuntimeError("graph store down")


class Asker(ClarifiableTool):
    name = "asker"

    def execute_with_result(self, *args):
        return ToolExecutionResult.as_clarification(self.name, "Which castle?")

    def execute_with_clarification(self, session, *args):
        return guaranteed(self.name, ANSWER)


def test_issue_43_a_question_turn_reports_the_failures_so_far():
    response = answer(make_platform(Crashing, Asker))
    assert response.finish_reason == "clarification"
    assert "graph store down" in response.failures["1:crashing"]


class ReportsError(Activated):
    name = "reports_error"

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        callback.on_error(RuntimeError("index unreadable"))
        return guaranteed(self.name, "half-built text")


def test_issue_43_a_tool_calling_on_error_fails_itself_and_keeps_its_peers_context():
    response = answer(make_platform(ReportsError, Peer))
    assert ANSWER in response.content and "half-built" not in response.content
    assert "index unreadable" in response.failures["1:reports_error"]
