"""The orchestrator: one fresh instance per request runs the tools in priority groups and answers.

Per request (docs/orchestrator.md): routing over the eligible plain ChatbotTools and, as a separate call, the
suitability test over the orchestrator's own tools (R-CHAT-1, R-ORCH-1, R-CLAR-2); required tools added transitively
(R-DEP-2, ``tools.scheduling``); groups run in ascending priority, each group concurrently, the ``PRIORITY_MAX``
fallback last (R-PRIO-1..5); every tool's documents go into a per-request
context buffer under ``taskNo:toolName`` and consumers receive read-only snapshots (R-CC-1, R-DEP-4); questions stop
the run until the user answers (R-CLAR-1); internal documents are stripped before the RAG fallback and the answer
(R-INT-2); a failing or slow tool is isolated. Tools are singletons shared by concurrent requests: all per-request
state lives in this prototype-scoped object (R-OT-3), never in a tool.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, cast

from settings.chat import OrchestratorSettings
from tools.calling import ToolCallback, ToolThreads, call_tool_method
from tools.clarification import ClarificationSession, PendingRequest, SessionStore, split_answers
from tools.contracts import (
    PRIORITY_MAX,
    AgentCoordinator,
    AsyncTaskTool,
    ChatbotTool,
    ClarifiableContextConsumerTool,
    ClarifiableTool,
    ContextConsumerTool,
    OrchestratorActivatedTool,
    OrchestratorTool,
    ToolContexts,
    ToolDependent,
)
from tools.coordination import PlanExecutor
from tools.deadlines import GroupDeadlines, run_together
from tools.documents import PromptAndContext, ResultKind, ToolExecutionResult
from tools.errors import ToolError, ToolExecutionError, UnknownToolError
from tools.ingestion import IngestionTool
from tools.llm.composer import AnswerComposer, ExtractiveComposer
from tools.llm.router import Router, ToolCandidate
from tools.plugins import Injected, ToolContainer
from tools.request import ChatRequest
from tools.scheduling import FALLBACK_PHASE, Rank, Schedule, describe, schedule
from tools.streaming import CollectingCallback, FinalCallback, OpenAIResponse, ResponseEmitter

logger = logging.getLogger(__name__)

MAIN_TASK = "1"
_MODES: dict[type, str] = {}


def execution_mode(tool: ChatbotTool) -> str:
    """How the engine calls ``tool``: coordinator, dependent, consumer or plain (cached per class)."""
    cls = type(tool)
    mode = _MODES.get(cls)
    if mode is None:
        if isinstance(tool, AgentCoordinator):
            mode = "coordinator"
        elif isinstance(tool, ContextConsumerTool):  # R-CC-1 "always", also when the tool is ToolDependent too
            mode = "consumer"
        elif isinstance(tool, ToolDependent):
            mode = "dependent"
        else:
            mode = "plain"
        mode = _MODES[cls] = mode
    return mode


def _task_key(task_no: str) -> tuple[int, ...]:
    """``"1.10.2"`` → ``(1, 10, 2)``: task numbers in natural order."""
    return tuple(int(part) for part in task_no.split(".") if part.isdigit())


_EMPTY: Mapping[str, Sequence[PromptAndContext]] = types.MappingProxyType({})


def never_activated(tool: object) -> bool:
    """Tools the chat pipeline never starts: ingestion (R-ING-1), async tasks (R-ASYNC-1) and orchestrators."""
    return isinstance(tool, IngestionTool | AsyncTaskTool | OrchestratorTool)


def _request_cancelled() -> bool:
    """Whether the task running the request is being cancelled (the client went away), as opposed to a tool raising
    ``CancelledError`` of its own."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class AbstractOrchestratorTool(ChatbotTool, OrchestratorTool, abstract=True):
    """Base of every orchestrator (platform ``AbstractOrchestratorTool``; R-OT-1..5).

    Subclasses set ``name``, ``domain`` and, when a domain has several orchestrators, ``eligible_system``; they may
    restrict their tools with ``tool_names`` or override ``get_orchestrated_tools``. A fresh instance serves each
    request (prototype scope), built by the container without arguments and injected.
    """

    tool_names: ClassVar[tuple[str, ...] | None] = None

    container: Injected[ToolContainer]
    router: Injected[Router]
    composer: Injected[AnswerComposer]
    sessions: Injected[SessionStore]
    settings: Injected[OrchestratorSettings]
    threads: Injected[ToolThreads]

    def __init__(self) -> None:
        self._buffer: dict[str, list[PromptAndContext]] = {}
        self._by_tool: dict[str, list[PromptAndContext]] = {}
        self._failures: dict[str, BaseException] = {}
        self._direct: list[tuple[tuple[Any, ...], ToolExecutionResult]] = []
        self._usable = False
        self._ran: list[str] = []
        # Answer order: (group rank, task number, tool) per completion key, so that the answer does not depend on
        # which tool of a concurrent group finished first, nor on a clarification pause (R-CLAR-1).
        self._order: dict[str, tuple[Any, ...]] = {}
        self._rank: Rank = (0, 0, 0)
        # Each tool's required tools, asked once per request: None for a tool whose answer was an exception.
        self._required: dict[str, tuple[ChatbotTool, ...] | None] = {}

    # -- which tools -------------------------------------------------------------------------------------------
    def _domain_matches(self, tool: ChatbotTool, request: ChatRequest) -> bool:
        domain = tool.get_domain()
        wanted = self.domain if self.domain is not None else request.domain
        return domain is None or wanted is None or domain == wanted

    def get_orchestrated_tools(self, request: ChatRequest) -> list[OrchestratorActivatedTool]:
        """The orchestrator-activated tools this orchestrator may start for ``request`` (memoised per domain)."""
        key = ("orchestrated", type(self), request.domain)
        return list(self.container.memo(key, lambda: self._orchestrated_tools(request)))

    def _orchestrated_tools(self, request: ChatRequest) -> list[OrchestratorActivatedTool]:
        if self.tool_names is not None:
            # A listed tool that is disabled or missing is left out: the rest still runs (logged at start-up).
            found = [(name, self.container.find(name)) for name in self.tool_names]
            tools = [t for name, t in found if t is not None and name not in self.container.disabled]
        else:
            tools = [t for t in self.container.tools() if self._domain_matches(t, request)]
        return [t for t in tools if isinstance(t, OrchestratorActivatedTool) and not never_activated(t)]

    def get_routable_tools(self, request: ChatRequest) -> list[ChatbotTool]:
        """The plain ChatbotTools offered to routing: eligibility is checked BEFORE routing, per request (R-CHAT-2)."""
        plain = self.container.memo(("routable", type(self)), lambda: [
            t for t in self.container.tools() if not isinstance(t, OrchestratorActivatedTool) and not never_activated(t)
        ])
        return [t for t in plain if self._eligible(t, request)]

    @staticmethod
    def _eligible(tool: ChatbotTool, request: ChatRequest) -> bool:
        try:
            return bool(tool.is_eligible(request))
        except Exception as exc:  # noqa: BLE001 - one tool's broken check must not fail the request
            logger.error("is_eligible of tool %s failed (%r); the tool is not offered this time", tool.get_name(), exc)
            return False

    async def _choose(self, request: ChatRequest, tools: Sequence[ChatbotTool]) -> set[str]:
        candidates = []
        for tool in tools:
            try:
                candidates.append(ToolCandidate(tool.get_name(), tool.get_executable_instruction()))
            except Exception as exc:  # noqa: BLE001 - one tool's broken instruction must not fail the request
                self._isolate(MAIN_TASK, tool.get_name(), exc, "get_executable_instruction() raised")
        if not candidates:
            return set()
        return set(await self.router.select(request.user_prompt, candidates, important_words=request.important_words))

    def _isolate(self, task_no: str, name: str, exc: BaseException, what: str) -> None:
        logger.error("tool %s %s and is isolated (%s:%s): %r", name, what, task_no, name, exc, exc_info=exc)
        self._failures[f"{task_no}:{name}"] = exc

    def requirements(self, tool: ChatbotTool) -> tuple[ChatbotTool, ...] | None:
        """``tool``'s required tools (R-DEP-2), asked once per request; None when asking raised, which is that
        tool's failure: it does not run this request."""
        name = tool.get_name()
        if name not in self._required:
            found: tuple[ChatbotTool, ...] | None = ()
            if isinstance(tool, ToolDependent):
                try:
                    found = tuple(tool.get_required_tools())
                except Exception as exc:  # noqa: BLE001 - isolation: the tool fails, the request goes on
                    self._isolate(MAIN_TASK, name, exc, "get_required_tools() raised")
                    found = None
            self._required[name] = found
        return self._required[name]

    async def route(self, request: ChatRequest, routable: Sequence[ChatbotTool]) -> set[str]:
        """LLM routing (R-CHAT-1): which plain ChatbotTools fit, decided from their executable instructions.

        Only ever offered plain, eligible ChatbotTools — never an orchestrator-activated one (R-ORCH-1, R-CLAR-2).
        """
        return await self._choose(request, routable)

    async def check_suitability(self, request: ChatRequest, tools: Sequence[OrchestratorActivatedTool]) -> set[str]:
        """The orchestrator's own suitability test over its tools (the "LLM suitability test" of R-DEP-2).

        A separate call from routing: this is the orchestrator deciding what it starts (R-ORCH-1). The default asks
        the same router about the given tools' instructions; override it for another test.
        """
        return await self._choose(request, tools)

    async def plan(self, request: ChatRequest) -> dict[int, list[ChatbotTool]]:
        """Priority → tools to run: routed tools, suitable orchestrator tools, their requirements, the fallback."""
        orchestrated = self.get_orchestrated_tools(request)
        routable = self.get_routable_tools(request)
        priorities = {t.get_name(): t.get_priority() for t in orchestrated}  # asked once per request
        testable = [t for t in orchestrated if priorities[t.get_name()] != PRIORITY_MAX]
        if routable and testable:  # two router calls, possibly remote: side by side
            routed, suitable = await asyncio.gather(
                self.route(request, routable), self.check_suitability(request, testable)
            )
        else:  # one of them has nothing to ask about: no tasks to start for it
            routed = await self.route(request, routable) if routable else set()
            suitable = await self.check_suitability(request, testable) if testable else set()
        selected: dict[str, ChatbotTool] = {}
        for tool in routable:
            if tool.get_name() in routed:
                self._add_with_requirements(tool, selected)
        for tool in testable:
            if tool.get_name() in suitable:
                self._add_with_requirements(tool, selected)
        for tool in orchestrated:  # the fallback; its required tools join its phase (tools.scheduling)
            if priorities[tool.get_name()] == PRIORITY_MAX and tool.get_name() not in self.container.disabled:
                selected.setdefault(tool.get_name(), tool)
        groups: dict[int, list[ChatbotTool]] = {}
        for name, tool in selected.items():
            priority = priorities.get(name)
            if priority is None:  # a required tool from outside this orchestrator's own, or a routed plain tool
                priority = (
                    tool.get_priority()
                    if isinstance(tool, OrchestratorActivatedTool)
                    else self.settings.routed_tool_priority
                )
            groups.setdefault(priority, []).append(tool)
        return dict(sorted(groups.items()))

    def _add_with_requirements(self, tool: ChatbotTool, selected: dict[str, ChatbotTool]) -> None:
        if tool.get_name() in selected:
            return
        reason = self.container.disabled.get(tool.get_name())
        if reason is not None:
            logger.warning("tool %s is disabled (%s); not run", tool.get_name(), reason)
            return
        required = self.requirements(tool)
        if required is None:
            return
        selected[tool.get_name()] = tool
        for each in required:  # R-DEP-2: transitively, whatever routing said
            self._add_with_requirements(each, selected)

    # -- the context buffer ------------------------------------------------------------------------------------
    def snapshot(self, *, public_only: bool = False) -> ToolContexts:
        """A read-only copy of the buffer (R-CC-1); ``public_only`` drops internal documents (R-INT-2)."""
        if not self._buffer:
            return _EMPTY
        if not public_only:
            return types.MappingProxyType({k: tuple(v) for k, v in self._buffer.items()})
        public: dict[str, tuple[PromptAndContext, ...]] = {}
        for key, contexts in self._buffer.items():
            kept = tuple(p for p in (c.public() for c in contexts) if p is not None)
            if kept:
                public[key] = kept
        return types.MappingProxyType(public)

    def required_contexts(self, tool: ToolDependent, task_no: str | None = None) -> ToolContexts:
        """The required tools' contexts keyed by their names; a key per required tool, possibly empty (R-DEP-4).

        ``task_no`` limits them to one plan step's (its requirements run for that step, under its number).
        """
        def of(name: str) -> tuple[PromptAndContext, ...]:
            contexts = self._by_tool.get(name, ())
            return tuple(c for c in contexts if task_no is None or c.task_no == task_no)

        return types.MappingProxyType({req.get_name(): of(req.get_name()) for req in self.requirements(tool) or ()})

    def snapshot_for(self, tool: ChatbotTool, shared: ToolContexts, *, public_only: bool) -> ToolContexts:
        """What ``tool`` sees of the earlier groups: ``shared``, plus, where internal documents were dropped
        (the fallback's snapshot), its own required tools' contexts whole — internal documents are addressed to the
        tool that requires them (R-INT-1), and only the answer step must not see them (R-INT-2)."""
        if not public_only:
            return shared
        own = {req.get_name() for req in self.requirements(tool) or ()}
        addressed = {key: tuple(contexts) for key, contexts in self._buffer.items()
                     if contexts and contexts[0].tool_name in own}
        if not addressed:
            return shared
        return types.MappingProxyType({**shared, **addressed})

    def public_contexts(self) -> list[PromptAndContext]:
        """Every context without internal documents, in run order: what the answer step may see (R-INT-2)."""
        public = self.snapshot(public_only=True)
        keys = sorted(public, key=lambda key: self._order.get(key, ()))
        return [ctx for key in keys for ctx in public[key]]

    def _record(self, result: ToolExecutionResult, prompt: str, task_no: str) -> None:
        order = (self._rank, _task_key(task_no), result.tool_name)
        if result.documents:
            context = PromptAndContext(prompt, result.sorted_documents(), result.tool_name, task_no)
            self._buffer.setdefault(context.completion_key, []).append(context)
            self._by_tool.setdefault(result.tool_name, []).append(context)
            self._order.setdefault(context.completion_key, order)
        if result.kind is ResultKind.DIRECT_ANSWER:
            self._direct.append((order, result))
            self._usable = True
        elif result.kind is ResultKind.GUARANTEED_CONTEXT and any(not d.is_internal for d in result.documents):
            self._usable = True

    @property
    def has_usable_context(self) -> bool:
        """Whether an earlier tool gave a direct answer or guaranteed public context (the RAG fallback's test)."""
        return self._usable

    # -- running one tool --------------------------------------------------------------------------------------
    async def run_tool(
        self,
        tool: ChatbotTool,
        request: ChatRequest,
        emitter: ResponseEmitter,
        callback: FinalCallback,
        *,
        prompt: str | None = None,
        task_no: str = MAIN_TASK,
        snapshot: ToolContexts | None = None,
        session: ClarificationSession | None = None,
        important_words: Sequence[str] | None = None,
        deadlines: GroupDeadlines | None = None,
    ) -> ToolExecutionResult | None:
        """Run one tool in the right mode; record its output; isolate its failure (logged, result None).

        ``deadlines``: the time limits of the group the tool starts with (none: the tool's own timer)."""
        name = tool.get_name()
        prompt = request.user_prompt if prompt is None else prompt
        words = list(request.important_words if important_words is None else important_words)
        common = (list(request.systems), prompt, request.user_lang, words)
        prior = self.snapshot() if snapshot is None else snapshot
        timeout = tool.timeout_s or self.settings.tool_timeout_s
        callback = ToolCallback(callback)
        fn: Callable[..., Any]
        args: tuple[Any, ...]
        try:
            if session is not None and isinstance(tool, ClarifiableContextConsumerTool):
                fn, args = tool.execute_with_clarification_and_prior_context, (session, prior, *common, emitter,
                                                                                callback)
            elif session is not None and isinstance(tool, ClarifiableTool):
                fn, args = tool.execute_with_clarification, (session, *common, emitter, callback)
            elif (mode := execution_mode(tool)) == "coordinator":
                coordinator = cast(AgentCoordinator, tool)
                steps = await call_tool_method(coordinator.decompose, *common, prior, timeout_s=timeout,
                                               threads=self.threads)
                self._ran.append(name)
                await self._execute_plan(coordinator, steps or (), request, emitter, callback, task_no)
                return None
            elif mode == "dependent":
                dependent = cast(ToolDependent, tool)
                fn = dependent.execute_with_required_context
                step_no = None if task_no == MAIN_TASK else task_no
                args = (*common, self.required_contexts(dependent, step_no), emitter, callback)
            elif mode == "consumer":
                fn = cast(ContextConsumerTool, tool).execute_with_prior_context
                args = (*common, prior, emitter, callback)
            else:
                fn, args = tool.execute_with_result, (*common, emitter, callback)
            result = await call_tool_method(fn, *args, timeout_s=timeout, threads=self.threads, deadlines=deadlines)
        except TimeoutError as exc:
            logger.error("tool %s exceeded its time limit of %.3gs; isolated", name, timeout)
            self._failures[f"{task_no}:{name}"] = ToolError(f"tool {name!r} timed out after {timeout:g}s",
                                                            tool_name=name)
            del exc
            return None
        except BaseException as exc:  # isolation boundary: SystemExit or a tool's own CancelledError included
            if isinstance(exc, KeyboardInterrupt | GeneratorExit) or (
                isinstance(exc, asyncio.CancelledError) and _request_cancelled()
            ):
                raise
            self._isolate(task_no, name, exc, "failed")
            return None
        self._ran.append(name)
        if callback.error is not None:
            self._isolate(task_no, name, callback.error, "reported an error through its final callback")
            return None
        accepted = self._accept(tool, result, task_no)
        if accepted is not None:
            self._record(accepted, prompt, task_no)
        return accepted

    def _accept(self, tool: ChatbotTool, result: object, task_no: str) -> ToolExecutionResult | None:
        """What a tool returned, as the result to record, or None (nothing, or a contract breach kept as its
        failure)."""
        name = tool.get_name()
        if result is None:
            return None
        if not isinstance(result, ToolExecutionResult):
            logger.error("tool %s returned %r instead of a ToolExecutionResult; ignored", name, type(result))
            self._failures[f"{task_no}:{name}"] = TypeError(f"tool {name!r} returned {type(result).__name__}")
            return None
        if result.tool_name != name:  # keys and clarification routing follow the tool that actually ran
            logger.warning("tool %s labelled its result %r; recorded under %s", name, result.tool_name, name)
            result = dataclasses.replace(result, tool_name=name)
        if result.kind is ResultKind.CLARIFICATION and not isinstance(tool, ClarifiableTool):
            # R-TYPE-1: only a ClarifiableTool may ask; anything else asking is that tool's failure, never a loop.
            logger.error("tool %s asked the user a question but is not a ClarifiableTool (R-TYPE-1); isolated", name)
            self._failures[f"{task_no}:{name}"] = ToolError(
                f"tool {name!r} returned a clarification question but is not a ClarifiableTool (R-TYPE-1)",
                tool_name=name)
            return None
        return result

    async def _execute_plan(
        self,
        coordinator: AgentCoordinator,
        steps: Sequence[Any],
        request: ChatRequest,
        emitter: ResponseEmitter,
        callback: FinalCallback,
        task_no: str,
    ) -> None:
        def resolve(name: str) -> ChatbotTool:
            tool = self.container.get(name)
            if never_activated(tool) or isinstance(tool, AgentCoordinator):
                raise UnknownToolError(f"tool {name!r} cannot be a plan step ({type(tool).__name__})", tool_name=name)
            return tool

        async def run_requirements(tool: ChatbotTool, prompt: str, number: str, words: Sequence[str],
                                   done: set[str]) -> None:
            # R-DEP-2 for a plan step: its required tools run first, on the step's prompt, under its number.
            for required in self.requirements(tool) or ():
                name = required.get_name()
                if name in done or name in self.container.disabled or isinstance(required, AgentCoordinator):
                    continue
                done.add(name)
                await run_requirements(required, prompt, number, words, done)
                await self.run_tool(required, request, emitter, callback, prompt=prompt, task_no=number,
                                    important_words=list(words) or None)

        async def run_step(tool: ChatbotTool, prompt: str, number: str, words: Sequence[str]) -> None:
            if self.requirements(tool) is None:
                return
            await run_requirements(tool, prompt, number, words, {tool.get_name()})
            result = await self.run_tool(tool, request, emitter, callback, prompt=prompt, task_no=number,
                                         important_words=list(words) or None)
            if result is not None and result.kind is ResultKind.CLARIFICATION:
                logger.warning("plan step %s:%s asked a question; steps cannot ask the user, ignored", number,
                               tool.get_name())

        executor = PlanExecutor(resolve, run_step, self.settings.max_subtasks)
        await executor.execute(coordinator, steps, task_no)
        self._failures.update(executor.failures)

    # -- the request -------------------------------------------------------------------------------------------
    def schedule(self, groups: dict[int, list[ChatbotTool]]) -> Schedule:
        """The plan's groups in run order, every required tool included (``tools.scheduling``; R-DEP-2, R-PRIO-5).

        The same plan with the same requirements gives the same schedule: it is remembered per tool set (whose
        disabled tools are fixed when it starts), keyed by the tools and what each required this request (a request
        where a tool's requirements raised is not)."""
        broken = {name: "its get_required_tools() raised" for name, found in self._required.items() if found is None}
        requires = self._requires_now
        if broken:
            return schedule(groups, {**self.container.disabled, **broken}, requires=requires)
        key = ("schedule", tuple((p, tuple((t, requires(t)) for t in tools)) for p, tools in groups.items()))
        remembered = self.container.memo(key, lambda: schedule(groups, self.container.disabled, requires=requires))
        return [(rank, list(tools)) for rank, tools in remembered]  # a request's own lists, the memo's untouched

    def _requires_now(self, tool: ChatbotTool) -> tuple[ChatbotTool, ...]:
        return self.requirements(tool) or ()

    async def handle(
        self, request: ChatRequest, emitter: ResponseEmitter, callback: FinalCallback
    ) -> None:
        """Answer ``request``: the outcome (answer, question or error) goes to ``callback``, text to ``emitter``."""
        guard = callback if isinstance(callback, CollectingCallback) else CollectingCallback(callback)
        try:
            ranked = self.schedule(await self.plan(request))
            await self._run_groups(request, ranked, emitter, guard, after=None)
        except ToolError as exc:
            logger.error("request failed: %s", exc)
            guard.on_error(exc)

    def _restore(self, pending: PendingRequest) -> None:
        """Everything the request had produced before its question (R-CLAR-1): contexts, answers, failures."""
        self._buffer = {k: list(v) for k, v in pending.buffer.items()}
        for contexts in self._buffer.values():
            for context in contexts:
                self._by_tool.setdefault(context.tool_name, []).append(context)
        self._direct = list(pending.direct)
        self._failures = dict(pending.failures)
        self._ran = list(pending.tools_run)
        self._order = dict(pending.order)
        self._usable = pending.usable

    async def resume(
        self, pending: PendingRequest, answer_turn: ChatRequest, emitter: ResponseEmitter, callback: FinalCallback
    ) -> None:
        """Continue a request stopped by clarification: answers go to the tools that asked (R-CLAR-1, R-CC-5)."""
        guard = callback if isinstance(callback, CollectingCallback) else CollectingCallback(callback)
        try:
            request = pending.request
            self._restore(pending)
            answers = split_answers(answer_turn.answer or answer_turn.user_prompt, list(pending.questions))
            snapshot = self.snapshot()
            tools = {name: self.container.get(name) for name in pending.questions}
            rounds = dict(pending.rounds)
            ranked: Schedule = [
                (cast(Rank, tuple(rank)), [self.container.get(n) for n in names])
                for rank, names in pending.extra["plan"]
            ]
            self._rank = cast(Rank, tuple(pending.resume_rank))
            results = await run_together([
                self.run_tool(
                    tools[name], request, emitter, guard, snapshot=snapshot,
                    session=ClarificationSession(pending.session_id, name, question.text, answers[name],
                                                 dict(question.state), rounds.get(name, 1)),
                )
                for name, question in pending.questions.items()
            ])
            if await self._ask_if_needed(request, results, ranked, self._rank, rounds, emitter, guard):
                return
            await self._run_groups(request, ranked, emitter, guard, after=self._rank)
        except ToolError as exc:
            logger.error("resumed request failed: %s", exc)
            guard.on_error(exc)

    def _fallback_needed(self) -> bool:
        """R-PRIO-5 as docs/orchestrator.md reads it: the fallback phase runs when on and nothing usable exists."""
        needed = self.settings.rag_fallback and not self.has_usable_context
        if not needed:
            logger.debug("fallback skipped (enabled=%s, usable context=%s)", self.settings.rag_fallback,
                         self.has_usable_context)
        return needed

    async def _run_groups(
        self,
        request: ChatRequest,
        ranked: Schedule,
        emitter: ResponseEmitter,
        guard: CollectingCallback,
        *,
        after: Rank | None,
    ) -> None:
        fallback_decided = after is not None and after[0] == FALLBACK_PHASE
        for rank, tools in ranked:
            if after is not None and rank <= after:
                continue
            if rank[0] == FALLBACK_PHASE and not fallback_decided:
                fallback_decided = True
                if not self._fallback_needed():
                    break
            self._rank = rank
            # One snapshot per group: tools of a group run concurrently and must not see each other (R-PRIO-3).
            public_only = rank[1] == PRIORITY_MAX
            snapshot = self.snapshot(public_only=public_only)
            deadlines = GroupDeadlines()
            runs = [self.run_tool(t, request, emitter, guard, deadlines=deadlines,
                                  snapshot=self.snapshot_for(t, snapshot, public_only=public_only))
                    for t in tools]
            try:
                results = await run_together(runs)
            finally:
                deadlines.close()
            if guard.done:  # a tool answered the user itself through the final callback
                emitter.complete()
                return
            if await self._ask_if_needed(request, results, ranked, rank, {}, emitter, guard):
                return
        await self._finish(request, emitter, guard)

    async def _ask_if_needed(
        self,
        request: ChatRequest,
        results: Sequence[ToolExecutionResult | None],
        ranked: Schedule,
        rank: Rank,
        rounds: dict[str, int],
        emitter: ResponseEmitter,
        guard: CollectingCallback,
    ) -> bool:
        questions = {}
        for result in results:
            if result is None or result.kind is not ResultKind.CLARIFICATION or result.question is None:
                continue
            asked = rounds.get(result.tool_name, 0) + 1
            if asked > self.settings.max_clarification_rounds:
                logger.error("tool %s asked more than %d questions; treated as failed", result.tool_name,
                             self.settings.max_clarification_rounds)
                self._failures[f"{MAIN_TASK}:{result.tool_name}"] = ToolError(
                    f"tool {result.tool_name!r} exceeded {self.settings.max_clarification_rounds} clarification rounds",
                    tool_name=result.tool_name)
                continue
            questions[result.tool_name] = result.question
            rounds[result.tool_name] = asked
        if not questions:
            return False
        pending = PendingRequest(
            session_id=SessionStore.new_id(),
            user_id=request.user_id,
            request=request,
            orchestrator_name=self.get_name(),
            questions=questions,
            buffer={k: list(v) for k, v in self._buffer.items()},
            resume_priority=rank[1],
            rounds={name: rounds[name] for name in questions},
            extra={"plan": describe(ranked)},
            resume_rank=rank,
            direct=list(self._direct),
            failures=dict(self._failures),
            tools_run=list(self._ran),
            order=dict(self._order),
            usable=self._usable,
        )
        self.sessions.put(pending)
        texts = [q.text for q in questions.values()]
        content = texts[0] if len(texts) == 1 else "\n".join(f"{i}. {t}" for i, t in enumerate(texts, start=1))
        emitter.emit_text(content)
        emitter.complete()
        guard.on_success(OpenAIResponse(
            content=content,
            finish_reason="clarification",
            clarification={
                "session_id": pending.session_id,
                "questions": [
                    {"tool": n, "question": q.text, "options": list(q.options)} for n, q in questions.items()
                ],
            },
            tools_run=list(self._ran),
            failures={key: repr(exc) for key, exc in self._failures.items()},
        ))
        return True

    async def _finish(self, request: ChatRequest, emitter: ResponseEmitter, guard: CollectingCallback) -> None:
        failures = {key: repr(exc) for key, exc in self._failures.items()}
        if self._direct:
            direct = [result for _, result in sorted(self._direct, key=lambda pair: pair[0])]
            content = "\n\n".join(r.answer or "" for r in direct)
            emitter.emit_text(content)
            sources = sorted({d.source or r.tool_name for r in direct for d in r.documents if not d.is_internal})
            response = OpenAIResponse(content, sources=sources, tools_run=list(self._ran), failures=failures)
        else:
            contexts = self.public_contexts()  # R-INT-2: nothing internal reaches the composer
            if not contexts and self._failures:
                emitter.complete()
                guard.on_error(ToolExecutionError(
                    f"no tool could answer; failed: {sorted(self._failures)}", failures=self._failures))
                return
            try:
                composed = await self.composer.compose(request.user_prompt, contexts, user_lang=request.user_lang,
                                                       emitter=emitter)
            except ToolError as exc:  # an LLM outage must not lose the context we have
                logger.error("answer composer failed (%s); quoting the context instead", exc)
                composed = await ExtractiveComposer().compose(request.user_prompt, contexts,
                                                              user_lang=request.user_lang, emitter=emitter)
            response = OpenAIResponse(composed.text, model=composed.model, sources=composed.sources,
                                      tools_run=list(self._ran), failures=failures)
        emitter.complete()
        guard.on_success(response)

    def execute_with_result(self, *args: Any, **kwargs: Any) -> ToolExecutionResult | None:
        """An orchestrator is driven by ``ChatPlatform.handle``/``handle``, not by routing; returns None."""
        return None


class DefaultOrchestrator(AbstractOrchestratorTool):
    """The domain-independent orchestrator used when no registered orchestrator matches a request."""

    name = "default_orchestrator"
    instruction = "Runs every tool of the request's domain in priority groups."
