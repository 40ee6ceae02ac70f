from __future__ import annotations

import asyncio

import pytest

from tests.unit.tools.tooltest_helpers import ask, make_platform
from tools.contracts import AgentCoordinator, ChatbotTool, ContextConsumerTool, OrchestratorActivatedTool, SubTask
from tools.coordination import number_steps
from tools.documents import TextAnswer, ToolExecutionResult
from tools.errors import ToolExecutionError
from tools.plugins import Injected

SEEN: dict[str, object] = {}
LOG: list[str] = []


@pytest.fixture(autouse=True)
def _clear():
    SEEN.clear()
    LOG.clear()


class Lookup(OrchestratorActivatedTool):
    name = "lookup"
    instruction = "looks a name up"

    def get_priority(self) -> int:
        return 5

    async def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        LOG.append(f"lookup:{prompt}:start")
        if prompt.startswith("slow"):
            SEEN.setdefault("slow_started", asyncio.Event()).set()
            await asyncio.wait_for(SEEN.setdefault("fast_started", asyncio.Event()).wait(), 2)
        if prompt.startswith("fast"):
            SEEN.setdefault("fast_started", asyncio.Event()).set()
            await asyncio.wait_for(SEEN.setdefault("slow_started", asyncio.Event()).wait(), 2)
        LOG.append(f"lookup:{prompt}:end")
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(f"found {prompt}"))


class Combine(ContextConsumerTool):
    name = "combine"

    def get_priority(self) -> int:
        return 5

    def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        SEEN.setdefault("combine_prior", []).append(sorted(prior))
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(f"combined {len(prior)}"))


class Planner(AgentCoordinator):
    name = "planner"

    def get_priority(self) -> int:
        return 1

    def decompose(self, systems, prompt, lang, words, prior):
        return [
            SubTask("lookup", "Dobó"),
            SubTask(
                "combine",
                "combine both",
                subtasks=(SubTask("lookup", "slow Gergely"), SubTask("lookup", "fast Éva")),
                parallel=True,
            ),
            SubTask("missing_tool", "x"),
            SubTask("combine", "final"),
        ]


class OnlyPlanner:
    async def select(self, prompt, candidates, *, important_words=()):
        return [c.name for c in candidates if c.name in ("planner", "greedy")]


def test_r_ac_1_coordinator_plan_runs_each_step_with_its_named_tool_and_numbering():
    response = ask(make_platform(Planner, Lookup, Combine, router=OnlyPlanner()))
    # 1.2's children run before 1.2 itself and see 1.1; the final step sees everything before it.
    assert SEEN["combine_prior"] == [
        ["1.1:lookup", "1.2.1:lookup", "1.2.2:lookup"],
        ["1.1:lookup", "1.2.1:lookup", "1.2.2:lookup", "1.2:combine"],
    ]
    assert LOG[:2] == ["lookup:Dobó:start", "lookup:Dobó:end"]  # top-level steps in order
    assert "1.3:missing_tool" in response.failures  # an unknown tool fails alone
    assert "found Dobó" in response.content and "combined 4" in response.content


def test_r_ac_2_parallel_sub_steps_run_concurrently():
    response = ask(make_platform(Planner, Lookup, Combine, router=OnlyPlanner()))
    # slow waits for fast and fast for slow: both completing proves they overlapped.
    assert "lookup:slow Gergely:end" in LOG and "lookup:fast Éva:end" in LOG
    assert not any(key.endswith(":lookup") for key in response.failures)


def test_r_ac_2_task_numbering_is_hierarchical():
    steps = [SubTask("a", "p", subtasks=(SubTask("b", "q"), SubTask("c", "r", subtasks=(SubTask("d", "s"),)))),
             SubTask("e", "t")]
    assert [(no, s.tool) for no, s in number_steps(steps, "1")] == [
        ("1.1", "a"), ("1.1.1", "b"), ("1.1.2", "c"), ("1.1.2.1", "d"), ("1.2", "e")]


class Translator(ChatbotTool):
    name = "translator"

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(prompt.upper()))


class Narrator(OrchestratorActivatedTool):
    """Calls another tool directly in code: the channel that bypasses the orchestrator (R-AC-2)."""

    name = "narrator"
    translator: Injected[Translator]

    def get_priority(self) -> int:
        return 2

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        direct = self.translator.execute_with_result(systems, "eger", lang, words, emitter, callback)
        text = next(iter(direct.documents)).text
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(f"narrated {text}"))


class NoRouting:
    async def select(self, prompt, candidates, *, important_words=()):
        return [c.name for c in candidates if c.name == "narrator"]


def test_r_ac_2_tools_may_call_each_other_directly():
    response = ask(make_platform(Narrator, Translator, router=NoRouting()))
    assert response.tools_run == ["narrator"]  # the orchestrator only ran the narrator
    assert "narrated EGER" in response.content


class Greedy(AgentCoordinator):
    name = "greedy"

    def get_priority(self) -> int:
        return 1

    def decompose(self, *args):
        return [SubTask("lookup", f"step {i}") for i in range(10)]


def test_coordination_plan_larger_than_the_limit_fails_the_coordinator_only():
    with pytest.raises(ToolExecutionError) as info:
        ask(make_platform(Greedy, Lookup, router=OnlyPlanner(), max_subtasks=3))
    assert "at most 3" in str(info.value.failures["1:greedy"])
    assert not any(line.startswith("lookup:step") for line in LOG)
