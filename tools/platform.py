"""The chat platform: picks exactly one orchestrator per request and runs it (R-OT-1, R-OT-3, R-OT-4).

``ChatPlatform`` is what the REST API, ``csillag ask``, ``python -m tools.ask`` and a host importing the module talk
to, and ``ChatPlatform.from_settings(settings)`` is the one way they build it: it loads the lakehouse's book (or
fails with one line naming what is missing). It owns the tool container, the clarification session store and the
LLM pieces, chosen from settings: with ``llm.base_url`` set the router and the composer use the chat-completions
endpoint, otherwise the offline lexical router and extractive composer.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from settings.chat import LlmSettings, OrchestratorSettings
from tools.calling import ToolThreads, call_tool_method
from tools.clarification import SessionStore
from tools.contracts import ChatbotTool, OrchestratorTool
from tools.documents import ToolExecutionResult
from tools.errors import NoOrchestratorError, ToolError, UnknownToolError
from tools.llm.client import LlmClient
from tools.llm.composer import AnswerComposer, ExtractiveComposer, LlmComposer
from tools.llm.router import EmbeddingRouter, LexicalRouter, LlmRouter, Router
from tools.orchestrator import AbstractOrchestratorTool, DefaultOrchestrator, never_activated
from tools.plugins import ToolContainer, ToolRegistry
from tools.request import ChatRequest
from tools.streaming import CollectingCallback, FinalCallback, OpenAIResponse, ResponseEmitter

if TYPE_CHECKING:  # the book's modules read Delta tables: imported only when from_settings() loads a lakehouse
    from tools.analysis.domain import DomainServices, DomainSettings

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
        sessions: SessionStore | None = None,
    ) -> None:
        """``sessions``: the clarification sessions to carry on (a platform rebuilt over a newly published run keeps
        its predecessor's open questions); default: a new store."""
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
        self.sessions = sessions or SessionStore(settings.clarification_ttl_s, settings.max_sessions)
        self.threads = ToolThreads(settings.tool_threads, settings.tool_queue_timeout_s)
        base: list[object] = [settings, self.llm_settings, self.sessions, self.threads, router, composer]
        if client is not None:
            base.append(client)
        self.container = ToolContainer(registry, [*base, *services])
        self.book: DomainServices | None = None  # the loaded book, when from_settings() loaded it from a lakehouse

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
    def from_settings(
        cls,
        settings: Any,
        registry: ToolRegistry | None = None,
        *,
        domain: DomainSettings | str | None = None,
        services: Sequence[object] | None = None,
        **kwargs: Any,
    ) -> ChatPlatform:
        """The one way in: a started platform from the composed ``settings.config.CsillagSettings``.

        Without ``registry`` and ``services`` it serves the books of ``settings.lakehouse.root`` — a folder, or an
        ``s3a://`` bucket reached with ``lakehouse.s3`` (``domain`` given: that domain's lakehouse): it checks that
        the lakehouse is built, chooses the domain — ``domain`` (a name or full settings), else
        ``DomainSettings.for_lakehouse`` from the settings and the documents' language — loads its services (the
        graph store ``graph.store`` names, the chunk retriever, the unit catalogue) and runs the book tools beside
        the installed plugins; ``book`` then holds those ``DomainServices``. With an explicit ``registry`` or
        ``services`` (tests, a host composing its own tools) nothing is loaded: exactly those.

        Raises:
            LakehouseNotReadyError: the lakehouse is missing, empty or half-built (names the path and what is missing).
            ConfigError: the domain has no language, or a retrieval setting is unusable.
            GraphStoreError: the graph cannot be read or its server (or the lakehouse's bucket) reached.
        """
        chosen = {"orchestrator_settings": settings.orchestrator, "llm_settings": settings.llm} | kwargs
        if registry is not None or services is not None:
            return cls(registry, services=services or (), **chosen).start()
        from tools.analysis.domain import DomainServices, DomainSettings
        from tools.analysis.lakehouse import check_lakehouse
        from tools.domains.egri_csillagok import TOOLS
        from tools.plugins import default_registry

        if isinstance(domain, DomainSettings):
            check_lakehouse(domain.lakehouse)
        else:
            domain = DomainSettings.for_lakehouse(settings, check_lakehouse(settings.lakehouse.lakehouse()), domain)
        book = DomainServices.load(domain, settings.graph, neo4j_settings=settings.neo4j,
                                   retrieval_settings=settings.retrieval)
        for tool_class in TOOLS:  # the book tools, also when csillag's entry points are not installed
            default_registry.register(tool_class)
        # The settings are a service too: the ingestion tool the domain names is wired with these, not a second load.
        platform = cls(default_registry, services=[*book.as_list(), settings], **chosen).start()
        platform.book = book
        logger.info("chat platform serves domain %s (%s) from %s", domain.name, domain.language,
                    domain.lakehouse.uri())
        return platform

    def start(self) -> ChatPlatform:
        """Load plugins, build and validate the tools; call once at start-up (handle() does it lazily otherwise)."""
        self.container.start()
        return self

    def select_orchestrator(self, request: ChatRequest) -> type[AbstractOrchestratorTool]:
        """Exactly one orchestrator class for the request: by domain, then by eligible system (R-OT-1, R-OT-4).

        Domain and system are what each orchestrator's ``get_domain()`` / ``get_eligible_system()`` report (read
        once at start-up, where two orchestrators for the same pair are refused). Orchestrators of the request's
        domain win over domain-independent ones; within them, the one serving the first of ``request.systems`` that
        has one wins over one without a system. No match falls back to ``DefaultOrchestrator``.
        """
        index = [row for row in self.container.orchestrator_index() if issubclass(row[0], AbstractOrchestratorTool)]
        for domain in (request.domain, None):
            in_domain = {system: cls for cls, d, system in index if d == domain}
            for system in (*request.systems, None):
                if system in in_domain:
                    return cast(type[AbstractOrchestratorTool], in_domain[system])
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
            timeout_s=tool.timeout_s or self.orchestrator_settings.tool_timeout_s, threads=self.threads,
        )
        if result is not None and not isinstance(result, ToolExecutionResult):
            raise UnknownToolError(f"tool {name!r} returned {type(result).__name__}, not a ToolExecutionResult")
        return result

