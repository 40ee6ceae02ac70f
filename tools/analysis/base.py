"""The collaborators every analysis tool has, wired through protected setters (R-PLUG-1, R-PLUG-2).

Tools are built without arguments; a domain subclass declares ``Injected[...]`` fields and hands them to these
setters in ``init()``. A tool used before it is wired raises ``ToolError`` naming the missing collaborator, never an
``AttributeError`` deep inside a query.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from tools.analysis.domain import KNOWN_DOMAINS, DomainSettings
from tools.errors import ToolError
from tools.ingestion import IngestionTool
from tools.llm.client import LlmClient
from tools.retrieval.analyzer import Analyzer
from tools.retrieval.chunks import ChunkRetriever
from tools.retrieval.units import UnitCatalog

logger = logging.getLogger(__name__)

MAX_TITLES = 3
_LINK_WORDS = frozenset("a an and as at but by for from in into of on or the to with".split())
_CATALOGUE_NUMBER = re.compile(r"^\d+[_\s-]+")


def readable_title(name: str) -> str:
    """A document title as a reader writes it: "215_the_call_of_the_wild" (a file name with its catalogue number)
    becomes "The Call of the Wild"; a title that already has capitals or spaces is kept."""
    if " " in name.strip() or any(ch.isupper() for ch in name):
        return name.strip()
    words = _CATALOGUE_NUMBER.sub("", name).replace("_", " ").replace("-", " ").split()
    return " ".join(w if (i and w in _LINK_WORDS) else w[:1].upper() + w[1:] for i, w in enumerate(words))


class AnalysisCollaborators:
    """Mixin: graph store, chunk retriever, unit catalogue, domain settings, NER ingestion tool and assistant."""

    _graph: Any = None
    _retriever: ChunkRetriever | None = None
    _units: UnitCatalog | None = None
    _domain_settings: DomainSettings | None = None
    _ner_tool: IngestionTool | None = None
    _assistant: LlmClient | None = None
    _analyzer: Analyzer | None = None
    _inactive: str | None = None

    def deactivate(self, reason: str) -> None:
        """Keep the tool registered but idle: it claims no question and answers ``nothing`` (logged once).

        For a platform started without this domain's services (e.g. every plugin loaded through entry points): one
        unconfigured domain must not stop the container (R-DEP-3's spirit: log, disable, keep running).
        """
        self._inactive = reason
        logger.warning("tool %s is inactive: %s", getattr(self, "name", type(self).__name__), reason)

    @property
    def inactive(self) -> bool:
        """Whether the tool was deactivated for lack of its services."""
        return self._inactive is not None

    # -- protected setters (R-PLUG-2): called from a subclass's init() ----------------------------------------
    def set_graph_store(self, graph: Any) -> None:
        """The ``graph.store.GraphReader`` the tool queries."""
        self._graph = graph

    def set_retriever(self, retriever: ChunkRetriever | None) -> None:
        """The chunk retriever (passages, citations, search)."""
        self._retriever = retriever

    def set_unit_catalog(self, units: UnitCatalog | None) -> None:
        """The catalogue of parts and chapters."""
        self._units = units

    def set_domain_settings(self, settings: DomainSettings) -> None:
        """The domain this instance serves (name, language, lakehouse)."""
        self._domain_settings = settings
        self._analyzer = Analyzer(settings.language)

    def set_ner_ingestion_tool(self, tool: IngestionTool | None) -> None:
        """The domain's NER ingestion tool: what built the graph this tool reads (its labels and language)."""
        self._ner_tool = tool

    def set_assistant(self, assistant: LlmClient | None) -> None:
        """The tool's own LLM assistant; None in offline mode."""
        self._assistant = assistant

    # -- access --------------------------------------------------------------------------------------------
    @property
    def graph(self) -> Any:
        """The wired graph store."""
        return self._need("_graph", "graph store", "set_graph_store")

    @property
    def retriever(self) -> ChunkRetriever:
        """The wired chunk retriever."""
        return self._need("_retriever", "chunk retriever", "set_retriever")

    @property
    def units(self) -> UnitCatalog:
        """The wired unit catalogue."""
        return self._need("_units", "unit catalogue", "set_unit_catalog")

    @property
    def analyzer(self) -> Analyzer | None:
        """The domain language's analyser (stemming names and queries), once the domain is set."""
        return self._analyzer

    @property
    def ner_ingestion_tool(self) -> IngestionTool | None:
        """The domain's NER ingestion tool, if wired."""
        return self._ner_tool

    @property
    def assistant(self) -> LlmClient | None:
        """The tool's LLM assistant, if wired."""
        return self._assistant

    def book_title(self) -> str:
        """The books' title for answers: a known domain's, else the documents' own (``readable_title``: up to three,
        joined), else the domain's title."""
        settings = self._domain_settings
        known = KNOWN_DOMAINS.get(settings.name, {}).get("title") if settings is not None else None
        if known:
            return known
        titles = list(dict.fromkeys(c.doc_title for c in self._retriever.chunks)) if self._retriever else []
        if 0 < len(titles) <= MAX_TITLES:
            return " · ".join(readable_title(t) for t in titles if t)
        return settings.title if settings is not None else ""

    def get_domain(self) -> str | None:
        """The configured domain's name, else the class's ``domain`` (R-CLAR-3)."""
        if self._domain_settings is not None:
            return self._domain_settings.name
        return getattr(type(self), "domain", None)

    def answer_language(self, user_lang: str) -> str:
        """The user's language (R-INT answers go to the user), else the domain's."""
        if user_lang:
            return user_lang.split("-")[0].casefold()
        return self.book_language()

    def book_language(self) -> str:
        """The language the domain's books are written in ("en" before the domain is set)."""
        return self._domain_settings.language if self._domain_settings else "en"

    def _need(self, attribute: str, what: str, setter: str) -> Any:
        value = getattr(self, attribute)
        if value is None:
            name = getattr(self, "name", type(self).__name__)
            raise ToolError(f"tool {name!r} has no {what}; call {setter}() in init()", tool_name=name)
        return value

    def matches_prompt(self, prompt: str, user_lang: str) -> bool:  # pragma: no cover - overridden
        """Offline suitability test: whether this tool should run for ``prompt`` (see the analysis orchestrator)."""
        return False
