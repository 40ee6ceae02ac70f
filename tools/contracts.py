"""The platform's tool contracts in Python, checked when a tool class is defined.

Every tool class is constructed without arguments (R-PLUG-1) and receives its dependencies as injected fields
followed by ``init()`` (R-PLUG-2, see ``tools.plugins``). Methods may be written sync or async: the orchestrator
awaits coroutines and runs plain functions in a worker thread, so its event loop never blocks.

Definition-time checks (``ChatbotTool.__init_subclass__``, as neo4j-graphrag checks components): a class is concrete
unless it declares ``abstract=True`` in its class keywords or defines abstract methods of its own; a concrete class
must name itself (``name``), implement every abstract method (e.g. ``get_priority``, R-PRIO-1) and take no required
constructor argument; any class that writes a clarification continuation must be a ``ClarifiableTool`` (R-TYPE-1).
A violation raises ``ToolContractError`` (a ``TypeError``) naming the class.
"""

from __future__ import annotations

import inspect
import logging
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tools.clarification import ClarificationSession
from tools.documents import PromptAndContext, ToolExecutionResult
from tools.errors import ToolContractError
from tools.request import ChatRequest
from tools.streaming import FinalCallback, ResponseEmitter

logger = logging.getLogger(__name__)

PRIORITY_MAX = 2147483647
"""Java's Integer.MAX_VALUE: the always-last slot of the fallback, e.g. RAG retrieval (R-PRIO-5)."""

ToolContexts = Mapping[str, Sequence[PromptAndContext]]
"""A read-only view of contexts: ``taskNo:toolName`` → contexts (prior, R-CC-1) or tool name → contexts (R-DEP-4)."""


def _abstract_names(cls: type) -> list[str]:
    return sorted(name for name in dir(cls) if getattr(getattr(cls, name, None), "__isabstractmethod__", False))


_CLARIFICATION_METHODS = ("execute_with_clarification", "execute_with_clarification_and_prior_context")


def _check_only_clarifiable_asks(cls: type) -> None:
    """R-TYPE-1 where it is visible at definition: a class writing a continuation must be a ClarifiableTool.

    (A tool that merely returns a question is only visible when it runs: the orchestrator isolates it then.)
    """
    clarifiable = globals().get("ClarifiableTool")
    if clarifiable is None or issubclass(cls, clarifiable):  # None: ClarifiableTool itself is being defined
        return
    written = [name for name in _CLARIFICATION_METHODS if callable(getattr(cls, name, None))]
    if written:
        raise ToolContractError(
            f"tool class {cls.__qualname__} defines {written} but is not a ClarifiableTool; only a ClarifiableTool "
            "may ask the user (R-TYPE-1) — inherit ClarifiableTool (or ClarifiableContextConsumerTool)",
            tool_name=cls.__qualname__,
        )


def _required_init_params(cls: type) -> list[str]:
    try:
        signature = inspect.signature(cls.__init__)  # type: ignore[misc]
    except (TypeError, ValueError):  # builtin __init__ has no signature: nothing required
        return []
    params = list(signature.parameters.values())[1:]
    return [
        p.name
        for p in params
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


class ChatbotTool(ABC):
    """A tool the platform's LLM routing may activate (platform ``ChatbotTool``; R-CHAT-1, R-CHAT-2, R-PLUG-1).

    Class attributes: ``name`` (unique registry key), ``instruction`` (what routing reads, R-CHAT-1), ``domain``
    (None = every domain), ``required_permissions`` (checked by the default ``is_eligible``, R-CHAT-2) and
    ``timeout_s`` (None = the orchestrator's default time limit).
    """

    name: ClassVar[str] = ""
    instruction: ClassVar[str] = ""
    domain: ClassVar[str | None] = None
    required_permissions: ClassVar[frozenset[str]] = frozenset()
    timeout_s: ClassVar[float | None] = None
    is_abstract_contract: ClassVar[bool] = True

    def __init_subclass__(cls, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _check_only_clarifiable_asks(cls)
        own_abstract = any(getattr(v, "__isabstractmethod__", False) for v in vars(cls).values())
        cls.is_abstract_contract = abstract or own_abstract
        required = _required_init_params(cls)
        if required:
            raise ToolContractError(
                f"tool class {cls.__qualname__} must have a no-argument constructor (R-PLUG-1); "
                f"required parameters {required} — declare dependencies as Injected[...] fields instead (R-PLUG-2)",
                tool_name=cls.__qualname__,
            )
        if cls.is_abstract_contract:
            return
        missing = _abstract_names(cls)
        if missing:
            raise ToolContractError(
                f"tool class {cls.__qualname__} does not implement {missing}; implement them, or declare the class "
                "a base with `abstract=True`",
                tool_name=cls.__qualname__,
            )
        if not isinstance(cls.name, str) or not cls.name.strip():
            raise ToolContractError(
                f"tool class {cls.__qualname__} must set a non-empty class attribute `name`", tool_name=cls.__qualname__
            )
        cls._check_contract()

    @classmethod  # noqa: B027 - optional hook, empty by design
    def _check_contract(cls) -> None:
        """Further definition-time checks of a concrete class; sub-contracts extend it."""

    def get_name(self) -> str:
        """The tool's unique name (Java ``getName()``)."""
        return self.name

    def get_executable_instruction(self) -> str:
        """What LLM routing (and the orchestrator's suitability test) reads to decide on activation (R-CHAT-1)."""
        return self.instruction or (type(self).__doc__ or "").strip()

    def get_domain(self) -> str | None:
        """The domain the tool serves; None = domain-independent (R-CLAR-3)."""
        return self.domain

    def is_eligible(self, request: ChatRequest) -> bool:
        """Non-functional checks run BEFORE routing: domain and permissions (R-CHAT-2).

        Not evaluated for orchestrator-activated tools (R-ORCH-1).
        """
        domain = self.get_domain()
        if domain is not None and request.domain is not None and domain != request.domain:
            return False
        return self.required_permissions <= request.permissions

    def init(self) -> None:  # noqa: B027 - optional hook, empty by design
        """Called once after the container filled the injected fields (Java ``@PostConstruct``, R-PLUG-2).

        Wire the injected dependencies into the base class's setters here.
        """

    @abstractmethod
    def execute_with_result(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        progress_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """Run the tool on a routed request, or on an explicit activation by name (R-DEP-5)."""


class OrchestratorActivatedTool(ChatbotTool, abstract=True):
    """A tool only a running orchestrator starts (platform ``OrchestratorActivatedTool``; R-ORCH-1, R-PRIO-1..5).

    LLM routing never offers it and ``is_eligible`` is never evaluated for it. ``get_priority()`` is mandatory:
    smaller runs earlier, 0 earliest, equal priorities run concurrently, ``PRIORITY_MAX`` always last.
    """

    @abstractmethod
    def get_priority(self) -> int:
        """The priority group of this tool (R-PRIO-1); 0..PRIORITY_MAX."""


class ClarifiableTool(OrchestratorActivatedTool, abstract=True):
    """A tool that asks the user back when its parameters are incomplete (platform ``ClarifiableTool``; R-TYPE-1,
    R-CLAR-1..3).

    First call: ``execute_with_result``; return ``ToolExecutionResult.as_clarification(name, question, state=…)`` to
    ask. When the user answered, the orchestrator calls ``execute_with_clarification`` with the session (answer and
    state). Priority defaults to 0 so the orchestrator asks before doing other work.
    """

    def get_priority(self) -> int:
        """0: clarification comes first (R-CLAR-3)."""
        return 0

    @abstractmethod
    def execute_with_clarification(
        self,
        session: ClarificationSession,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        progress_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """Continue with the user's answer (``session.answer``) and the tool's saved ``session.state``."""


class ContextConsumerTool(OrchestratorActivatedTool, abstract=True):
    """A tool that may build on earlier tools' output (platform ``ContextConsumerTool``; R-COOP-1, R-CC-1..4).

    The orchestrator always calls ``execute_with_prior_context`` with a read-only snapshot keyed ``taskNo:toolName``
    (never None). Use the snapshot only within the call — tools are singletons (R-CC-2) — and treat a missing key as
    normal (R-CC-4). ``execute_with_result`` raises (R-CC-3).
    """

    @abstractmethod
    def execute_with_prior_context(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        prior_tool_contexts: ToolContexts,
        response_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """Run with the snapshot of the contexts produced so far in this request."""

    def execute_with_result(self, *args: Any, **kwargs: Any) -> ToolExecutionResult | None:
        """Not available on a context consumer (R-CC-3, Java UnsupportedOperationException)."""
        raise NotImplementedError(
            f"{type(self).__name__} is a ContextConsumerTool: call execute_with_prior_context (R-CC-3)"
        )


class ClarifiableContextConsumerTool(ClarifiableTool, ContextConsumerTool, abstract=True):
    """A context consumer that may also ask the user (platform ``ClarifiableContextConsumerTool``; R-CC-5).

    The continuation is ``execute_with_clarification_and_prior_context``; the context-less
    ``execute_with_clarification`` raises.
    """

    @abstractmethod
    def execute_with_clarification_and_prior_context(
        self,
        session: ClarificationSession,
        prior_tool_contexts: ToolContexts,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        response_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """Continue with the user's answer and a fresh snapshot of the context buffer."""

    def execute_with_clarification(self, *args: Any, **kwargs: Any) -> ToolExecutionResult | None:
        """Not available here (R-CC-5): use execute_with_clarification_and_prior_context."""
        raise NotImplementedError(
            f"{type(self).__name__} is a ClarifiableContextConsumerTool: call "
            "execute_with_clarification_and_prior_context (R-CC-5)"
        )


class ToolDependent(OrchestratorActivatedTool, abstract=True):
    """A tool whose work rests on other tools' output (platform ``ToolDependent``; R-DEP-1..5).

    ``get_required_tools`` returns tool INSTANCES (usually injected fields). The orchestrator runs them before this
    tool's group even if routing would not have (R-DEP-2), and passes their contexts — keyed by the required tool's
    name, internal documents included — to ``execute_with_required_context`` (R-DEP-4). Each required tool must
    have a strictly smaller priority, checked at start-up (R-DEP-3). ``execute_with_result`` is only used on an
    explicit activation, with no required context (R-DEP-5).
    """

    @abstractmethod
    def get_required_tools(self) -> Sequence[OrchestratorActivatedTool]:
        """The tool instances this tool relies on (R-DEP-1)."""

    @abstractmethod
    def execute_with_required_context(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        required_tool_contexts: ToolContexts,
        progress_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> ToolExecutionResult | None:
        """Run with the required tools' contexts of this request (R-DEP-4)."""

    def execute_with_result(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        progress_emitter: ResponseEmitter,
        final_callback: FinalCallback,
    ) -> Any:
        """Explicit activation (R-DEP-5): by default the required-context method with every required context empty.

        Override it to run a fallback, e.g. call the upstream tool directly.
        """
        empty: ToolContexts = {tool.get_name(): () for tool in self.get_required_tools()}
        return self.execute_with_required_context(
            systems, user_prompt, user_lang, important_words, empty, progress_emitter, final_callback
        )


@dataclass(frozen=True)
class SubTask:
    """One step of an agent coordinator's plan: the tool to run on ``prompt``, and optional sub-steps (R-AC-1).

    ``parallel`` applies to ``subtasks``: True runs them concurrently, False (default) in order. See
    ``tools.coordination`` for the execution rules and task numbering.
    """

    tool: str
    prompt: str
    subtasks: tuple[SubTask, ...] = ()
    parallel: bool = False
    important_words: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


class AgentCoordinator(OrchestratorActivatedTool, abstract=True):
    """A tool that splits a task into sub-steps at run time, naming the tool of each (platform ``AgentCoordinator``;
    R-AC-1, R-AC-2).

    The orchestrator calls ``decompose`` in the coordinator's priority group and executes the returned tree
    (``tools.coordination``). Tools may also call each other directly in code through injected references — the
    fourth channel that bypasses the orchestrator (R-AC-2).
    """

    @abstractmethod
    def decompose(
        self,
        systems: Sequence[str],
        user_prompt: str,
        user_lang: str,
        important_words: Sequence[str],
        prior_tool_contexts: ToolContexts,
    ) -> Sequence[SubTask]:
        """Plan the sub-steps of this request."""

    def execute_with_result(self, *args: Any, **kwargs: Any) -> ToolExecutionResult | None:
        """A coordinator's work is its plan; activated on its own it contributes nothing."""
        return None


class AsyncTaskTool(ChatbotTool, abstract=True):
    """A background task an external caller starts by type id with structured input (platform ``AsyncTaskTool``;
    R-ASYNC-1, R-ASYNC-2).

    Part of neither the chat nor the ingestion pipeline: never eligible, never activated by an orchestrator.
    ``input_model`` is the pydantic model validating the input; ``run`` receives the validated input and a
    ``tools.tasks.TaskContext`` (progress reporting, cancellation check) and returns a JSON-able result.
    """

    task_type: ClassVar[str] = ""
    input_model: ClassVar[type[Any]]

    @classmethod
    def _check_contract(cls) -> None:
        if not cls.task_type:
            raise ToolContractError(f"async task tool {cls.__qualname__} must set `task_type`", tool_name=cls.name)
        model = getattr(cls, "input_model", None)
        if model is None or not hasattr(model, "model_validate"):
            raise ToolContractError(
                f"async task tool {cls.__qualname__} must set `input_model` to a pydantic model class, got {model!r}",
                tool_name=cls.name,
            )

    def is_eligible(self, request: ChatRequest) -> bool:
        """Never offered to routing (R-ASYNC-1)."""
        return False

    def execute_with_result(self, *args: Any, **kwargs: Any) -> ToolExecutionResult | None:
        """Not part of the chat pipeline: a stub (R-ASYNC-1)."""
        return None

    @abstractmethod
    def run(self, task_input: Any, context: Any) -> Any:
        """Do the work; check ``context.cancelled`` between steps and report ``context.report(fraction, message)``."""


class OrchestratorTool(ABC):  # noqa: B024 - a marker: the platform finds orchestrators by this type
    """Marker: the class implements an orchestrator (platform ``OrchestratorTool``; R-OT-1, R-OT-4).

    The platform activates exactly one orchestrator for EVERY request, by ``domain`` and, when a domain has several,
    ``eligible_system`` — LLM routing plays no part.
    """

    domain: ClassVar[str | None] = None
    eligible_system: ClassVar[str | None] = None

    def get_eligible_system(self) -> str | None:
        """The system this orchestrator serves within its domain; None = any."""
        return self.eligible_system
