"""Issue 13: the rules a rule-by-rule read found short, each proved on the real orchestrator (docs/orchestrator.md)."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence

import pytest
from pydantic import ValidationError

from settings.chat import LlmSettings, OrchestratorSettings
from tests.unit.tools.llm_test_server import FakeLlm
from tests.unit.tools.tooltest_helpers import SelectAll, SelectNone, ask, make_platform
from tools.contracts import (
    PRIORITY_MAX,
    AgentCoordinator,
    ChatbotTool,
    ClarifiableTool,
    ContextConsumerTool,
    OrchestratorActivatedTool,
    SubTask,
    ToolDependent,
)
from tools.documents import InternalContextDocument, TextAnswer, ToolExecutionResult
from tools.errors import ToolContractError
from tools.llm.router import LlmRouter, ToolCandidate
from tools.orchestrator import AbstractOrchestratorTool
from tools.platform import ChatPlatform
from tools.plugins import Injected, ToolRegistry
from tools.request import ChatRequest

LOG: list[str] = []
SEEN: dict[str, object] = {}


@pytest.fixture(autouse=True)
def _clear():
    LOG.clear()
    SEEN.clear()


def guaranteed(name: str, *texts: str) -> ToolExecutionResult:
    return ToolExecutionResult.as_guaranteed_context(name, TextAnswer.as_set(*texts))


class Priority(OrchestratorActivatedTool, abstract=True):
    priority = 1

    def get_priority(self) -> int:
        return self.priority


# -- R-CLAR-1: answering a question keeps everything the request had produced --------------------------------------
class CharactersDirect(Priority):
    name, priority = "characters_direct", 0

    async def execute_with_result(self, *args):
        await asyncio.sleep(0.01)  # finishes after the asking tool: completion order must not matter
        return ToolExecutionResult.as_direct_answer(self.name, "Dobó István defends Eger.", TextAnswer.as_set("src"))


class ChaptersAsker(ClarifiableTool):
    name = "chapters_asker"

    def _answer(self, chapter: str) -> ToolExecutionResult:
        return ToolExecutionResult.as_direct_answer(self.name, f"Chapter {chapter}: the siege begins.")

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        LOG.append("chapters:first")
        found = re.search(r"chapter (\d+)", prompt)
        return self._answer(found.group(1)) if found else ToolExecutionResult.as_clarification(
            self.name, "Which chapter?")

    def execute_with_clarification(self, session, *args):
        LOG.append("chapters:answer")
        return self._answer(session.answer)


class BrokenPeer(Priority):
    name, priority = "broken_peer", 0

    def execute_with_result(self, *args):
        raise RuntimeError("graph store down")


def test_r_clar_1_resumed_answer_equals_the_answer_with_the_answer_known_from_the_start():
    platform = make_platform(CharactersDirect, ChaptersAsker, BrokenPeer)
    first = ask(platform, "Tell me about Eger", user_id="u")
    assert first.finish_reason == "clarification"
    resumed = ask(platform, "3", user_id="u", session_id=first.clarification["session_id"])
    known = ask(platform, "Tell me about Eger chapter 3", user_id="u")
    assert LOG == ["chapters:first", "chapters:answer", "chapters:first"]
    assert resumed.content == known.content == "Chapter 3: the siege begins.\n\nDobó István defends Eger."
    assert resumed.sources == known.sources
    assert set(resumed.failures) == set(known.failures) == {"1:broken_peer"}  # the failure before the question
    assert set(resumed.tools_run) == set(known.tools_run)  # resumed: the asking tool ran twice


class Rag(ContextConsumerTool):
    name = "rag"

    def get_priority(self) -> int:
        return PRIORITY_MAX

    def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        LOG.append("rag")
        return guaranteed(self.name, "RAG passage about Eger.")


class OptionalAsker(ChaptersAsker):
    name = "a_optional_asker"  # sorts before its peer: the resumed answer must keep the same context order

    def _answer(self, chapter: str) -> ToolExecutionResult:
        return ToolExecutionResult.as_optional_context(self.name, TextAnswer.as_set(f"Chapter {chapter} excerpt."))


class EarlyGuaranteed(Priority):
    name, priority = "early_guaranteed", 0

    def execute_with_result(self, *args):
        return guaranteed(self.name, "Eger castle stands on a hill.")


def test_r_clar_1_usable_context_from_before_the_question_still_decides_the_fallback():
    platform = make_platform(EarlyGuaranteed, OptionalAsker, Rag)
    first = ask(platform, "Tell me about Eger")
    resumed = ask(platform, "2", session_id=first.clarification["session_id"])
    known = ask(platform, "Tell me about Eger chapter 2")
    assert "rag" not in LOG  # guaranteed context from before the question counts after it too
    assert resumed.content == known.content
    assert "Eger castle stands on a hill." in resumed.content and "Chapter 2 excerpt." in resumed.content


# -- R-TYPE-1: only a ClarifiableTool may ask ----------------------------------------------------------------------
class NotClarifiable(Priority):
    name = "not_clarifiable"

    def execute_with_result(self, *args):
        LOG.append("not_clarifiable")
        return ToolExecutionResult.as_clarification(self.name, "Which castle?")


class RoutedAsker(ChatbotTool):
    name = "routed_asker"

    def execute_with_result(self, *args):
        LOG.append("routed_asker")
        return ToolExecutionResult.as_clarification(self.name, "Which year?")


class Answering(Priority):
    name, priority = "answering", 2

    def execute_with_result(self, *args):
        return guaranteed(self.name, "Eger held in 1552.")


def test_r_type_1_a_tool_that_is_not_clarifiable_cannot_ask_and_fails_alone(caplog):
    response = ask(make_platform(NotClarifiable, RoutedAsker, Answering))
    assert response.finish_reason != "clarification" and response.clarification is None
    assert "Eger held in 1552." in response.content
    assert set(response.failures) == {"1:not_clarifiable", "1:routed_asker"}
    assert all("R-TYPE-1" in text for text in response.failures.values())
    assert sorted(LOG) == ["not_clarifiable", "routed_asker"]  # asked once each, never looped
    assert any("not_clarifiable" in r.getMessage() and r.levelname == "ERROR" for r in caplog.records)


def test_r_type_1_a_class_writing_a_clarification_continuation_must_be_clarifiable():
    with pytest.raises(ToolContractError, match=r"HalfAsker.*execute_with_clarification.*R-TYPE-1"):

        class HalfAsker(Priority):
            name = "half_asker"

            def execute_with_result(self, *args):
                return None

            def execute_with_clarification(self, session, *args):
                return None


# -- a disabled tool does not break its orchestrator -----------------------------------------------------------------
class BadPriority(OrchestratorActivatedTool):
    name = "bad_priority"

    def get_priority(self) -> int:
        return -1

    def execute_with_result(self, *args):
        return None


class Listing(AbstractOrchestratorTool):
    name = "listing"
    domain = "egri"
    tool_names = ("bad_priority", "answering", "never_registered")


def test_r_dep_3_r_prio_1_a_disabled_tool_of_an_orchestrator_leaves_the_rest_running_and_the_log_names_both(caplog):
    caplog.set_level(logging.ERROR, logger="tools.plugins")
    platform = make_platform(Listing, BadPriority, Answering).start()
    lost = [r.getMessage() for r in caplog.records if "lost tool" in r.getMessage()]
    assert any("listing" in m and "bad_priority" in m and "R-PRIO-1" in m for m in lost)
    assert any("listing" in m and "never_registered" in m for m in lost)
    response = ask(platform, domain="egri")
    assert response.tools_run == ["answering"] and "Eger held in 1552." in response.content


# -- R-DEP-2 for every path ------------------------------------------------------------------------------------------
class Rewriter(Priority):
    name, priority = "rewriter", 3
    instruction = "never chosen"

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        LOG.append(f"rewriter:{prompt}")
        return ToolExecutionResult.as_guaranteed_context(self.name, InternalContextDocument.as_set(f"q={prompt}"))


class RagDependant(ToolDependent):
    name = "rag_dependant"
    rewriter: Injected[Rewriter]

    def get_priority(self) -> int:
        return PRIORITY_MAX

    def get_required_tools(self):
        return [self.rewriter]

    def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        LOG.append("rag_dependant")
        SEEN["required"] = {k: [d.text for c in v for d in c.documents] for k, v in required.items()}
        return guaranteed(self.name, "Passage found with the rewritten query.")


def test_r_dep_2_a_dependant_at_priority_max_gets_its_required_tools_run_first():
    response = ask(make_platform(RagDependant, Rewriter, router=SelectNone()))
    assert LOG == ["rewriter:question", "rag_dependant"]
    assert SEEN["required"] == {"rewriter": ["q=question"]}
    assert "Passage found with the rewritten query." in response.content


class OnlyAnswering:
    async def select(self, prompt, candidates, *, important_words=()):
        return [c.name for c in candidates if c.name == "answering"]


def test_r_prio_5_the_fallbacks_inputs_run_only_when_the_fallback_does():
    ask(make_platform(RagDependant, Rewriter, Answering, router=OnlyAnswering()))
    assert LOG == []  # "answering" gave guaranteed context: no fallback, so nothing run only for its sake


class StepUpstream(Priority):
    name, priority = "step_upstream", 2

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        LOG.append(f"step_upstream:{prompt}")
        return guaranteed(self.name, f"facts for {prompt}")


class StepDependant(ToolDependent):
    name = "step_dependant"
    upstream: Injected[StepUpstream]

    def get_priority(self) -> int:
        return 5

    def get_required_tools(self):
        return [self.upstream]

    def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        LOG.append(f"step_dependant:{prompt}")
        SEEN["required"] = {k: [(c.task_no, d.text) for c in v for d in c.documents] for k, v in required.items()}
        return None


class StepPlanner(AgentCoordinator):
    name = "step_planner"

    def get_priority(self) -> int:
        return 1

    def decompose(self, systems, prompt, lang, words, prior):
        return [SubTask("step_dependant", "Dobó")]


class OnlyPlanner:
    async def select(self, prompt, candidates, *, important_words=()):
        return [c.name for c in candidates if c.name == "step_planner"]


def test_r_dep_2_a_dependant_run_as_a_plan_step_gets_its_required_tools_run_first():
    ask(make_platform(StepPlanner, StepDependant, StepUpstream, router=OnlyPlanner()))
    assert LOG == ["step_upstream:Dobó", "step_dependant:Dobó"]
    assert SEEN["required"] == {"step_upstream": [("1.1", "facts for Dobó")]}


class UpstreamPlanner(AgentCoordinator):
    name = "upstream_planner"

    def get_priority(self) -> int:
        return 1

    def decompose(self, systems, prompt, lang, words, prior):
        return [SubTask("step_upstream", "Dobó")]


def test_r_dep_4_a_main_path_dependant_receives_every_context_its_required_tool_produced():
    # step_upstream runs as a plan step (1.1, priority 1) and for the dependant on the main path (1, priority 2);
    # the dependant (priority 5) gets both, in run order, each with its task number (docs/orchestrator.md).
    ask(make_platform(UpstreamPlanner, StepDependant, StepUpstream), "Who defended Eger?")
    assert LOG == ["step_upstream:Dobó", "step_upstream:Who defended Eger?", "step_dependant:Who defended Eger?"]
    assert SEEN["required"] == {"step_upstream": [("1.1", "facts for Dobó"), ("1", "facts for Who defended Eger?")]}


class Late(Priority):
    name, priority = "late", 7

    def execute_with_result(self, *args):
        LOG.append("late")
        return guaranteed(self.name, "late output")


class MisorderedDependant(ToolDependent):
    name = "misordered"
    late: Injected[Late]

    def get_priority(self) -> int:
        return 3

    def get_required_tools(self):
        return [self.late]

    def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        LOG.append("misordered")
        SEEN["required"] = {k: len(v) for k, v in required.items()}
        return None


def test_r_dep_3_a_misordered_dependant_runs_with_an_error_logged_after_its_requirement(caplog):
    caplog.set_level(logging.ERROR, logger="tools.plugins")
    platform = make_platform(MisorderedDependant, Late, router=SelectAll())
    ask(platform)
    assert platform.container.disabled == {}
    assert any("misordered" in r.getMessage() and "R-DEP-3" in r.getMessage() for r in caplog.records)
    assert LOG == ["late", "misordered"]  # R-DEP-2 still holds: its requirement ran first
    assert SEEN["required"] == {"late": 1}


# -- R-CC-1 for a tool that is both ToolDependent and ContextConsumer -------------------------------------------
class Both(ToolDependent, ContextConsumerTool):
    name = "both"
    upstream: Injected[StepUpstream]

    def get_priority(self) -> int:
        return 6

    def get_required_tools(self):
        return [self.upstream]

    def execute_with_required_context(self, *args):
        LOG.append("both:required")
        return None

    def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        LOG.append("both:prior")
        SEEN["prior"] = sorted(prior)
        return None


def test_r_cc_1_a_tool_both_dependent_and_consumer_runs_through_execute_with_prior_context():
    ask(make_platform(Both, StepUpstream, router=SelectNone()))  # routing chose nothing: R-DEP-2 adds upstream
    assert LOG == []  # not chosen, so not run
    ask(make_platform(Both, StepUpstream, router=SelectAll()))
    assert LOG == ["step_upstream:question", "both:prior"]
    assert SEEN["prior"] == ["1:step_upstream"]  # its required tool's context is in the snapshot


# -- isolation of is_eligible; routed_tool_priority below MAX -------------------------------------------------------
class EligibilityCrashes(ChatbotTool):
    name = "eligibility_crashes"

    def is_eligible(self, request):
        raise KeyError("permissions service down")

    def execute_with_result(self, *args):
        LOG.append(self.name)
        return None


class PlainRouted(ChatbotTool):
    name = "plain_routed"
    instruction = "Answers questions about the siege of Eger."

    def execute_with_result(self, *args):
        LOG.append(self.name)
        return guaranteed(self.name, "Routed answer.")


def test_r_chat_2_is_eligible_raising_makes_only_that_tool_ineligible_and_logs_its_name(caplog):
    router = SelectAll()
    response = ask(make_platform(EligibilityCrashes, PlainRouted, router=router))
    assert router.offered == [["plain_routed"]]
    assert LOG == ["plain_routed"] and "Routed answer." in response.content
    assert any("eligibility_crashes" in r.getMessage() and r.levelname == "ERROR" for r in caplog.records)


def test_r_prio_5_routed_tool_priority_is_bounded_below_priority_max():
    with pytest.raises(ValidationError, match="routed_tool_priority"):
        OrchestratorSettings(routed_tool_priority=PRIORITY_MAX)
    assert OrchestratorSettings(routed_tool_priority=PRIORITY_MAX - 1).routed_tool_priority == PRIORITY_MAX - 1


# -- R-PRIO-5 and R-CLAR-2 -----------------------------------------------------------------------------------------
class JustBelowMax(Priority):
    name, priority = "just_below_max", PRIORITY_MAX - 1

    def execute_with_result(self, *args):
        LOG.append(self.name)
        return None


class QuietRouted(ChatbotTool):
    name = "quiet_routed"

    def execute_with_result(self, *args):
        LOG.append(self.name)
        return None


def test_r_prio_5_the_fallback_runs_after_every_other_group_even_one_just_below_max():
    ask(make_platform(Rag, JustBelowMax, QuietRouted, routed_tool_priority=PRIORITY_MAX - 1, router=SelectAll()))
    assert LOG[-1] == "rag" and sorted(LOG[:-1]) == ["just_below_max", "quiet_routed"]


class Recording:
    """A router recording each call's candidates (name and instruction)."""

    def __init__(self) -> None:
        self.calls: list[list[ToolCandidate]] = []

    async def select(self, prompt: str, candidates: Sequence[ToolCandidate], *, important_words=()):
        self.calls.append(list(candidates))
        return [c.name for c in candidates]


def test_r_clar_2_and_r_orch_1_the_routing_call_never_receives_orchestrator_activated_tools():
    router = Recording()
    ask(make_platform(ChaptersAsker, Answering, PlainRouted, Rag, router=router))
    routing = [call for call in router.calls if any(c.name == "plain_routed" for c in call)]
    assert [[c.name for c in call] for call in routing] == [["plain_routed"]]
    # The orchestrator's own suitability test is a separate call over its own tools (never the fallback).
    assert sorted(c.name for call in router.calls for c in call if c.name != "plain_routed") == [
        "answering", "chapters_asker"]


def _routing_llm(body: dict) -> str:
    """A stand-in LLM: routes to the tools whose described instruction shares a word with the request."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if system != LlmRouter.SYSTEM:
        return "Composed answer."
    tools_part, _, request = user.partition("\n\nRequest: ")
    words = set(re.findall(r"\w{4,}", request.lower()))
    chosen = [name for name, text in re.findall(r"^- (\w+): (.*)$", tools_part, re.M)
              if words & set(re.findall(r"\w{4,}", text.lower()))]
    return str(chosen).replace("'", '"')


def _llm_platform(fake: FakeLlm, *classes: type) -> ChatPlatform:
    registry = ToolRegistry(entry_point_group=None)
    for cls in classes:
        registry.register(cls)
    return ChatPlatform(registry, llm_settings=LlmSettings(base_url=fake.base_url, stream=False, max_retries=0))


class Weather(ChatbotTool):
    name = "weather"
    instruction = "Reports tomorrow's forecast for a town."

    def execute_with_result(self, *args):
        LOG.append(self.name)
        return guaranteed(self.name, "Sunny.")


def test_r_chat_1_the_llm_routing_prompt_carries_each_instruction_and_routing_follows_it(monkeypatch):
    with FakeLlm(_routing_llm) as fake:
        asyncio.run(_llm_platform(fake, PlainRouted, Weather, ChaptersAsker).handle(
            ChatRequest("Who won the siege of Eger?")))
        sent = [r["messages"][-1]["content"] for r in fake.requests if r["messages"][0]["content"] == LlmRouter.SYSTEM]
        routing = [text for text in sent if "plain_routed" in text]
        assert len(routing) == 1
        assert PlainRouted.instruction in routing[0] and Weather.instruction in routing[0]
        assert "chapters_asker" not in routing[0]  # R-CLAR-2 on the real LLM path
        assert LOG == ["plain_routed"]
        LOG.clear()
        # Only the instruction changes: the same question now routes to the other tool.
        monkeypatch.setattr(Weather, "instruction", "Answers who won the famous siege of a castle.")
        monkeypatch.setattr(PlainRouted, "instruction", "Reports tomorrow's forecast for a town.")
        asyncio.run(_llm_platform(fake, PlainRouted, Weather).handle(ChatRequest("Who won the siege of Eger?")))
        assert LOG == ["weather"]
