from __future__ import annotations

import asyncio
import threading
import time

import pytest

from tests.unit.tools.tooltest_helpers import SelectAll, SelectNone, ask, make_platform
from tools.contracts import (
    PRIORITY_MAX,
    AsyncTaskTool,
    ChatbotTool,
    ContextConsumerTool,
    OrchestratorActivatedTool,
    ToolDependent,
)
from tools.documents import InternalContextDocument, TextAnswer, ToolExecutionResult
from tools.errors import ToolExecutionError
from tools.ingestion import IngestionRequest, IngestionResult, IngestionTool
from tools.llm.router import LexicalRouter
from tools.plugins import Injected
from tools.request import ChatRequest
from tools.streaming import CollectingCallback

LOG: list[tuple[str, str]] = []
SEEN: dict[str, object] = {}


@pytest.fixture(autouse=True)
def _clear():
    LOG.clear()
    SEEN.clear()


def context(name: str, *texts: str) -> ToolExecutionResult:
    return ToolExecutionResult.as_guaranteed_context(name, TextAnswer.as_set(*texts))


class Recorded(OrchestratorActivatedTool, abstract=True):
    priority = 1
    texts: tuple[str, ...] = ()

    def get_priority(self) -> int:
        return self.priority

    async def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        LOG.append(("start", self.name))
        await asyncio.sleep(0.01)
        LOG.append(("end", self.name))
        return context(self.name, *self.texts) if self.texts else None


class P0(Recorded):
    name, priority = "p0", 0


class P1a(Recorded):
    name, priority = "p1a", 1


class P1b(Recorded):
    name, priority = "p1b", 1


class P5(Recorded):
    name, priority, texts = "p5", 5, ("The castle of Eger was besieged in 1552.",)


class Fallback(ContextConsumerTool):
    name = "rag"

    def get_priority(self) -> int:
        return PRIORITY_MAX

    def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        LOG.append(("start", self.name))
        SEEN["rag_prior"] = prior
        return context(self.name, "RAG passage about Eger.")


class Routed(ChatbotTool):
    name = "routed"

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        LOG.append(("start", self.name))
        return None


def order() -> list[str]:
    return [name for event, name in LOG if event == "start"]


def test_r_prio_2_zero_runs_before_everything_else():
    ask(make_platform(P1a, P0, Routed, P5))
    assert order()[0] == "p0"


def test_r_prio_4_different_priorities_run_in_ascending_sequence():
    ask(make_platform(P5, P1a, P0))
    assert LOG == [("start", "p0"), ("end", "p0"), ("start", "p1a"), ("end", "p1a"), ("start", "p5"), ("end", "p5")]


def test_r_prio_1_smaller_number_runs_earlier():
    ask(make_platform(P5, P1b))
    assert order() == ["p1b", "p5"]


class MeetA(OrchestratorActivatedTool):
    name = "meet_a"

    def get_priority(self) -> int:
        return 3

    async def execute_with_result(self, *args):
        SEEN["a_here"].set()
        await asyncio.wait_for(SEEN["b_here"].wait(), 2)  # only returns if b runs at the same time
        return None


class MeetB(OrchestratorActivatedTool):
    name = "meet_b"

    def get_priority(self) -> int:
        return 3

    async def execute_with_result(self, *args):
        SEEN["b_here"].set()
        await asyncio.wait_for(SEEN["a_here"].wait(), 2)
        return None


class SyncMeet(OrchestratorActivatedTool, abstract=True):
    def get_priority(self) -> int:
        return 3

    def execute_with_result(self, *args):
        SEEN["barrier"].wait()  # raises BrokenBarrierError on timeout if the other never arrives
        LOG.append(("start", self.name))
        return None


class SyncMeetA(SyncMeet):
    name = "sync_a"


class SyncMeetB(SyncMeet):
    name = "sync_b"


def test_r_prio_3_same_priority_runs_concurrently():
    async def go():
        SEEN["a_here"], SEEN["b_here"] = asyncio.Event(), asyncio.Event()
        platform = make_platform(MeetA, MeetB)
        return await platform.handle(ChatRequest("q"))

    response = asyncio.run(go())
    assert sorted(response.tools_run) == ["meet_a", "meet_b"]
    assert response.failures == {}


def test_r_prio_3_same_priority_sync_tools_run_concurrently_in_threads():
    SEEN["barrier"] = threading.Barrier(2, timeout=2)
    response = ask(make_platform(SyncMeetA, SyncMeetB))
    assert response.failures == {}
    assert sorted(order()) == ["sync_a", "sync_b"]


def test_r_prio_5_priority_max_runs_last_only_without_usable_context():
    ask(make_platform(Fallback, P0, P1a))  # nothing produced context
    assert order() == ["p0", "p1a", "rag"]
    LOG.clear()
    response = ask(make_platform(Fallback, P5))  # P5 produced guaranteed context
    assert order() == ["p5"]
    assert "1552" in response.content


def test_r_prio_5_fallback_can_be_switched_off():
    ask(make_platform(Fallback, P0, rag_fallback=False))
    assert order() == ["p0"]


def test_r_chat_1_routing_reads_the_executable_instruction():
    class Siege(ChatbotTool):
        name = "siege"
        instruction = "Answers questions about the siege of Eger castle"

        def execute_with_result(self, *args):
            LOG.append(("start", self.name))
            return None

    class Weather(ChatbotTool):
        name = "weather"
        instruction = "Reports today's weather forecast"

        def execute_with_result(self, *args):
            LOG.append(("start", self.name))
            return None

    platform = make_platform(Siege, Weather, router=LexicalRouter(0.2))
    ask(platform, "Who defended the castle during the siege of Eger?")
    assert order() == ["siege"]
    LOG.clear()
    ask(platform, "What is the weather forecast?")
    assert order() == ["weather"]


class Restricted(ChatbotTool):
    name = "restricted"
    required_permissions = frozenset({"admin"})

    def execute_with_result(self, *args):
        LOG.append(("start", self.name))
        return None


class Ineligible(OrchestratorActivatedTool):
    name = "ineligible_but_orchestrated"

    def get_priority(self) -> int:
        return 2

    def is_eligible(self, request):
        SEEN["is_eligible_called"] = True
        return False

    def execute_with_result(self, *args):
        LOG.append(("start", self.name))
        return None


def test_r_chat_2_ineligible_tool_is_never_offered_to_routing():
    router = SelectAll()
    ask(make_platform(Restricted, Routed, router=router))
    assert router.offered == [["routed"]]
    assert order() == ["routed"]
    router.offered.clear()
    ask(make_platform(Restricted, Routed, router=router), permissions=frozenset({"admin"}))
    assert router.offered == [["restricted", "routed"]]


def test_r_orch_1_is_eligible_is_not_evaluated_for_orchestrator_activated_tools():
    platform = make_platform(Ineligible, Routed)
    ask(platform)
    assert "is_eligible_called" not in SEEN
    assert "ineligible_but_orchestrated" in order()
    orchestrator = platform.container.new_orchestrator(platform.select_orchestrator(ChatRequest("q")))
    assert [t.get_name() for t in orchestrator.get_routable_tools(ChatRequest("q"))] == ["routed"]


class Consumer(ContextConsumerTool):
    name = "consumer"

    def get_priority(self) -> int:
        return 2

    def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        SEEN["prior"] = prior
        found = prior.get("1:producer")
        if found is None:  # R-CC-4: no context is normal; fall back
            return context(self.name, "General suggestions.")
        return context(self.name, "Built on: " + found[0].documents[-1].text)


class Producer(OrchestratorActivatedTool):
    name = "producer"

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, *args):
        docs = TextAnswer.as_set("Gergely Bornemissza") | InternalContextDocument.as_set('{"id": 7}')
        return ToolExecutionResult.as_guaranteed_context(self.name, docs)


def test_r_coop_1_a_tool_builds_on_the_output_of_an_earlier_tool_in_the_same_run():
    response = ask(make_platform(Producer, Consumer))
    assert "Built on: Gergely Bornemissza" in response.content


def test_r_cc_1_consumer_gets_a_read_only_snapshot_keyed_task_and_tool():
    ask(make_platform(Producer, Consumer))
    prior = SEEN["prior"]
    assert list(prior) == ["1:producer"]
    assert [c.completion_key for c in prior["1:producer"]] == ["1:producer"]
    with pytest.raises(TypeError):
        prior["1:x"] = []  # read-only
    assert isinstance(prior["1:producer"], tuple)  # the lists are copies that cannot be appended to


def test_r_int_1_internal_documents_reach_the_receiving_tool_over_both_channels():
    ask(make_platform(Producer, Consumer))  # prior-context channel
    texts = [d.text for d in SEEN["prior"]["1:producer"][0].documents]
    assert texts == ['{"id": 7}', "Gergely Bornemissza"]
    response = ask(make_platform(Upstream, Dependant, router=OnlyDependant()))  # required-context channel
    assert "dependant saw {'for': 'dependant'}" in response.content
    assert '{"for": "dependant"}' not in response.content  # ...but never the answer (R-INT-2)


def test_r_cc_4_consumer_without_context_gets_an_empty_map_and_falls_back():
    response = ask(make_platform(Consumer))
    assert dict(SEEN["prior"]) == {}
    assert SEEN["prior"] is not None
    assert "General suggestions." in response.content


class Upstream(OrchestratorActivatedTool):
    name = "upstream"
    instruction = "never chosen by routing"

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        LOG.append(("start", self.name))
        docs = TextAnswer.as_set("upstream public") | InternalContextDocument.as_set('{"for": "dependant"}')
        return ToolExecutionResult.as_guaranteed_context(self.name, docs)


class Dependant(ToolDependent):
    name = "dependant"
    upstream: Injected[Upstream]

    def get_priority(self) -> int:
        return 4

    def get_required_tools(self):
        return [self.upstream]

    def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        LOG.append(("start", self.name))
        SEEN["required"] = required
        data = [d for c in required["upstream"] for d in c.documents]
        if not data:
            return None  # R-DEP-5: nothing upstream → no result
        payload = next(d for d in data if d.is_internal).to_json()
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(f"dependant saw {payload}"))


class OnlyDependant(SelectAll):
    async def select(self, prompt, candidates, *, important_words=()):
        self.offered.append([c.name for c in candidates])
        return ["dependant"]


def test_r_dep_2_required_tool_runs_before_the_dependant_even_if_not_routed():
    response = ask(make_platform(Upstream, Dependant, router=OnlyDependant()))
    assert order() == ["upstream", "dependant"]
    assert "dependant saw {'for': 'dependant'}" in response.content


def test_r_dep_4_required_context_arrives_as_a_parameter_keyed_by_tool_name():
    ask(make_platform(Upstream, Dependant, router=OnlyDependant()))
    required = SEEN["required"]
    assert list(required) == ["upstream"]
    assert {d.text for d in required["upstream"][0].documents} == {"upstream public", '{"for": "dependant"}'}


def test_r_dep_5_explicit_activation_by_name_calls_execute_with_result_with_empty_contexts():
    platform = make_platform(Upstream, Dependant)
    result = asyncio.run(platform.run_tool("dependant", ChatRequest("q")))
    assert result is None  # upstream did not run: empty required context → None
    assert dict(SEEN["required"]) == {"upstream": ()}
    result = asyncio.run(platform.run_tool("upstream", ChatRequest("q")))
    assert TextAnswer("upstream public") in result.documents


def test_r_int_2_internal_documents_never_reach_rag_or_the_answer():
    ask(make_platform(Producer, Fallback, Consumer, router=SelectNone()))
    # Nothing routed: only the fallback (priority MAX) runs, on an empty public snapshot.
    assert dict(SEEN["rag_prior"]) == {}
    LOG.clear()

    class Hidden(OrchestratorActivatedTool):
        name = "hidden"

        def get_priority(self):
            return 1

        def execute_with_result(self, *args):
            docs = InternalContextDocument.as_set("SECRET-JSON") | TextAnswer.as_set("optional public")
            return ToolExecutionResult.as_optional_context(self.name, docs)

    response = ask(make_platform(Hidden, Fallback))
    rag_prior = SEEN["rag_prior"]
    assert [d.text for c in rag_prior["1:hidden"] for d in c.documents] == ["optional public"]
    assert "SECRET-JSON" not in response.content
    # Optional context does not stop the fallback; both public texts reach the answer, the internal one does not.
    assert "optional public" in response.content and "RAG passage" in response.content


class Crashing(OrchestratorActivatedTool):
    name = "crashing"

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, *args):
        raise RuntimeError("graph store down")


class Slow(OrchestratorActivatedTool):
    name = "slow"
    timeout_s = 0.05

    def get_priority(self) -> int:
        return 1

    async def execute_with_result(self, *args):
        await asyncio.sleep(5)
        return context(self.name, "too late")


class SlowSync(OrchestratorActivatedTool):
    name = "slow_sync"
    timeout_s = 0.05

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, *args):
        time.sleep(0.5)
        return context(self.name, "too late")


def test_orchestrator_failing_and_slow_tools_are_isolated(caplog):
    platform = make_platform(Crashing, Slow, SlowSync, P5)

    async def timed():
        started = time.perf_counter()
        response = await platform.handle(ChatRequest("q"))
        return response, time.perf_counter() - started

    response, seconds = asyncio.run(timed())
    assert seconds < 0.4  # did not wait for the sync sleeper (its thread finishes on its own)
    assert "1552" in response.content and "too late" not in response.content
    assert set(response.failures) == {"1:crashing", "1:slow", "1:slow_sync"}
    logged = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any("crashing failed" in m for m in logged) and any("slow exceeded" in m for m in logged)
    assert "graph store down" in response.failures["1:crashing"]


def test_orchestrator_error_reaches_the_callback_only_when_nothing_could_answer():
    callback = CollectingCallback()
    with pytest.raises(ToolExecutionError) as info:
        asyncio.run(make_platform(Crashing, Slow).handle(ChatRequest("q"), callback=callback))
    assert set(info.value.failures) == {"1:crashing", "1:slow"}
    assert callback.error is info.value and callback.response is None


class Ingest(IngestionTool):
    name = "ingest"
    instruction = "question"

    def execute_ingestion(self, request: IngestionRequest) -> IngestionResult:
        LOG.append(("start", self.name))
        return IngestionResult(run_id="x", status="succeeded")

    def execute_with_result(self, *args):
        LOG.append(("start", self.name))
        return None


def test_r_ing_1_orchestrator_never_activates_an_ingestion_or_async_task_tool():
    from pydantic import BaseModel

    class In(BaseModel):
        x: int = 0

    class Task(AsyncTaskTool):
        name = "task"
        task_type = "task.v1"
        input_model = In

        def run(self, task_input, context):
            LOG.append(("start", self.name))

        def execute_with_result(self, *args):
            LOG.append(("start", self.name))
            return None

    router = SelectAll()
    platform = make_platform(Ingest, Task, Routed, router=router)
    ask(platform, "question")
    assert order() == ["routed"]
    assert router.offered == [["routed"]]
    with pytest.raises(Exception, match="cannot be activated from chat"):
        asyncio.run(platform.run_tool("ingest", ChatRequest("q")))


def test_orchestrator_direct_answer_is_the_final_answer():
    class Direct(OrchestratorActivatedTool):
        name = "direct"

        def get_priority(self):
            return 1

        def execute_with_result(self, *args):
            return ToolExecutionResult.as_direct_answer(self.name, "Eger held.", TextAnswer.as_set("src"))

    response = ask(make_platform(Direct, Fallback))
    assert response.content == "Eger held."
    assert "rag" not in response.tools_run


class FailingUpstream(Upstream):
    name = "failing_upstream"

    def execute_with_result(self, *args):
        raise ConnectionError("neo4j unavailable")


class DependantOnFailing(Dependant):
    name = "dependant_on_failing"
    upstream: Injected[FailingUpstream]

    def get_required_tools(self):
        return [self.upstream]

    def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        SEEN["required"] = required
        return context(self.name, "fallback of the dependant")


class OnlyDependantOnFailing(SelectAll):
    async def select(self, prompt, candidates, *, important_words=()):
        return ["dependant_on_failing"]


def test_orchestrator_dependant_still_runs_with_an_empty_context_when_its_requirement_failed():
    response = ask(make_platform(FailingUpstream, DependantOnFailing, router=OnlyDependantOnFailing()))
    assert dict(SEEN["required"]) == {"failing_upstream": ()}
    assert "fallback of the dependant" in response.content
    assert "neo4j unavailable" in response.failures["1:failing_upstream"]


class Mislabelled(OrchestratorActivatedTool):
    name = "mislabelled"

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, *args):
        return ToolExecutionResult.as_guaranteed_context("copy_pasted_name", TextAnswer.as_set("Éva Cecey."))


class ReadsMislabelled(Consumer):
    name = "reads_mislabelled"


def test_orchestrator_records_under_the_name_of_the_tool_that_ran():
    ask(make_platform(Mislabelled, ReadsMislabelled))
    assert list(SEEN["prior"]) == ["1:mislabelled"]


class OtherUpstream(OrchestratorActivatedTool):
    name = "other_upstream"
    instruction = "never chosen by routing"

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set("other upstream public"))


class Fickle(ToolDependent):
    """Requires the tool the test names for this request (R-DEP-2: requirements are asked per request)."""

    name = "fickle"
    upstream: Injected[Upstream]
    other: Injected[OtherUpstream]

    def get_priority(self) -> int:
        return 4

    def get_required_tools(self):
        wanted = SEEN.get("wanted", "upstream")
        if wanted == "raise":
            raise RuntimeError("registry unavailable")
        return [self.upstream] if wanted == "upstream" else [self.other]

    def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        SEEN.setdefault("required_keys", []).append(sorted(required))
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set("fickle ran"))


class OnlyFickle(SelectAll):
    async def select(self, prompt, candidates, *, important_words=()):
        return ["fickle"]


def test_r_dep_2_a_remembered_schedule_follows_what_each_request_required():
    # The schedule of a plan is remembered per tool set; a tool requiring another tool this time gets a schedule
    # with that one, and a request whose requirements raised isolates the tool and leaves no schedule behind.
    platform = make_platform(Upstream, OtherUpstream, Fickle, router=OnlyFickle())
    ran = []
    for wanted in ("upstream", "other", "raise", "other", "upstream"):
        SEEN["wanted"] = wanted
        if wanted == "raise":  # its get_required_tools() raised: isolated, nothing else could answer
            with pytest.raises(ToolExecutionError) as info:
                ask(platform)
            assert set(info.value.failures) == {"1:fickle"}
            continue
        ran.append(ask(platform).tools_run)
    assert ran == [["upstream", "fickle"], ["other_upstream", "fickle"], ["other_upstream", "fickle"],
                   ["upstream", "fickle"]]
    assert SEEN["required_keys"] == [["upstream"], ["other_upstream"], ["other_upstream"], ["upstream"]]


class LateUpstream(OrchestratorActivatedTool):
    name = "late_upstream"

    def get_priority(self) -> int:
        return 2

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set("late upstream public"))


class EarlyFickle(ToolDependent, OrchestratorActivatedTool):
    """Priority 1, but after its required tool of priority 2 when it requires it this request."""

    name = "early_fickle"
    late: Injected[LateUpstream]

    def get_priority(self) -> int:
        return 1

    def get_required_tools(self):
        return [self.late] if SEEN.get("wanted") == "late" else []

    def execute_with_required_context(self, systems, prompt, lang, words, required, emitter, callback):
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set("early fickle ran"))


def test_r_dep_2_the_same_tools_with_other_requirements_are_scheduled_anew():
    platform = make_platform(LateUpstream, EarlyFickle)
    orders = []
    for wanted in ("late", "none", "late"):
        SEEN["wanted"] = wanted
        orders.append(ask(platform).tools_run)
    assert orders == [["late_upstream", "early_fickle"], ["early_fickle", "late_upstream"],
                      ["late_upstream", "early_fickle"]]
