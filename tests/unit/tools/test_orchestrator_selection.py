from __future__ import annotations

import pytest

from tests.unit.tools.tooltest_helpers import SelectAll, ask, make_platform
from tools.contracts import OrchestratorActivatedTool
from tools.documents import TextAnswer, ToolExecutionResult
from tools.errors import ToolContractError
from tools.orchestrator import AbstractOrchestratorTool, DefaultOrchestrator
from tools.request import ChatRequest

CREATED: list[tuple[str, int]] = []


class Tracking(AbstractOrchestratorTool, abstract=True):
    def init(self) -> None:
        CREATED.append((self.name, id(self)))


class EgriOrchestrator(Tracking):
    name = "egri_orchestrator"
    domain = "egri"


class EgriArchiveOrchestrator(Tracking):
    name = "egri_archive_orchestrator"
    domain = "egri"
    eligible_system = "archive"


class WarOrchestrator(Tracking):
    name = "war_orchestrator"
    domain = "war_and_peace"
    tool_names = ("war_only",)


class WarOnly(OrchestratorActivatedTool):
    name = "war_only"

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, *args):
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set("Pierre Bezukhov."))


class Other(OrchestratorActivatedTool):
    name = "other"

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, *args):
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set("Other output."))


@pytest.fixture(autouse=True)
def _clear():
    CREATED.clear()


def test_r_ot_1_orchestrator_is_chosen_by_domain_without_routing():
    router = SelectAll()
    platform = make_platform(EgriOrchestrator, WarOrchestrator, WarOnly, Other, router=router).start()
    CREATED.clear()  # start-up builds one instance of each to read its domain and system (R-OT-4)
    response = ask(platform, "Who is Pierre?", domain="war_and_peace")
    assert [name for name, _ in CREATED] == ["war_orchestrator"]
    assert response.tools_run == ["war_only"]  # the orchestrator's own tool list
    # Routing never saw an orchestrator.
    assert all("orchestrator" not in name for offered in router.offered for name in offered)
    assert platform.select_orchestrator(ChatRequest("q", domain="unknown")) is DefaultOrchestrator


def test_r_ot_3_every_request_gets_a_fresh_orchestrator():
    platform = make_platform(EgriOrchestrator, Other).start()
    CREATED.clear()
    ask(platform, domain="egri")
    ask(platform, domain="egri")
    assert len(CREATED) == 2 and CREATED[0][1] != CREATED[1][1]


def test_r_ot_4_one_orchestrator_per_request_told_apart_by_eligible_system():
    platform = make_platform(EgriOrchestrator, EgriArchiveOrchestrator, Other).start()
    CREATED.clear()
    select = platform.select_orchestrator
    assert select(ChatRequest("q", domain="egri", systems=("archive",))) is EgriArchiveOrchestrator
    assert select(ChatRequest("q", domain="egri", systems=("chat",))) is EgriOrchestrator
    ask(platform, domain="egri", systems=("archive",))
    assert [name for name, _ in CREATED] == ["egri_archive_orchestrator"]


def test_r_ot_4_two_orchestrators_for_one_domain_and_system_are_a_start_up_error_naming_both():
    class Twin(Tracking):
        name = "egri_twin"
        domain = "egri"

    platform = make_platform(EgriOrchestrator, Twin)
    with pytest.raises(ToolContractError, match=r"EgriOrchestrator.*Twin.*'egri'.*R-OT-4"):
        platform.start()


class ByMethodChat(AbstractOrchestratorTool):
    """Written as the spec describes: the domain and the system come from overridden getters, not attributes."""

    name = "by_method_chat"

    def get_domain(self) -> str | None:
        return "egri"

    def get_eligible_system(self) -> str | None:
        return "chat"


class ByMethodArchive(AbstractOrchestratorTool):
    name = "by_method_archive"

    def get_domain(self) -> str | None:
        return "egri"

    def get_eligible_system(self) -> str | None:
        return self.settings.__class__.__name__ and "archive"  # an injected field is readable here


def test_r_ot_4_selection_honours_overridden_get_domain_and_get_eligible_system():
    platform = make_platform(ByMethodChat, ByMethodArchive, Other).start()
    select = platform.select_orchestrator
    assert select(ChatRequest("q", domain="egri", systems=("archive",))) is ByMethodArchive
    assert select(ChatRequest("q", domain="egri", systems=("chat",))) is ByMethodChat
    assert select(ChatRequest("q", domain="other", systems=("chat",))) is DefaultOrchestrator
    response = ask(platform, domain="egri", systems=("archive",))
    assert response.tools_run == ["other"]


def test_r_ot_4_several_matching_systems_pick_the_first_of_the_request_not_a_failure():
    platform = make_platform(ByMethodChat, ByMethodArchive, Other).start()
    select = platform.select_orchestrator
    assert select(ChatRequest("q", domain="egri", systems=("archive", "chat"))) is ByMethodArchive
    assert select(ChatRequest("q", domain="egri", systems=("chat", "archive"))) is ByMethodChat


def test_r_ot_5_plugin_orchestrator_is_built_without_arguments_and_injected():
    platform = make_platform(EgriOrchestrator, Other)
    orchestrator = platform.container.new_orchestrator(EgriOrchestrator)
    assert orchestrator.container is platform.container
    assert orchestrator.sessions is platform.sessions


def test_platform_from_settings_picks_the_llm_pieces_when_an_endpoint_is_set():
    from settings.config import CsillagSettings
    from tools.llm.composer import ExtractiveComposer, LlmComposer
    from tools.llm.router import LexicalRouter, LlmRouter
    from tools.platform import ChatPlatform
    from tools.plugins import ToolRegistry

    offline = ChatPlatform.from_settings(CsillagSettings(), ToolRegistry(entry_point_group=None))  # no lakehouse
    orchestrator = offline.container.new_orchestrator(DefaultOrchestrator)
    assert isinstance(orchestrator.router, LexicalRouter) and isinstance(orchestrator.composer, ExtractiveComposer)
    online = ChatPlatform.from_settings(CsillagSettings(llm={"base_url": "http://127.0.0.1:9/v1"}),
                                        ToolRegistry(entry_point_group=None))
    orchestrator = online.container.new_orchestrator(DefaultOrchestrator)
    assert isinstance(orchestrator.router, LlmRouter) and isinstance(orchestrator.composer, LlmComposer)
    assert orchestrator.settings.clarification_ttl_s == CsillagSettings().orchestrator.clarification_ttl_s
