"""The chat platform: picks exactly one orchestrator per request and runs it (R-OT-1, R-OT-3, R-OT-4).

``ChatPlatform`` is what the REST API (and tests, and the benchmark) talk to. It owns the tool container, the
clarification session store and the LLM pieces, chosen from settings: with ``llm.base_url`` set the router and the
composer use the chat-completions endpoint, otherwise the offline lexical router and extractive composer.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from tools.clarification import SessionStore
from tools.contracts import ChatbotTool, OrchestratorTool
from tools.documents import ToolExecutionResult
from tools.errors import NoOrchestratorError, ToolError, UnknownToolError
from tools.llm.client import LlmClient
from tools.llm.composer import AnswerComposer, ExtractiveComposer, LlmComposer
from tools.llm.router import EmbeddingRouter, LexicalRouter, LlmRouter, Router
from tools.orchestrator import AbstractOrchestratorTool, DefaultOrchestrator, call_tool_method, never_activated
from tools.plugins import ToolContainer, ToolRegistry
from tools.request import ChatRequest
from settings.chat import LlmSettings, OrchestratorSettings
from tools.streaming import CollectingCallback, FinalCallback, OpenAIResponse, ResponseEmitter

logger = logging.getLogger(__name__)


class ChatPlatform:
    """Serves chat requests with the registered tools; safe for many concurrent requests on one event loop."""

    def __init__(
        self,
        registry: ToolRegistry | None = None,
        *,
        orchestrator_settings: OrchestratorSettings | None = None,
        llm_settings: LlmSettings | None = None,
        router: Router | None = None,
        composer: AnswerComposer | None = None,
        services: Sequence[object] = (),
    ) -> None:
        self.orchestrator_settings = orchestrator_settings or OrchestratorSettings()
        self.llm_settings = llm_settings or LlmSettings()
        settings = self.orchestrator_settings
        client = LlmClient(self.llm_settings) if self.llm_settings.base_url else None
        if router is None:
            router = self._default_router(client)
        if composer is None:
            composer = (
                LlmComposer(client, stream=self.llm_settings.stream)
                if client
                else ExtractiveComposer(settings.answer_max_quotes)
            )
        self.sessions = SessionStore(settings.clarification_ttl_s, settings.max_sessions)
        base: list[object] = [settings, self.llm_settings, self.sessions, router, composer]
        if client is not None:
            base.append(client)
        self.container = ToolContainer(registry, [*base, *services])

    def _default_router(self, client: LlmClient | None) -> Router:
        lexical = LexicalRouter(self.orchestrator_settings.router_min_score)
        if client is not None and self.llm_settings.route_with_llm:
            return LlmRouter(client, lexical)
        if self.llm_settings.embedding_model:
            return EmbeddingRouter.from_sentence_transformers(
                self.llm_settings.embedding_model,
                min_similarity=self.llm_settings.embedding_min_similarity,
                lexical=lexical,
            )
        return lexical

    @classmethod
    def from_settings(cls, settings: Any, registry: ToolRegistry | None = None, **kwargs: Any) -> ChatPlatform:
        """Build from the composed ``settings.config.CsillagSettings`` (``settings.llm``, ``settings.orchestrator``)."""
        return cls(registry, orchestrator_settings=settings.orchestrator, llm_settings=settings.llm, **kwargs)

    def start(self) -> ChatPlatform:
        """Load plugins, build and validate the tools; call once at start-up (handle() does it lazily otherwise)."""
        self.container.start()
        return self

    def select_orchestrator(self, request: ChatRequest) -> type[AbstractOrchestratorTool]:
        """Exactly one orchestrator class for the request: by domain, then by eligible system (R-OT-1, R-OT-4).

        Orchestrators of the request's domain win over domain-independent ones; within them, one whose
        ``eligible_system`` is among ``request.systems`` wins over one without a system. No match falls back to
        ``DefaultOrchestrator``; two equally good matches are an error naming both.
        """
        classes = [c for c in self.container.orchestrator_classes() if issubclass(c, AbstractOrchestratorTool)]
        for domain in (request.domain, None):
            in_domain = [c for c in classes if c.domain == domain]
            if not in_domain:
                continue
            by_system = [c for c in in_domain if c.eligible_system is not None and c.eligible_system in request.systems]
            generic = [c for c in in_domain if c.eligible_system is None]
            for tier in (by_system, generic):
                if len(tier) == 1:
                    return tier[0]
                if len(tier) > 1:
                    raise NoOrchestratorError(
                        f"several orchestrators match domain {domain!r} and systems {list(request.systems)}: "
                        f"{sorted(c.name for c in tier)}; give each its own eligible_system"
                    )
        return DefaultOrchestrator

    def _orchestrator_by_name(self, name: str) -> type[AbstractOrchestratorTool]:
        if name == DefaultOrchestrator.name:
            return DefaultOrchestrator
        for cls in self.container.orchestrator_classes():
            if cls.name == name and issubclass(cls, AbstractOrchestratorTool):
                return cls
        raise UnknownToolError(f"orchestrator {name!r} of the clarification session is no longer registered")

    async def handle(
        self,
        request: ChatRequest,
        emitter: ResponseEmitter | None = None,
        callback: FinalCallback | None = None,
    ) -> OpenAIResponse:
        """Answer one turn (a new request, or the answer to a clarification question).

        The outcome also goes to ``callback`` (its ``on_error`` on failure); this method returns the response or
        raises the error (a ``ToolError``).
        """
        emitter = emitter or ResponseEmitter()
        guard = CollectingCallback(callback)
        self.container.start()
        if request.session_id is not None:
            try:
                pending = self.sessions.take(request.session_id, request.user_id)
                orchestrator = self.container.new_orchestrator(self._orchestrator_by_name(pending.orchestrator_name))
            except ToolError as exc:  # unknown/expired session, or its orchestrator is gone
                guard.on_error(exc)
                emitter.complete()
                return guard.result()
            await orchestrator.resume(pending, request, emitter, guard)
        else:
            try:
                orchestrator = self.container.new_orchestrator(self.select_orchestrator(request))
            except NoOrchestratorError as exc:
                guard.on_error(exc)
                emitter.complete()
                return guard.result()
            await orchestrator.handle(request, emitter, guard)
        return guard.result()

    async def run_tool(self, name: str, request: ChatRequest, emitter: ResponseEmitter | None = None) -> Any:
        """Activate one tool explicitly by name through ``execute_with_result`` (R-DEP-5); no orchestrator.

        Ingestion, async-task and orchestrator tools are refused (R-ING-1, R-ASYNC-1).
        """
        tool: ChatbotTool = self.container.get(name)
        if never_activated(tool) or isinstance(tool, OrchestratorTool):
            kind = type(tool).__name__
            raise UnknownToolError(f"tool {name!r} ({kind}) cannot be activated from chat", tool_name=name)
        emitter = emitter or ResponseEmitter()
        result = await call_tool_method(
            tool.execute_with_result,
            list(request.systems), request.user_prompt, request.user_lang, list(request.important_words),
            emitter, CollectingCallback(),
            timeout_s=tool.timeout_s or self.orchestrator_settings.tool_timeout_s,
        )
        if result is not None and not isinstance(result, ToolExecutionResult):
            raise UnknownToolError(f"tool {name!r} returned {type(result).__name__}, not a ToolExecutionResult")
        return result
