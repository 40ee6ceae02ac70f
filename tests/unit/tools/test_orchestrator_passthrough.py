"""What each tool, the router and the composer actually receive, and what the response reports.

Written against the survivors of the mutation run (bench/mutation_orchestrator.py, docs/orchestrator.md): each test
pins a behaviour that no earlier test observed — arguments passed through, answer order, failure records.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from settings.chat import OrchestratorSettings
from tests.unit.tools.tooltest_helpers import SelectAll, ask, make_platform
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
from tools.errors import ClarificationError, ToolContractError, ToolError, ToolExecutionError
from tools.ingestion import IngestionRequest, IngestionResult, IngestionTool
from tools.llm.composer import ComposedAnswer
from tools.orchestrator import AbstractOrchestratorTool
from tools.platform import ChatPlatform
from tools.plugins import Injected, ToolRegistry
from tools.request import ChatRequest
from tools.streaming import CollectingCallback, ResponseEmitter

SEEN: dict[str, Any] = {}
LOG: list[str] = []


@pytest.fixture(autouse=True)
def _clear():
    SEEN.clear()
    LOG.clear()


def guaranteed(name: str, *texts: str) -> ToolExecutionResult:
    return ToolExecutionResult.as_guaranteed_context(name, TextAnswer.as_set(*texts))


class Prioritised(OrchestratorActivatedTool, abstract=True):
    priority = 1

    def get_priority(self) -> int:
        return self.priority


class RecordingComposer:
    """Records what the answer step receives; ``fail`` makes it raise like an LLM outage."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.calls: list[dict[str, Any]] = []

    async def compose(self, prompt, contexts, *, user_lang, emitter):
        self.calls.append({"prompt": prompt, "contexts": list(contexts), "user_lang": user_lang, "emitter": emitter})
        if self.fail:
            raise ToolError("LLM endpoint down")
        emitter.emit_text("composed")
        return ComposedAnswer("composed", sources=["s1"], model="recording-model")


class RecordingRouter(SelectAll):
    def __init__(self, chosen: Sequence[str] | None = None) -> None:
        super().__init__()
        self.chosen = chosen
        self.words: list[tuple[str, ...]] = []

    async def select(self, prompt, candidates, *, important_words=()):
        self.words.append(tuple(important_words))
        self.offered.append([c.name for c in candidates])
        return [c.name for c in candidates if self.chosen is None or c.name in self.chosen]


def platform_of(*classes: type, router: Any = None, composer: Any = None, **settings: Any) -> ChatPlatform:
    registry = ToolRegistry(entry_point_group=None)
    for cls in classes:
        registry.register(cls)
    return ChatPlatform(registry, orchestrator_settings=OrchestratorSettings(**settings),
                        router=router or SelectAll(), composer=composer)


def run(platform: ChatPlatform, request: ChatRequest, emitter: ResponseEmitter | None = None):
    return asyncio.run(platform.handle(request, emitter))


# -- arguments reach every mode ------------------------------------------------------------------------------------
def _record(key: str, systems, prompt, lang, words, emitter, callback) -> None:
    SEEN[key] = (list(systems), prompt, lang, list(words), emitter, type(callback).__name__)


class PlainProbe(Prioritised):
    name = "plain_probe"

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        _record(self.name, systems, prompt, lang, words, emitter, callback)
        return guaranteed(self.name, "plain probe output")


class ConsumerProbe(ContextConsumerTool):
    name = "consumer_probe"

    def get_priority(self) -> int:
        return 2

    def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        _record(self.name, systems, prompt, lang, words, emitter, callback)
        return None


class DependentProbe(ToolDependent):
    name = "dependent_probe"
    plain: Injected[PlainProbe]

    def get_priority(self) -> int:
        return 3

    def get_required_tools(self):
        return [self.plain]

    async def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        _record(self.name, systems, prompt, lang, words, emitter, callback)
        SEEN["required"] = required
        return None


class StepProbe(Prioritised):
    name, priority = "step_probe", 9

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        _record(f"step:{prompt}", systems, prompt, lang, words, emitter, callback)
        return None


class PlannerProbe(AgentCoordinator):
    name = "planner_probe"

    def get_priority(self) -> int:
        return 4

    def decompose(self, systems, prompt, lang, words, prior):
        SEEN["decompose"] = (list(systems), prompt, lang, list(words), sorted(prior))
        return [SubTask("step_probe", "with words", important_words=("Dobó",)), SubTask("step_probe", "without")]


def test_every_mode_receives_the_requests_arguments_emitter_and_callback():
    router = RecordingRouter(chosen=["plain_probe", "consumer_probe", "dependent_probe", "planner_probe"])
    platform = platform_of(PlainProbe, ConsumerProbe, DependentProbe, StepProbe, PlannerProbe, router=router)
    emitter = ResponseEmitter()
    request = ChatRequest("Who held Eger?", systems=("chat",), user_lang="hu", important_words=("Eger",))
    response = run(platform, request, emitter)
    expected = (["chat"], "Who held Eger?", "hu", ["Eger"], emitter, "ToolCallback")
    for name in ("plain_probe", "consumer_probe", "dependent_probe"):
        assert SEEN[name] == expected, name
    assert SEEN["decompose"] == (["chat"], "Who held Eger?", "hu", ["Eger"], ["1:plain_probe"])
    assert SEEN["step:with words"] == (["chat"], "with words", "hu", ["Dobó"], emitter, "ToolCallback")
    assert SEEN["step:without"] == (["chat"], "without", "hu", ["Eger"], emitter, "ToolCallback")
    assert router.words == [("Eger",)]  # the routing call gets the important words too
    assert "planner_probe" in response.tools_run and response.failures == {}


def test_r_dep_5_explicit_activation_passes_every_argument_to_an_async_required_context_method():
    platform = platform_of(PlainProbe, DependentProbe).start()
    emitter = ResponseEmitter()
    result = asyncio.run(platform.run_tool("dependent_probe", ChatRequest("q", systems=("s",), user_lang="de",
                                                                          important_words=("w",)), emitter))
    assert result is None  # the coroutine of the sync default was awaited, not returned
    assert SEEN["dependent_probe"] == (["s"], "q", "de", ["w"], emitter, "CollectingCallback")
    assert dict(SEEN["required"]) == {"plain_probe": ()}


# -- clarification: what the continuation receives, what the question turn reports ------------------------------
class Upstream(Prioritised):
    name, priority = "upstream", 0

    def execute_with_result(self, *args):
        docs = TextAnswer.as_set("upstream public") | InternalContextDocument.as_set("upstream-internal")
        return ToolExecutionResult.as_guaranteed_context(self.name, docs)


class Asker(ClarifiableTool):
    name = "asker"

    def execute_with_result(self, *args):
        return ToolExecutionResult.as_clarification(self.name, "Which castle?", state={"k": 1})

    def execute_with_clarification(self, session, systems, prompt, lang, words, emitter, callback):
        SEEN["session"] = session
        _record("continuation", systems, prompt, lang, words, emitter, callback)
        return guaranteed(self.name, f"Castle {session.answer}.")


class AfterQuestion(ToolDependent):
    name = "after_question"
    upstream: Injected[Upstream]

    def get_priority(self) -> int:
        return 5

    def get_required_tools(self):
        return [self.upstream]

    def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        SEEN["after_required"] = sorted(d.text for c in required["upstream"] for d in c.documents)
        return None


def test_r_clar_1_question_turn_and_continuation_carry_everything():
    platform = platform_of(Upstream, Asker, AfterQuestion)
    emitter = ResponseEmitter()
    first = run(platform, ChatRequest("siege", user_id="u", important_words=("vár",)), emitter)
    assert emitter.text == "Which castle?" and first.content == "Which castle?"
    assert sorted(first.tools_run) == ["asker", "upstream"]
    second_emitter = ResponseEmitter()
    run(platform, ChatRequest("Eger", user_id="u", session_id=first.clarification["session_id"]), second_emitter)
    session = SEEN["session"]
    assert (session.session_id, session.tool_name, session.question, session.answer, session.state,
            session.round) == (first.clarification["session_id"], "asker", "Which castle?", "Eger", {"k": 1}, 1)
    assert SEEN["continuation"] == ([], "siege", "en", ["vár"], second_emitter, "ToolCallback")
    # The dependant after the question still gets its requirement's context from before it (R-DEP-4, R-CLAR-1).
    assert SEEN["after_required"] == ["upstream public", "upstream-internal"]


def test_a_clarification_answer_for_a_tool_that_asked_nothing_is_refused_naming_it():
    platform = platform_of(Asker)
    first = run(platform, ChatRequest("siege"))
    with pytest.raises(ClarificationError, match="nobody"):
        run(platform, ChatRequest("", session_id=first.clarification["session_id"], answer={"nobody": "x"}))


# -- the fallback decision is taken once --------------------------------------------------------------------------
class PublicInput(Prioritised):
    name, priority = "public_input", 3

    def execute_with_result(self, *args):
        LOG.append(self.name)
        return guaranteed(self.name, "public input")


class AskingInput(ClarifiableTool):
    name = "asking_input"

    def get_priority(self) -> int:
        return 3

    def execute_with_result(self, *args):
        LOG.append("asking_input:first")
        return ToolExecutionResult.as_clarification(self.name, "Which book?")

    def execute_with_clarification(self, session, *args):
        LOG.append("asking_input:answer")
        return guaranteed(self.name, f"book {session.answer}")


class FallbackOf(ToolDependent, abstract=True):
    def get_priority(self) -> int:
        return PRIORITY_MAX

    def get_required_tools(self):
        return [self.input]

    def execute_with_required_context(self, *args):
        LOG.append(self.name)
        return guaranteed(self.name, "fallback passage")


class FallbackOfPublic(FallbackOf):
    name = "fallback_of_public"
    input: Injected[PublicInput]


class FallbackOfAsking(FallbackOf):
    name = "fallback_of_asking"
    input: Injected[AskingInput]


class ChooseNothing(RecordingRouter):
    def __init__(self) -> None:
        super().__init__(chosen=[])


def test_r_prio_5_once_the_fallback_phase_started_its_own_inputs_do_not_cancel_it():
    response = run(platform_of(FallbackOfPublic, PublicInput, router=ChooseNothing()), ChatRequest("q"))
    assert LOG == ["public_input", "fallback_of_public"]
    assert "fallback passage" in response.content


def test_r_prio_5_a_question_inside_the_fallback_phase_resumes_inside_it():
    platform = platform_of(FallbackOfAsking, AskingInput, router=ChooseNothing())
    first = run(platform, ChatRequest("q"))
    run(platform, ChatRequest("Eger", session_id=first.clarification["session_id"]))
    assert LOG == ["asking_input:first", "asking_input:answer", "fallback_of_asking"]


class SecondFallback(Prioritised):
    name, priority = "second_fallback", PRIORITY_MAX

    def execute_with_result(self, *args):
        LOG.append(self.name)
        return None


def test_r_prio_5_every_priority_max_tool_runs_in_the_fallback():
    run(platform_of(FallbackOfPublic, PublicInput, SecondFallback, router=ChooseNothing()), ChatRequest("q"))
    assert sorted(LOG) == ["fallback_of_public", "public_input", "second_fallback"]


# -- what the answer step receives -----------------------------------------------------------------------------
class Zeta(Prioritised):
    name, priority = "zeta", 0

    async def execute_with_result(self, *args):
        return ToolExecutionResult.as_guaranteed_context(
            self.name, TextAnswer.as_set("zeta text") | InternalContextDocument.as_set("zeta-internal"))


class Beta(Prioritised):
    name, priority = "beta", 1

    async def execute_with_result(self, *args):
        return guaranteed(self.name, "beta text")


class Alpha(Prioritised):
    name, priority = "alpha", 1

    async def execute_with_result(self, *args):
        await asyncio.sleep(0.02)  # finishes after beta, its group peer
        return guaranteed(self.name, "alpha text")


class PeerReader(ContextConsumerTool):
    name = "peer_reader"

    def get_priority(self) -> int:
        return 1

    async def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        await asyncio.sleep(0.05)  # its peers have finished by now: it must still not see them (R-PRIO-3)
        SEEN["peer_prior"] = sorted(prior)
        SEEN["peer_emitter"] = emitter
        SEEN["peer_callback"] = type(callback).__name__
        return None


def test_the_composer_gets_public_contexts_in_run_order_with_the_users_language():
    composer = RecordingComposer()
    emitter = ResponseEmitter()
    response = run(platform_of(Beta, Zeta, Alpha, PeerReader, composer=composer), ChatRequest("q", user_lang="hu"),
                   emitter)
    assert SEEN["peer_prior"] == ["1:zeta"] and SEEN["peer_emitter"] is emitter
    assert SEEN["peer_callback"] == "ToolCallback"
    call = composer.calls[0]
    assert [c.tool_name for c in call["contexts"]] == ["zeta", "alpha", "beta"]  # group, then name; not finish order
    assert all(not d.is_internal for c in call["contexts"] for d in c.documents)
    assert (call["prompt"], call["user_lang"], call["emitter"]) == ("q", "hu", emitter)
    assert (response.content, response.sources, response.model) == ("composed", ["s1"], "recording-model")
    assert sorted(response.tools_run) == ["alpha", "beta", "peer_reader", "zeta"]


class LaterStep(Prioritised):
    name, priority = "zz_step", 9

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        return guaranteed(self.name, f"zz {prompt}")


class EarlierName(LaterStep):
    name = "aa_step"


class TenSteps(AgentCoordinator):
    name = "ten_steps"

    def get_priority(self) -> int:
        return 1

    def decompose(self, systems, prompt, lang, words, prior):
        return [SubTask("zz_step", f"s{i}") for i in range(1, 10)] + [SubTask("aa_step", "s10")]


def test_plan_step_contexts_reach_the_composer_in_task_number_order():
    composer = RecordingComposer()
    run(platform_of(TenSteps, LaterStep, EarlierName, composer=composer, router=RecordingRouter(["ten_steps"])),
        ChatRequest("q"))
    keys = [c.completion_key for c in composer.calls[0]["contexts"]]
    assert keys == [f"1.{i}:zz_step" for i in range(1, 10)] + ["1.10:aa_step"]


def test_a_failing_composer_falls_back_to_quoting_the_context_with_its_sources():
    emitter = ResponseEmitter()
    response = run(platform_of(Alpha, composer=RecordingComposer(fail=True)),
                   ChatRequest("alpha text?", user_lang="en"), emitter)
    assert "alpha text" in response.content and response.sources == ["alpha"]
    assert emitter.text == response.content
    nothing = run(platform_of(composer=RecordingComposer(fail=True)), ChatRequest("q", user_lang="hu"))
    assert nothing.content == "Erről nem találtam információt a tudásbázisban."  # in the user's language


class DirectWithSources(Prioritised):
    name = "direct_with_sources"

    def execute_with_result(self, *args):
        docs = TextAnswer.as_set("uncited") | InternalContextDocument.as_set("hidden")
        docs = {TextAnswer("cited", source="egri.txt#12"), *docs}
        return ToolExecutionResult.as_direct_answer(self.name, "Eger held.", docs)


def test_a_direct_answer_is_streamed_and_cites_its_public_sources_only():
    emitter = ResponseEmitter()
    response = run(platform_of(DirectWithSources), ChatRequest("q"), emitter)
    assert emitter.text == response.content == "Eger held."
    assert response.sources == ["direct_with_sources", "egri.txt#12"]
    assert response.tools_run == ["direct_with_sources"]


# -- plan steps: requirements, snapshots, refusals ---------------------------------------------------------------
class Base(Prioritised):
    name, priority = "base", 1

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        LOG.append(f"base:{prompt}")
        SEEN[f"base:{prompt}"] = (list(words), isinstance(emitter, ResponseEmitter), type(callback).__name__)
        return ToolExecutionResult.as_guaranteed_context(
            self.name, TextAnswer.as_set(f"base {prompt}") | InternalContextDocument.as_set(f"base-internal {prompt}"))


class Extra(Prioritised):
    name, priority = "extra", 1

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        LOG.append(f"extra:{prompt}")
        return None


class Middle(ToolDependent):
    name = "middle"
    base: Injected[Base]

    def get_priority(self) -> int:
        return 2

    def get_required_tools(self):
        return [self.base]

    def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        LOG.append(f"middle:{prompt}")
        return None


class Top(ToolDependent):
    name = "top"
    middle: Injected[Middle]
    base: Injected[Base]
    extra: Injected[Extra]

    def get_priority(self) -> int:
        return 3

    def get_required_tools(self):
        return [self.middle, self.base, self.extra]  # base again: already run for middle

    def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        LOG.append(f"top:{prompt}")
        SEEN["top_required"] = {k: [(c.task_no, c.prompt) for c in v] for k, v in required.items()}
        return None


class Reader(ContextConsumerTool):
    name = "reader"

    def get_priority(self) -> int:
        return 3

    def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        SEEN["reader_prior"] = sorted(d.text for c in prior.get("1.1:base", ()) for d in c.documents)
        return None


class Loader(IngestionTool):
    name = "loader"

    def execute_ingestion(self, request: IngestionRequest) -> IngestionResult:
        LOG.append("loader")
        return IngestionResult(run_id="r", status="succeeded")


class StepPlanner(AgentCoordinator):
    name = "step_planner"

    def get_priority(self) -> int:
        return 5

    def decompose(self, systems, prompt, lang, words, prior):
        return [SubTask("top", "Dobó", important_words=("vár",)), SubTask("reader", "read"),
                SubTask("loader", "load")]


def test_r_dep_2_plan_step_requirements_run_once_each_transitively_and_see_only_the_steps_output():
    router = RecordingRouter(chosen=["step_planner", "base"])
    response = run(platform_of(StepPlanner, Top, Middle, Base, Extra, Reader, Loader, router=router),
                   ChatRequest("main"))
    # base ran for the main request (chosen) and once for the step, not twice; extra still ran after the repeat.
    assert LOG == ["base:main", "base:Dobó", "middle:Dobó", "extra:Dobó", "top:Dobó"]
    assert SEEN["top_required"] == {"middle": [], "base": [("1.1", "Dobó")], "extra": []}
    assert SEEN["base:Dobó"] == (["vár"], True, "ToolCallback")  # the step's words, the request's emitter
    assert SEEN["reader_prior"] == ["base Dobó", "base-internal Dobó"]  # steps see internal documents too
    assert set(response.failures) == {"1.3:loader"}  # an ingestion tool cannot be a step
    assert "step_planner" in response.tools_run


# -- failures are recorded with their cause ----------------------------------------------------------------------
class TooSlow(Prioritised):
    name, timeout_s = "too_slow", 0.02

    async def execute_with_result(self, *args):
        await asyncio.sleep(1)


class WrongType(Prioritised):
    name = "wrong_type"

    def execute_with_result(self, *args):
        return "a string"


class NotAsker(Prioritised):
    name = "not_asker"

    def execute_with_result(self, *args):
        return ToolExecutionResult.as_clarification(self.name, "?")


def test_failures_carry_the_tool_and_the_cause():
    with pytest.raises(ToolExecutionError) as info:
        run(platform_of(TooSlow, WrongType, NotAsker), ChatRequest("q"))
    failures = info.value.failures
    assert isinstance(failures["1:too_slow"], ToolError) and failures["1:too_slow"].tool_name == "too_slow"
    assert "timed out after 0.02s" in str(failures["1:too_slow"])
    assert str(failures["1:wrong_type"]) == "tool 'wrong_type' returned str"
    assert failures["1:not_asker"].tool_name == "not_asker"


class AsksForever(ClarifiableTool):
    name = "asks_forever"

    def execute_with_result(self, *args):
        return ToolExecutionResult.as_clarification(self.name, "Again?")

    def execute_with_clarification(self, session, *args):
        LOG.append(f"round {session.round}")
        return ToolExecutionResult.as_clarification(self.name, "Again?")


def test_r_clar_1_the_round_limit_failure_names_the_tool():
    platform = platform_of(AsksForever, max_clarification_rounds=2)
    first = run(platform, ChatRequest("q"))
    second = run(platform, ChatRequest("x", session_id=first.clarification["session_id"]))
    with pytest.raises(ToolExecutionError) as info:
        run(platform, ChatRequest("x", session_id=second.clarification["session_id"]))
    assert LOG == ["round 1", "round 2"]
    failure = info.value.failures["1:asks_forever"]
    assert failure.tool_name == "asks_forever" and "exceeded 2 clarification rounds" in str(failure)


class AlsoAsksForever(AsksForever):
    name = "also_asks_forever"


class AnswersAtOnce(Prioritised):
    name, priority = "answers_at_once", 0

    def execute_with_result(self, *args):
        return guaranteed(self.name, "Eger held in 1552.")


def test_r_clar_1_every_tool_over_the_round_limit_in_one_turn_fails_and_the_rest_still_answers():
    # The tools that asked in one turn share their round count, so an over-limit tool is never followed by one still
    # allowed to ask; what the engine owes the later ones is to go on to them and record each failure, not stop.
    composer = RecordingComposer()
    platform = platform_of(AsksForever, AlsoAsksForever, AnswersAtOnce, composer=composer, max_clarification_rounds=1)
    first = run(platform, ChatRequest("q"))
    assert sorted(q["tool"] for q in first.clarification["questions"]) == ["also_asks_forever", "asks_forever"]
    second = run(platform, ChatRequest("x", session_id=first.clarification["session_id"]))
    assert second.finish_reason != "clarification"
    assert set(second.failures) == {"1:also_asks_forever", "1:asks_forever"}
    assert "exceeded 1 clarification rounds" in second.failures["1:also_asks_forever"]
    assert LOG == ["round 1", "round 1"]
    assert [c.completion_key for c in composer.calls[0]["contexts"]] == ["1:answers_at_once"]


class SlowPlanner(AgentCoordinator):
    name, timeout_s = "slow_planner", 0.02

    def get_priority(self) -> int:
        return 1

    async def decompose(self, *args):
        await asyncio.sleep(1)
        return []


def test_a_coordinators_decompose_runs_under_its_time_limit():
    with pytest.raises(ToolExecutionError) as info:
        run(platform_of(SlowPlanner), ChatRequest("q"))
    assert set(info.value.failures) == {"1:slow_planner"}


# -- the orchestrator driven directly, and a failing router ----------------------------------------------------
class Callback:
    def __init__(self) -> None:
        self.response = None
        self.error = None

    def on_success(self, response) -> None:
        self.response = response

    def on_error(self, error) -> None:
        self.error = error


class FailingRouter:
    async def select(self, prompt, candidates, *, important_words=()):
        raise ToolError("router down")


class Routable(ChatbotTool):
    name = "routable"

    def execute_with_result(self, *args):
        return guaranteed(self.name, "routable text")


def test_an_orchestrator_driven_with_a_plain_callback_reports_success_and_failure_to_it():
    platform = platform_of(Routable).start()
    orchestrator = platform.container.new_orchestrator(platform.select_orchestrator(ChatRequest("q")))
    callback = Callback()
    asyncio.run(orchestrator.handle(ChatRequest("routable text?"), ResponseEmitter(), callback))
    assert "routable text" in callback.response.content and callback.error is None
    failing = platform_of(Routable, router=FailingRouter()).start()
    orchestrator = failing.container.new_orchestrator(failing.select_orchestrator(ChatRequest("q")))
    callback = Callback()
    asyncio.run(orchestrator.handle(ChatRequest("q"), ResponseEmitter(), callback))
    assert isinstance(callback.error, ToolError) and str(callback.error) == "router down"
    with pytest.raises(ToolError, match="router down"):
        asyncio.run(failing.handle(ChatRequest("q"), callback=CollectingCallback()))


# -- orchestrators of one domain keep their own tool lists --------------------------------------------------------
class OnlyAlpha(AbstractOrchestratorTool):
    name, domain, eligible_system, tool_names = "only_alpha", "egri", "a", ("alpha",)


class OnlyBeta(AbstractOrchestratorTool):
    name, domain, eligible_system, tool_names = "only_beta", "egri", "b", ("beta",)


def test_r_ot_4_orchestrators_of_one_domain_keep_their_own_tool_lists():
    platform = platform_of(OnlyAlpha, OnlyBeta, Alpha, Beta)
    assert run(platform, ChatRequest("q", domain="egri", systems=("a",))).tools_run == ["alpha"]
    assert run(platform, ChatRequest("q", domain="egri", systems=("b",))).tools_run == ["beta"]


# -- contracts ------------------------------------------------------------------------------------------------
def test_contract_errors_carry_the_class_as_tool_name():
    with pytest.raises(ToolContractError) as info:

        class Nameless(ChatbotTool):
            def execute_with_result(self, *args):
                return None

    assert info.value.tool_name.endswith("Nameless")
    with pytest.raises(ToolContractError) as info:

        class Unfinished(OrchestratorActivatedTool):
            name = "unfinished"

    assert info.value.tool_name.endswith("Unfinished")
    with pytest.raises(ToolContractError) as info:

        class HalfAsker(Prioritised):
            name = "half"

            def execute_with_result(self, *args):
                return None

            def execute_with_clarification(self, *args):
                return None

    assert info.value.tool_name.endswith("HalfAsker")
    # the constructor case: test_tool_contracts.py::test_r_plug_1_tool_with_required_constructor_argument_…


def test_r_async_1_a_task_tool_must_name_its_type_and_a_pydantic_input_model():
    from pydantic import BaseModel

    from tools.contracts import AsyncTaskTool

    class In(BaseModel):
        n: int = 0

    with pytest.raises(ToolContractError, match=r"NoType must set `task_type`") as info:

        class NoType(AsyncTaskTool):
            name, input_model = "no_type", In

            def run(self, task_input, context):
                return None

    assert info.value.tool_name == "no_type"
    for model in (None, dict):
        with pytest.raises(ToolContractError, match=r"BadModel must set `input_model`.*got") as info:

            class BadModel(AsyncTaskTool):
                name, task_type = "bad_model", "bad.v1"
                input_model = model

                def run(self, task_input, context):
                    return None

        assert info.value.tool_name == "bad_model"
    with pytest.raises(ToolContractError, match=r"NoModel must set `input_model`.*got None"):

        class NoModel(AsyncTaskTool):
            name, task_type = "no_model", "no_model.v1"

            def run(self, task_input, context):
                return None


def test_contracts_a_class_with_its_own_abstract_method_is_a_base_without_saying_so():
    from abc import abstractmethod

    class DomainBase(OrchestratorActivatedTool):
        @abstractmethod
        def lookup(self) -> str: ...

    assert DomainBase.is_abstract_contract


def test_r_chat_1_without_an_instruction_the_docstring_is_the_executable_instruction():
    class Documented(ChatbotTool):
        """Answers questions about the castle of Eger."""

        name = "documented"

        def execute_with_result(self, *args):
            return None

    assert Documented().get_executable_instruction() == "Answers questions about the castle of Eger."

    class Undocumented(ChatbotTool):
        name = "undocumented"

        def execute_with_result(self, *args):
            return None

    Undocumented.__doc__ = None
    assert Undocumented().get_executable_instruction() == ""
    assert ask(make_platform(Documented)).tools_run == ["documented"]
