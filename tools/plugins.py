"""Tool discovery, the registry and dependency injection (R-PLUG-1, R-PLUG-2, R-OT-3, R-OT-4, R-OT-5, R-DEP-3).

The platform's Spring pattern in Python: every tool class has a no-argument constructor; its dependencies are
typed fields marked ``Injected[...]``; after construction the container fills them and calls ``init()``
(``@Autowired`` + ``@PostConstruct``). Tools are singletons; orchestrators are built fresh for every request
(prototype scope). External plugins register through the entry-point group ``csillag.tools`` (each entry point
names a tool class, or a list of them), loaded once, lazily — as spaCy's catalogue registries do.

Injected fields are resolved by type: the container itself, an explicitly provided service (``provide``), or the
one registered tool instance of that type. ``Injected[T | None]`` is optional. Because annotations are evaluated with
``typing.get_type_hints``, the field types must be importable at module level (not only under TYPE_CHECKING).
"""

from __future__ import annotations

import logging
import threading
import types
import typing
from collections.abc import Iterable
from importlib import metadata
from typing import Any, TypeVar

from tools.contracts import PRIORITY_MAX, ChatbotTool, OrchestratorActivatedTool, OrchestratorTool, ToolDependent
from tools.errors import DuplicateToolError, MissingDependencyError, ToolContractError, ToolError, UnknownToolError

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "csillag.tools"
T = TypeVar("T")
ToolT = TypeVar("ToolT", bound=type[ChatbotTool])


class _InjectMarker:
    def __repr__(self) -> str:
        return "INJECT"


INJECT = _InjectMarker()


Injected = typing.Annotated[T, INJECT]
"""``field: Injected[SomeType]`` marks a field the container fills before ``init()`` (Java ``@Autowired``)."""


class ToolRegistry:
    """Tool classes by name; refuses a second class under a taken name (as dqx's action registry does)."""

    def __init__(self, entry_point_group: str | None = ENTRY_POINT_GROUP) -> None:
        self._classes: dict[str, type[ChatbotTool]] = {}
        self._group = entry_point_group
        self._loaded = entry_point_group is None
        self._points: set[tuple[str, str]] = set()  # (name, value) of the entry points loaded
        self._lock = threading.RLock()

    def register(self, tool_class: ToolT) -> ToolT:
        """Register a tool or orchestrator class; usable as a class decorator.

        Raises:
            ToolContractError: not a concrete ChatbotTool class.
            DuplicateToolError: another class already has this name.
        """
        if not isinstance(tool_class, type) or not issubclass(tool_class, ChatbotTool):
            raise ToolContractError(f"only ChatbotTool classes can be registered, got {tool_class!r}")
        if tool_class.is_abstract_contract:
            raise ToolContractError(f"{tool_class.__qualname__} is an abstract base; register a concrete tool class")
        with self._lock:
            taken = self._classes.get(tool_class.name)
            if taken is not None and taken is not tool_class:
                raise DuplicateToolError(
                    f"tool name {tool_class.name!r} is taken by {taken.__module__}.{taken.__qualname__}; "
                    f"cannot register {tool_class.__module__}.{tool_class.__qualname__} under it",
                    tool_name=tool_class.name,
                )
            self._classes[tool_class.name] = tool_class
        return tool_class

    def load_entry_points(self) -> None:
        """Load the ``csillag.tools`` entry points once; later calls do nothing."""
        with self._lock:
            if self._loaded:
                return
            self._loaded = True
            self._load(metadata.entry_points(group=self._group or ENTRY_POINT_GROUP))

    def _load(self, entry_points: Iterable[metadata.EntryPoint]) -> None:
        for entry_point in entry_points:
            if (entry_point.name, entry_point.value) in self._points:  # loaded already, by name (``get_class``)
                continue
            self._points.add((entry_point.name, entry_point.value))
            try:
                loaded = entry_point.load()
            except (ImportError, AttributeError) as exc:
                where = f"{entry_point.name!r} ({entry_point.value})"
                raise ToolError(f"cannot load tool plugin {where}: {exc}") from exc
            for tool_class in loaded if isinstance(loaded, list | tuple) else [loaded]:
                self.register(tool_class)
            logger.info("loaded tool plugin %s from %s", entry_point.name, entry_point.value)

    def classes(self) -> dict[str, type[ChatbotTool]]:
        """Every registered class by name, entry points included."""
        self.load_entry_points()
        with self._lock:
            return dict(self._classes)

    def get_class(self, name: str) -> type[ChatbotTool]:
        """The class registered under ``name``.

        Before the entry points are loaded, those *named* ``name`` are loaded first, and alone if one of them
        registers it: a job that asks for one tool (``csillag pipeline``'s ingestion tool) then imports its plugin
        only, not every domain's chat tools (~0.7 s before a run can start Spark). Every entry point is still
        loaded, and collisions refused, as soon as anything lists the classes.
        """
        with self._lock:
            if name not in self._classes and not self._loaded and self._group is not None:
                self._load(ep for ep in metadata.entry_points(group=self._group) if ep.name == name)
            found = self._classes.get(name)
        if found is not None:
            return found
        classes = self.classes()
        if name not in classes:
            raise UnknownToolError(f"no tool named {name!r}; registered: {sorted(classes)}", tool_name=name)
        return classes[name]


default_registry = ToolRegistry()
"""The process-wide registry that entry-point plugins and ``register_tool`` fill."""


def register_tool(tool_class: ToolT) -> ToolT:
    """Class decorator registering into ``default_registry``."""
    return default_registry.register(tool_class)


_Plan = list[tuple[str, Any, bool]]  # (field, type, optional)


def _injection_plan(cls: type) -> _Plan:
    hints = typing.get_type_hints(cls, include_extras=True)
    plan: _Plan = []
    for field_name, hint in hints.items():
        if typing.get_origin(hint) is not typing.Annotated or INJECT not in hint.__metadata__:
            continue
        wanted = typing.get_args(hint)[0]
        optional = False
        if typing.get_origin(wanted) in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(wanted) if a is not type(None)]
            optional = len(members) < len(typing.get_args(wanted))
            wanted = members[0] if len(members) == 1 else wanted
        plan.append((field_name, wanted, optional))
    return plan


class ToolContainer:
    """Builds, injects and holds the tools; builds a fresh orchestrator per request.

    ``start()`` loads the plugins, constructs one instance per tool class, fills injected fields, calls ``init()``
    and validates the tool set: a dependant whose required tool has no strictly smaller priority is logged as an
    error naming both and keeps running — the orchestrator still runs the requirement first (R-DEP-3, R-DEP-2); a
    priority outside 0..PRIORITY_MAX, a requirement that is no tool instance (R-DEP-1) or disabled, and a dependency
    cycle disable the tool. An orchestrator listing a disabled or unknown tool is logged and runs without it. Each
    orchestrator's domain and eligible system are read from an instance (``get_domain()``,
    ``get_eligible_system()``); two orchestrators for the same pair fail start-up naming both (R-OT-4).
    """

    def __init__(self, registry: ToolRegistry | None = None, services: Iterable[object] = ()) -> None:
        self.registry = registry if registry is not None else default_registry
        self._services: list[object] = [self]
        self._services.extend(services)
        self._tools: dict[str, ChatbotTool] = {}
        self._orchestrators: dict[str, type[ChatbotTool]] = {}
        self._orchestrator_keys: list[tuple[type[ChatbotTool], str | None, str | None]] = []
        self.disabled: dict[str, str] = {}
        self._plans: dict[type, _Plan] = {}
        self._resolved: dict[Any, Any] = {}
        self._memo: dict[Any, Any] = {}
        self._started = False
        self._lock = threading.Lock()

    def provide(self, service: object) -> None:
        """Make ``service`` available to injected fields of its type (and its base types)."""
        self._services.append(service)
        self._resolved.clear()
        self._memo.clear()

    def start(self) -> ToolContainer:
        """Instantiate, inject, init and validate every registered tool; idempotent."""
        with self._lock:
            if self._started:
                return self
            for name, cls in self.registry.classes().items():
                if issubclass(cls, OrchestratorTool):
                    self._orchestrators[name] = cls
                else:
                    self._tools[name] = cls()
            for tool in self._tools.values():
                self.inject(tool, call_init=False)
            for tool in self._tools.values():
                tool.init()
            self._validate()
            self._orchestrator_keys = self._index_orchestrators()
            self._started = True
        logger.info("tool container started: %d tools, %d orchestrators, %d disabled", len(self._tools),
                    len(self._orchestrators), len(self.disabled))
        return self

    def inject(self, instance: Any, *, call_init: bool = True) -> Any:
        """Fill ``instance``'s injected fields, then call its ``init()`` hook.

        Raises:
            MissingDependencyError: naming the tool, the field and its type.
        """
        cls = type(instance)
        plan = self._plans.get(cls)
        if plan is None:
            plan = self._plans[cls] = _injection_plan(cls)
        for field_name, wanted, optional in plan:
            domain = instance.get_domain() if isinstance(instance, ChatbotTool) else None
            value = self._resolve(wanted, domain)
            if value is None and not optional:
                tool_name = getattr(instance, "name", cls.__qualname__)
                raise MissingDependencyError(
                    f"tool {tool_name!r} ({cls.__qualname__}) needs field {field_name!r} of type "
                    f"{getattr(wanted, '__qualname__', wanted)}, but nothing provides it; provide a service of that "
                    "type or register a tool of that class",
                    tool_name=tool_name,
                    field=field_name,
                )
            setattr(instance, field_name, value)
        if call_init and hasattr(instance, "init"):
            instance.init()
        return instance

    def _resolve(self, wanted: Any, domain: str | None = None) -> Any:
        # Resolution is cached: orchestrators are injected on every request and Protocol isinstance checks are slow.
        try:
            return self._resolved[(wanted, domain)]
        except KeyError:
            pass
        except TypeError:  # an unhashable annotation
            return self._lookup(wanted, domain)
        value = self._lookup(wanted, domain)
        if self._started:
            self._resolved[(wanted, domain)] = value
        return value

    def _lookup(self, wanted: Any, domain: str | None = None) -> Any:
        if not isinstance(wanted, type):
            return None
        for service in reversed(self._services):  # later provisions override earlier ones
            if isinstance(service, wanted):
                return service
        matches = [tool for tool in self._tools.values() if isinstance(tool, wanted)]
        if len(matches) > 1:
            # Several plugins of one type (e.g. an ingestion tool per domain): the requester's own domain's one wins,
            # else the one domain-independent tool.
            for preferred in (domain, None):
                chosen = [tool for tool in matches if tool.get_domain() == preferred]
                if len(chosen) == 1:
                    return chosen[0]
            names = sorted(t.get_name() for t in matches)
            raise MissingDependencyError(f"several tools match injected type {wanted.__qualname__}: {names}")
        return matches[0] if matches else None

    def _validate(self) -> None:
        for tool in self._tools.values():
            if isinstance(tool, OrchestratorActivatedTool):
                priority = tool.get_priority()
                if not isinstance(priority, int) or not 0 <= priority <= PRIORITY_MAX:
                    self._disable(tool, f"priority {priority!r} is not an int in 0..{PRIORITY_MAX} (R-PRIO-1)")
        self._disable_cycles()
        changed = True
        while changed:  # a dependant of a disabled tool is disabled too
            changed = False
            for tool in self._tools.values():
                if not isinstance(tool, ToolDependent) or tool.get_name() in self.disabled:
                    continue
                reason = self._dependency_problem(tool)
                if reason:
                    self._disable(tool, reason)
                    changed = True

    def _dependency_problem(self, tool: ToolDependent) -> str | None:
        for required in tool.get_required_tools():
            if not isinstance(required, OrchestratorActivatedTool):
                return f"required tool {required!r} is not an OrchestratorActivatedTool instance (R-DEP-1)"
            if required.get_name() in self.disabled:
                return f"required tool {required.get_name()!r} is disabled"
        for required in tool.get_required_tools():
            if required.get_priority() >= tool.get_priority():
                # R-DEP-3 as the original words it: the platform logs an error; the tool is not disabled, and the
                # orchestrator still runs the requirement before it (tools.scheduling, R-DEP-2).
                logger.error(
                    "tool %s: required tool %r has priority %s, not strictly lower than its own %s (R-DEP-3); "
                    "it runs after its requirement, outside its priority group",
                    tool.get_name(), required.get_name(), required.get_priority(), tool.get_priority())
        return None

    def _disable_cycles(self) -> None:
        # Strict priorities made cycles impossible; a misordered dependency (R-DEP-3, logged only) makes them
        # possible, and a cycle cannot run its requirements first: every tool on one is disabled.
        graph = {name: [r.get_name() for r in tool.get_required_tools() if isinstance(r, ChatbotTool)]
                 for name, tool in self._tools.items() if isinstance(tool, ToolDependent)}
        state: dict[str, int] = {}  # 1 = on the current path, 2 = done
        path: list[str] = []

        def visit(name: str) -> None:
            state[name] = 1
            path.append(name)
            for required in graph.get(name, ()):
                if state.get(required) == 1:
                    cycle = path[path.index(required):]
                    for member in cycle:
                        if member not in self.disabled:
                            self._disable(self._tools[member], f"dependency cycle {' -> '.join([*cycle, required])}")
                elif required not in state:
                    visit(required)
            path.pop()
            state[name] = 2

        for name in graph:
            if name not in state:
                visit(name)

    def _index_orchestrators(self) -> list[tuple[type[ChatbotTool], str | None, str | None]]:
        """Each orchestrator class with the domain and system its instance reports (R-OT-4); refuses ambiguity."""
        index: list[tuple[type[ChatbotTool], str | None, str | None]] = []
        seen: dict[tuple[str | None, str | None], type[ChatbotTool]] = {}
        for cls in self._orchestrators.values():
            probe = self.inject(cls())  # built like a request's instance, so overridden getters see their fields
            key = (probe.get_domain(), typing.cast(OrchestratorTool, probe).get_eligible_system())
            taken = seen.get(key)
            if taken is not None:
                raise ToolContractError(
                    f"orchestrators {taken.__qualname__} ({taken.name!r}) and {cls.__qualname__} ({cls.name!r}) "
                    f"both serve domain {key[0]!r} and eligible system {key[1]!r}; exactly one may (R-OT-4) — "
                    "give each its own get_eligible_system()",
                    tool_name=cls.name,
                )
            seen[key] = cls
            index.append((cls, *key))
            for name in getattr(cls, "tool_names", None) or ():
                if name in self.disabled:
                    logger.error("orchestrator %s lost tool %s: %s", cls.name, name, self.disabled[name])
                elif name not in self._tools:
                    logger.error("orchestrator %s lost tool %s: no such tool is registered", cls.name, name)
        return index

    def orchestrator_index(self) -> list[tuple[type[ChatbotTool], str | None, str | None]]:
        """``(class, domain, eligible system)`` of every registered orchestrator, as its instances report them."""
        self.start()
        return list(self._orchestrator_keys)

    def _disable(self, tool: ChatbotTool, reason: str) -> None:
        self.disabled[tool.get_name()] = reason
        logger.error("tool %s disabled: %s", tool.get_name(), reason)

    def tools(self) -> list[ChatbotTool]:
        """The enabled singleton tools, in registration order."""
        self.start()
        return [t for name, t in self._tools.items() if name not in self.disabled]

    def memo(self, key: Any, factory: Any) -> Any:
        """``factory()`` computed once per key for this started tool set (e.g. an orchestrator's tool selection)."""
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = factory()
            return value

    def find(self, name: str) -> ChatbotTool | None:
        """The built tool named ``name`` (enabled or not), or None; never starts the container.

        For a tool's ``init()`` choosing a collaborator by name (e.g. the ingestion tool its domain settings name):
        every tool is built and injected before any ``init()`` runs, and ``get`` would try to start the container
        from inside its own start.
        """
        return self._tools.get(name)

    def get(self, name: str) -> ChatbotTool:
        """The enabled singleton tool named ``name``."""
        self.start()
        if name in self.disabled:
            raise UnknownToolError(f"tool {name!r} is disabled: {self.disabled[name]}", tool_name=name)
        if name not in self._tools:
            raise UnknownToolError(f"no tool named {name!r}; available: {sorted(self._tools)}", tool_name=name)
        return self._tools[name]

    def orchestrator_classes(self) -> list[type[ChatbotTool]]:
        """The registered orchestrator classes."""
        self.start()
        return list(self._orchestrators.values())

    def new_orchestrator(self, cls: type[T]) -> T:
        """A fresh, injected and initialised orchestrator instance (prototype scope, R-OT-3, R-OT-5)."""
        return typing.cast(T, self.inject(cls()))
