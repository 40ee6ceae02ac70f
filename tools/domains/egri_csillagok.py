"""The reference domain (R-REF-1): the chat tools of *Egri csillagok*, and of any other book by configuration.

Every class has a no-argument constructor; its collaborators are ``Injected[...]`` fields that the container fills
before ``init()`` wires them into the base class's setters (R-PLUG-1, R-PLUG-2). The domain itself is a service
too — ``DomainSettings`` (name, language, lakehouse, ingestion tool) — so the same classes answer questions about
War and Peace, or any book, when the platform is given that lakehouse's domain and services; ``TOOLS`` are the book
tools ``ChatPlatform.from_settings`` runs over the lakehouse it loads. The ingestion tool wired to them is the one
``DomainSettings.ingestion_tool`` names (``ner_ingestion`` for War and Peace, ``egri_csillagok_ner_ingestion`` for
Egri csillagok), looked up among the registered tools. Entry points (group ``csillag.tools``)::

    egri_csillagok = "tools.domains.egri_csillagok:TOOLS"
"""

from __future__ import annotations

import logging
from typing import ClassVar

from graph.store import GraphReader
from tools.analysis.answering import AbstractQuestionAnsweringTool
from tools.analysis.base import AnalysisCollaborators
from tools.analysis.context_search import AbstractContextSearchTool
from tools.analysis.domain import DomainSettings
from tools.analysis.entity import AbstractEntityAnalysisTool
from tools.analysis.orchestrator import AbstractAnalysisOrchestrator
from tools.analysis.page import AbstractPageAnalysisTool
from tools.analysis.rag import AbstractRAGRetrievalTool
from tools.analysis.relations import AbstractRelationsTool
from tools.analysis.splitter import AbstractQuestionSplitter
from tools.analysis.summary import AbstractSummaryTool
from tools.contracts import ChatbotTool
from tools.errors import ConfigError
from tools.ingestion import IngestionTool
from tools.llm.client import LlmClient
from tools.plugins import Injected, ToolContainer
from tools.retrieval.chunks import ChunkRetriever
from tools.retrieval.units import UnitCatalog

logger = logging.getLogger(__name__)

DOMAIN = "egri_csillagok"


class _DomainWiring(AnalysisCollaborators):
    """The injected fields every domain tool has, handed to the base class's setters in ``init()``."""

    # The class's own domain until the configured one is wired: injection picks this domain's ingestion tool.
    domain: ClassVar[str | None] = DOMAIN

    # Optional so that a platform loading every plugin through entry points, without this domain's services,
    # still starts: the tools then stay inactive (see ``deactivate``) instead of failing the container.
    domain_settings: Injected[DomainSettings | None]
    graph_store: Injected[GraphReader | None]
    chunk_retriever: Injected[ChunkRetriever | None]
    unit_catalog: Injected[UnitCatalog | None]
    ner_tool: Injected[IngestionTool | None]
    llm: Injected[LlmClient | None]
    # To pick the ingestion tool the domain settings name (``DomainSettings.ingestion_tool``) among those registered.
    container: Injected[ToolContainer | None]

    def init(self) -> None:
        """Wire the injected collaborators (R-PLUG-2); without the domain's services the tool stays inactive."""
        services = {"DomainSettings": self.domain_settings, "GraphStore": self.graph_store,
                    "ChunkRetriever": self.chunk_retriever, "UnitCatalog": self.unit_catalog}
        missing = sorted(name for name, value in services.items() if value is None)
        if missing or self.domain_settings is None:
            self.deactivate(f"no {', '.join(missing)} service; provide DomainServices.load(...).as_list()")
            return
        self.set_domain_settings(self.domain_settings)
        self.set_graph_store(self.graph_store)
        self.set_retriever(self.chunk_retriever)
        self.set_unit_catalog(self.unit_catalog)
        self.set_ner_ingestion_tool(self._ingestion_tool(self.domain_settings))
        self.set_assistant(self.llm)

    def _ingestion_tool(self, domain: DomainSettings) -> IngestionTool | None:
        """The ingestion tool the domain settings name; without a name, the injected one if it is not foreign.

        Raises:
            ConfigError: the named tool is registered but is no ingestion tool, or serves another domain.
        """
        name = domain.ingestion_tool
        if name is None:
            # Same classes, another book: another domain's ingestion tool is not ours.
            tool = self.ner_tool
            return tool if tool is not None and tool.get_domain() in (None, domain.name) else None
        found = self.container.find(name) if self.container is not None else None
        if found is None:
            logger.warning("tool %s: the ingestion tool %r of domain %s is not registered; none wired",
                           getattr(self, "name", type(self).__name__), name, domain.name)
            return None
        if not isinstance(found, IngestionTool):
            raise ConfigError(f"ingestion tool {name!r} of domain {domain.name!r} is not an ingestion tool "
                              f"({type(found).__qualname__})", field="ingestion.tool")
        if found.get_domain() not in (None, domain.name):
            raise ConfigError(f"ingestion tool {name!r} serves domain {found.get_domain()!r}, not {domain.name!r}",
                              field="ingestion.tool")
        return found


class EgriCsillagokCharacterTool(_DomainWiring, AbstractEntityAnalysisTool):
    """Who is who in the book: a character, their closest companions, how two are connected, their path."""

    name = "characters"
    instruction = (
        "Answers questions about the characters and places of the book: who someone is, their closest companion "
        "and strongest relations, how two characters are connected, and their story chapter by chapter. "
        "Ki kicsoda, ki a társa, milyen kapcsolatban áll két szereplő."
    )


class EgriCsillagokQuestionAnsweringTool(_DomainWiring, AbstractQuestionAnsweringTool):
    """The answer to any other question about the book, from its sentences, with the evidence."""

    name = "question_answering"
    instruction = (
        "Answers questions about what happens in the book: who did something, where, when, why and how, "
        "with the passages that say so. Ki tette, hol, mikor, miért, hogyan történt."
    )


class EgriCsillagokRelationsTool(_DomainWiring, AbstractRelationsTool):
    """Who is whose mother or wife, how two characters are related, who said a quotation, what one says to another."""

    name = "relations"
    instruction = (
        "Answers who is someone's mother, father, wife or husband, how two characters are related, who said a "
        "quotation and what one character says to another. Ki kinek a rokona, ki mondta."
    )


class EgriCsillagokQuestionSplitter(_DomainWiring, AbstractQuestionSplitter):
    """A question that asks two things, answered as two steps of one plan."""

    name = "question_parts"
    instruction = "Splits a question that asks two things into two questions answered in turn."


class EgriCsillagokChapterTool(_DomainWiring, AbstractPageAnalysisTool):
    """What happens in a chapter, and who appears in it."""

    name = "chapters"
    instruction = "Tells what happens in a chapter and who appears in it. Mi történik egy fejezetben."


class EgriCsillagokSummaryTool(_DomainWiring, AbstractSummaryTool):
    """An overview of the book."""

    name = "summary"
    instruction = "Summarises the book: its main characters and strongest relations. Összefoglalja a könyvet."


class EgriCsillagokContextSearchTool(_DomainWiring, AbstractContextSearchTool):
    """Passages about the entities the other tools resolved."""

    name = "context_search"
    instruction = "Finds passages of the book about the characters named in the question."


class EgriCsillagokRAGTool(_DomainWiring, AbstractRAGRetrievalTool):
    """The fallback: the best passages of the book for any question."""

    name = "rag_retrieval"
    instruction = "Retrieves passages of the book relevant to the question (fallback)."


class EgriCsillagokOrchestrator(AbstractAnalysisOrchestrator):
    """The domain's orchestrator: routed tools plus the analysis tools that claim the question."""

    name = "book_orchestrator"
    instruction = "Answers questions about the book with the character, chapter, summary and retrieval tools."
    tool_names = ("characters", "relations", "question_parts", "question_answering", "chapters", "summary",
                  "context_search", "rag_retrieval")


TOOLS: list[type[ChatbotTool]] = [
    EgriCsillagokCharacterTool,
    EgriCsillagokQuestionAnsweringTool,
    EgriCsillagokRelationsTool,
    EgriCsillagokQuestionSplitter,
    EgriCsillagokChapterTool,
    EgriCsillagokSummaryTool,
    EgriCsillagokContextSearchTool,
    EgriCsillagokRAGTool,
    EgriCsillagokOrchestrator,
]
"""Every class of the domain, for one ``csillag.tools`` entry point or ``ToolRegistry.register``."""
