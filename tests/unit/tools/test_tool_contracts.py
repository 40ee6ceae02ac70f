from __future__ import annotations

import pytest

from tools.contracts import (
    PRIORITY_MAX,
    AgentCoordinator,
    ChatbotTool,
    ClarifiableContextConsumerTool,
    ClarifiableTool,
    ContextConsumerTool,
    OrchestratorActivatedTool,
    OrchestratorTool,
)
from tools.errors import ToolContractError
from tools.ingestion import IngestionRequest, IngestionResult, IngestionTool
from tools.orchestrator import AbstractOrchestratorTool
from tools.request import ChatRequest
from tools.streaming import CollectingCallback, ResponseEmitter


class Asker(ClarifiableTool):
    name = "asker"

    def execute_with_result(self, *args):
        return None

    def execute_with_clarification(self, *args):
        return None


class Consumer(ContextConsumerTool):
    name = "consumer"

    def get_priority(self):
        return 1

    def execute_with_prior_context(self, *args):
        return None


class AskingConsumer(ClarifiableContextConsumerTool):
    name = "asking_consumer"

    def execute_with_prior_context(self, *args):
        return None

    def execute_with_clarification_and_prior_context(self, *args):
        return None


def test_r_type_1_clarifiable_tool_is_chatbot_and_orchestrator_activated():
    assert issubclass(ClarifiableTool, ChatbotTool)
    assert issubclass(ClarifiableTool, OrchestratorActivatedTool)
    assert isinstance(Asker(), OrchestratorActivatedTool)


def test_r_prio_1_orchestrator_activated_tool_without_get_priority_fails_at_class_definition():
    with pytest.raises(TypeError, match=r"NoPriority.*get_priority"):

        class NoPriority(OrchestratorActivatedTool):
            name = "no_priority"

            def execute_with_result(self, *args):
                return None


def test_r_prio_5_priority_max_is_java_integer_max_value():
    assert PRIORITY_MAX == 2**31 - 1 == 2147483647


def test_r_plug_1_tool_with_required_constructor_argument_fails_at_class_definition():
    with pytest.raises(TypeError, match=r"NeedsArgs.*no-argument constructor.*\['store'\]") as info:

        class NeedsArgs(ChatbotTool):
            name = "needs_args"

            def __init__(self, store):
                self.store = store

            def execute_with_result(self, *args):
                return None

    assert isinstance(info.value, ToolContractError) and info.value.tool_name.endswith("NeedsArgs")


def test_r_plug_1_optional_constructor_arguments_are_allowed():
    class Optional(ChatbotTool):
        name = "optional"

        def __init__(self, limit: int = 3):
            self.limit = limit

        def execute_with_result(self, *args):
            return None

    assert Optional().limit == 3


def test_contracts_concrete_tool_needs_a_name():
    with pytest.raises(ToolContractError, match="Nameless.*name"):

        class Nameless(ChatbotTool):
            def execute_with_result(self, *args):
                return None


def test_contracts_abstract_base_may_leave_methods_open():
    class AbstractDomainTool(OrchestratorActivatedTool, abstract=True):
        def set_store(self, store):
            self._store = store

    assert AbstractDomainTool.is_abstract_contract


def test_r_clar_3_clarifiable_priority_defaults_to_zero_and_domain_to_none():
    assert Asker().get_priority() == 0
    assert Asker().get_domain() is None


def test_r_cc_3_context_free_call_on_a_context_consumer_raises():
    with pytest.raises(NotImplementedError, match="R-CC-3"):
        Consumer().execute_with_result([], "q", "en", [], ResponseEmitter(), CollectingCallback())


def test_r_cc_5_context_free_clarification_on_clarifiable_consumer_raises():
    with pytest.raises(NotImplementedError, match="R-CC-5"):
        AskingConsumer().execute_with_clarification(None, [], "q", "en", [], ResponseEmitter(), CollectingCallback())
    with pytest.raises(NotImplementedError, match="R-CC-3"):
        AskingConsumer().execute_with_result([], "q", "en", [], ResponseEmitter(), CollectingCallback())


def test_r_ot_2_abstract_orchestrator_tool_is_chatbot_tool_and_orchestrator_tool():
    assert issubclass(AbstractOrchestratorTool, ChatbotTool)
    assert issubclass(AbstractOrchestratorTool, OrchestratorTool)


def test_r_ot_5_orchestrator_with_constructor_arguments_fails_at_class_definition():
    with pytest.raises(TypeError, match="BadOrchestrator"):

        class BadOrchestrator(AbstractOrchestratorTool):
            name = "bad"

            def __init__(self, llm):
                super().__init__()


def test_chatbot_tool_is_eligible_checks_domain_and_permissions():
    class Secret(ChatbotTool):
        name = "secret"
        domain = "egri"
        required_permissions = frozenset({"read:graph"})

        def execute_with_result(self, *args):
            return None

    tool = Secret()
    assert tool.is_eligible(ChatRequest("q", domain="egri", permissions=frozenset({"read:graph", "x"})))
    assert not tool.is_eligible(ChatRequest("q", domain="other", permissions=frozenset({"read:graph"})))
    assert not tool.is_eligible(ChatRequest("q", domain="egri"))


def test_agent_coordinator_must_implement_decompose():
    with pytest.raises(TypeError, match="decompose"):

        class Lazy(AgentCoordinator):
            name = "lazy"

            def get_priority(self):
                return 1


class Loader(IngestionTool):
    name = "loader"

    def execute_ingestion(self, request: IngestionRequest) -> IngestionResult:
        return IngestionResult(run_id=request.run_id or "r1", status="succeeded")


def test_ingestion_contract_stubs_and_is_never_eligible():
    tool = Loader()
    assert tool.execute_with_result([], "q", "en", [], ResponseEmitter(), CollectingCallback()) is None
    assert not tool.is_eligible(ChatRequest("q"))
    result = tool.execute_ingestion(IngestionRequest(inputs=["novel.txt"], run_id="r7"))
    assert (result.run_id, result.status, result.stages) == ("r7", "succeeded", [])
    assert IngestionRequest(inputs=["a"]).stages is None
