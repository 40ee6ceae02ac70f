from __future__ import annotations

import logging
from importlib import metadata

import pytest

from settings.chat import OrchestratorSettings
from tests.unit.tools.test_analysis_tools import _services, graph  # noqa: F401 - graph: the tiny book's fixture
from tools.contracts import ChatbotTool, OrchestratorActivatedTool, ToolDependent
from tools.documents import TextAnswer, ToolExecutionResult
from tools.errors import DuplicateToolError, MissingDependencyError, ToolError, UnknownToolError
from tools.plugins import Injected, ToolContainer, ToolRegistry


class GraphStore:
    def __init__(self, name: str) -> None:
        self.name = name


class Echo(ChatbotTool):
    name = "echo"

    def execute_with_result(self, *args):
        return None


class OtherEcho(ChatbotTool):
    name = "echo"

    def execute_with_result(self, *args):
        return None


class AbstractGraphTool(OrchestratorActivatedTool, abstract=True):
    """A platform base with a protected setter, like AbstractEntityAnalysisTool."""

    def _set_graph_store(self, store: GraphStore) -> None:
        self._store = store


class CharacterTool(AbstractGraphTool):
    name = "character"
    store: Injected[GraphStore]
    settings: Injected[OrchestratorSettings | None]

    def __init__(self) -> None:
        self.init_saw_store = None

    def init(self) -> None:
        self.init_saw_store = self.store
        self._set_graph_store(self.store)

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, *args):
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(self._store.name))


class SummaryTool(AbstractGraphTool):
    name = "summary"
    store: Injected[GraphStore]

    def init(self) -> None:
        self._set_graph_store(self.store)

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, *args):
        return None


class Upstream(OrchestratorActivatedTool):
    name = "upstream"

    def get_priority(self) -> int:
        return 2

    def execute_with_result(self, *args):
        return None


class WrongOrderDependant(ToolDependent):
    name = "wrong_order"
    upstream: Injected[Upstream]

    def get_priority(self) -> int:
        return 2  # equal, not strictly greater

    def get_required_tools(self):
        return [self.upstream]

    def execute_with_required_context(self, *args):
        return None


class DependantOfDependant(ToolDependent):
    name = "second_level"
    first: Injected[WrongOrderDependant]

    def get_priority(self) -> int:
        return 5

    def get_required_tools(self):
        return [self.first]

    def execute_with_required_context(self, *args):
        return None


class NameInsteadOfInstance(ToolDependent):
    name = "by_name"

    def get_priority(self) -> int:
        return 9

    def get_required_tools(self):
        return ["upstream"]

    def execute_with_required_context(self, *args):
        return None


def test_registry_refuses_a_second_class_under_a_taken_name():
    registry = ToolRegistry(entry_point_group=None)
    registry.register(Echo)
    registry.register(Echo)  # the same class again is harmless
    with pytest.raises(DuplicateToolError, match=r"'echo' is taken by .*Echo.*OtherEcho"):
        registry.register(OtherEcho)


def test_registry_unknown_name_lists_registered():
    registry = ToolRegistry(entry_point_group=None)
    registry.register(Echo)
    with pytest.raises(UnknownToolError, match=r"no tool named 'nope'; registered: \['echo'\]"):
        registry.get_class("nope")


def test_registry_refuses_abstract_bases():
    with pytest.raises(TypeError, match="abstract base"):
        ToolRegistry(entry_point_group=None).register(AbstractGraphTool)


class _EntryPoint:
    def __init__(self, name: str, value: object) -> None:
        self.name, self.value, self._value = name, f"plugin:{name}", value
        self.loads = 0

    def load(self) -> object:
        self.loads += 1
        if isinstance(self._value, Exception):
            raise self._value
        return self._value


def test_registry_loads_entry_points_once_lazily(monkeypatch):
    point = _EntryPoint("echo_plugin", [Echo])
    groups: list[str] = []

    def fake_entry_points(group: str):
        groups.append(group)
        return [point]

    monkeypatch.setattr(metadata, "entry_points", fake_entry_points)
    registry = ToolRegistry()
    assert point.loads == 0  # lazy: nothing loaded at construction
    assert registry.get_class("echo") is Echo
    registry.classes()
    assert point.loads == 1 and set(groups) == {"csillag.tools"}


def test_registry_get_class_loads_the_entry_point_of_that_name_alone_until_the_classes_are_listed(monkeypatch):
    # A job that asks for one tool imports that plugin only; listing the classes loads the rest, collisions refused.
    named, other = _EntryPoint("echo", [Echo]), _EntryPoint("other_plugin", [Echo])
    monkeypatch.setattr(metadata, "entry_points", lambda group: [named, other])
    registry = ToolRegistry()
    assert registry.get_class("echo") is Echo
    assert (named.loads, other.loads) == (1, 0)
    registry.classes()
    assert (named.loads, other.loads) == (1, 1)  # the same class again under its name: no collision
    clash = _EntryPoint("clash", [type("Echo2", (Echo,), {"name": "echo"})])
    monkeypatch.setattr(metadata, "entry_points", lambda group: [named, clash])
    fresh = ToolRegistry()
    assert fresh.get_class("echo") is Echo
    with pytest.raises(DuplicateToolError, match="'echo'"):
        fresh.classes()


def test_registry_broken_plugin_names_the_entry_point(monkeypatch):
    point = _EntryPoint("broken", ImportError("No module named 'spacy_magic'"))
    monkeypatch.setattr(metadata, "entry_points", lambda group: [point])
    with pytest.raises(ToolError, match=r"'broken'.*spacy_magic"):
        ToolRegistry().classes()


def _container(*classes: type, services=()) -> ToolContainer:
    registry = ToolRegistry(entry_point_group=None)
    for cls in classes:
        registry.register(cls)
    return ToolContainer(registry, services)


def test_r_plug_2_injected_fields_are_filled_before_init_which_wires_the_setter():
    store = GraphStore("egri")
    container = _container(CharacterTool, services=[store]).start()
    tool = container.get("character")
    assert tool.init_saw_store is store
    assert tool._store is store
    assert tool.settings is None  # optional and not provided
    result = tool.execute_with_result([], "q", "en", [], None, None)
    assert result.documents == {TextAnswer("egri")}


def test_r_plug_2_missing_dependency_names_tool_field_and_type():
    with pytest.raises(MissingDependencyError, match=r"'character'.*'store'.*GraphStore") as info:
        _container(CharacterTool).start()
    assert (info.value.tool_name, info.value.field) == ("character", "store")


def test_r_ref_1_sibling_tools_share_the_no_arg_plus_init_pattern():
    store = GraphStore("egri_csillagok")
    container = _container(CharacterTool, SummaryTool, services=[store]).start()
    assert container.get("character")._store is container.get("summary")._store is store


def test_plugins_tools_are_singletons():
    container = _container(Echo).start()
    assert container.get("echo") is container.get("echo")
    assert container.tools() == [container.get("echo")]


def test_r_dep_3_wrong_priority_order_is_logged_as_an_error_and_the_dependant_still_runs(caplog):
    # The original: "induláskor a platform ellenőrzi ezt, és hibát naplóz" — it checks at start-up and logs an error;
    # it does not disable the tool (docs/orchestrator.md, R-DEP-3).
    caplog.set_level(logging.ERROR, logger="tools.plugins")
    container = _container(Upstream, WrongOrderDependant, DependantOfDependant, Echo).start()
    assert container.disabled == {}
    messages = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any("wrong_order" in m and "'upstream'" in m and "R-DEP-3" in m for m in messages)
    assert sorted(t.get_name() for t in container.tools()) == ["echo", "second_level", "upstream", "wrong_order"]


class _CycleMember(ToolDependent, abstract=True):
    container: Injected[ToolContainer]
    other_name = ""

    def get_priority(self) -> int:
        return 3

    def get_required_tools(self):
        return [self.container.find(self.other_name)]

    def execute_with_required_context(self, *args):
        return None


class CycleA(_CycleMember):
    name, other_name = "cycle_a", "cycle_b"


class CycleB(_CycleMember):
    name, other_name = "cycle_b", "cycle_a"


def test_r_dep_3_a_dependency_cycle_disables_every_tool_on_it(caplog):
    caplog.set_level(logging.ERROR, logger="tools.plugins")
    container = _container(CycleA, CycleB, Echo).start()
    assert sorted(container.disabled) == ["cycle_a", "cycle_b"]
    assert "dependency cycle" in container.disabled["cycle_a"]
    assert [t.get_name() for t in container.tools()] == ["echo"]
    with pytest.raises(UnknownToolError, match="disabled"):
        container.get("cycle_a")


def test_r_dep_1_required_tools_must_be_instances_not_names():
    container = _container(Upstream, NameInsteadOfInstance).start()
    assert "R-DEP-1" in container.disabled["by_name"]


class _Loader(ChatbotTool, abstract=True):
    """A plugin type with one implementation per domain (as the NER ingestion tools are)."""

    def execute_with_result(self, *args, **kwargs):
        return None


class _GenericLoader(_Loader):
    name = "generic_loader"


class _DomainLoader(_Loader):
    name = "domain_loader"
    domain = "novel"


class _NovelUser(ChatbotTool):
    name = "novel_user"
    domain = "novel"
    loader: Injected[_Loader | None]

    def execute_with_result(self, *args, **kwargs):
        return None


class _OtherUser(_NovelUser):
    name = "other_user"
    domain = "other"


class _TwoGenerics(_Loader):
    name = "second_generic_loader"


def test_r_plug_2_injection_prefers_the_requesters_domain_then_the_domain_independent_tool():
    registry = ToolRegistry(entry_point_group=None)
    for cls in (_GenericLoader, _DomainLoader, _NovelUser, _OtherUser):
        registry.register(cls)
    container = ToolContainer(registry).start()
    assert isinstance(container.get("novel_user").loader, _DomainLoader)
    assert isinstance(container.get("other_user").loader, _GenericLoader)


def test_r_plug_2_injection_still_refuses_a_truly_ambiguous_type():
    registry = ToolRegistry(entry_point_group=None)
    for cls in (_GenericLoader, _TwoGenerics, _OtherUser):
        registry.register(cls)
    with pytest.raises(MissingDependencyError, match="several tools match injected type _Loader"):
        ToolContainer(registry).start()


def test_r_ref_1_real_egri_tools_are_built_without_arguments_and_init_calls_their_base_class_setters(
    monkeypatch, graph  # noqa: F811 - the imported fixture
):
    # The real reference classes (not stand-ins): each is built with no argument, gets its fields injected, and its
    # init() hands them to the protected setters of its own base class (R-REF-1, R-PLUG-1, R-PLUG-2).
    from tools.analysis.base import AnalysisCollaborators
    from tools.analysis.context_search import AbstractContextSearchTool
    from tools.analysis.entity import AbstractEntityAnalysisTool
    from tools.analysis.summary import AbstractSummaryTool
    from tools.domains.egri_csillagok import (
        TOOLS,
        EgriCsillagokCharacterTool,
        EgriCsillagokContextSearchTool,
        EgriCsillagokSummaryTool,
    )
    from tools.platform import ChatPlatform

    calls: dict[str, dict[str, object]] = {}
    for setter in ("set_graph_store", "set_retriever", "set_unit_catalog", "set_domain_settings",
                   "set_ner_ingestion_tool", "set_assistant"):
        original = getattr(AnalysisCollaborators, setter)

        def spy(self, value, _original=original, _setter=setter):
            calls.setdefault(self.name, {})[_setter] = value
            return _original(self, value)

        monkeypatch.setattr(AnalysisCollaborators, setter, spy)
    store = graph
    domain, _, retriever, units = services = _services(store, "hu")
    registry = ToolRegistry(entry_point_group=None)
    for cls in TOOLS:
        registry.register(cls)
    container = ChatPlatform(registry, services=services).start().container
    for cls, base, own in (
        (EgriCsillagokCharacterTool, AbstractEntityAnalysisTool, {"set_graph_store": store}),
        (EgriCsillagokSummaryTool, AbstractSummaryTool, {"set_graph_store": store, "set_unit_catalog": units}),
        (EgriCsillagokContextSearchTool, AbstractContextSearchTool, {"set_retriever": retriever}),
    ):
        assert issubclass(cls, base) and cls().get_name() == cls.name  # a public no-argument constructor
        tool = container.get(cls.name)
        assert type(tool) is cls
        for setter, service in {**own, "set_domain_settings": domain}.items():
            assert calls[cls.name][setter] is service, (cls.name, setter)
    assert container.get("characters").graph is store
    assert container.get("summary").units is units
    assert container.get("context_search").retriever is retriever
