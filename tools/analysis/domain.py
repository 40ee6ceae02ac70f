"""A domain as configuration: which book collection, in which language, from which lakehouse.

The same tool classes serve Egri csillagok and War and Peace; only a ``DomainSettings`` differs. ``DomainServices``
loads what the tools are injected with — the graph store, the chunk retriever and the unit catalogue — once per
process, from the lakehouse.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tools.errors import ConfigError
from tools.retrieval.chunks import ChunkRetriever, DenseEncoder
from tools.retrieval.units import UnitCatalog

logger = logging.getLogger(__name__)

KNOWN_DOMAINS: dict[str, dict[str, str]] = {
    "egri_csillagok": {"title": "Egri csillagok", "language": "hu", "ingestion_tool": "egri_csillagok_ner_ingestion"},
    "war_and_peace": {"title": "War and Peace", "language": "en", "ingestion_tool": "ner_ingestion"},
}
"""Defaults of the domains csillag ships; any other name works when its language is given."""


class DomainSettings(BaseModel):
    """One domain: its name (the chat requests' ``domain``), title, language, lakehouse and ingestion tool."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "egri_csillagok"
    title: str = ""
    language: str = Field(default="hu", description="ISO code of the books and the default answer language.")
    lakehouse: Path = Path("lakehouse")
    ingestion_tool: str | None = Field(
        default=None,
        description="Registered name of the ingestion tool that builds the lakehouse (e.g. ner_ingestion): the one "
        "wired to the domain's chat tools. None = the tool the container injects for the tools' class domain.",
    )

    @classmethod
    def for_domain(cls, name: str, *, lakehouse: Path, language: str | None = None, title: str | None = None,
                   ingestion_tool: str | None = None) -> DomainSettings:
        """Settings of ``name``: its known defaults, overridden by what is given.

        Raises:
            ConfigError: an unknown domain without a language.
        """
        known = KNOWN_DOMAINS.get(name, {})
        language = language or known.get("language")
        if not language:
            raise ConfigError(
                f"domain {name!r} is not one of {sorted(KNOWN_DOMAINS)}; give its language (ner.language)",
                field="domain",
            )
        return cls(name=name, title=title or known.get("title", name), language=language, lakehouse=lakehouse,
                   ingestion_tool=ingestion_tool or known.get("ingestion_tool"))

    @classmethod
    def from_settings(cls, settings: Any, name: str) -> DomainSettings:
        """From the composed ``CsillagSettings``: ``lakehouse.root``, ``ner.language`` and ``ingestion.tool``."""
        return cls.for_domain(name, lakehouse=Path(settings.lakehouse.root), language=settings.ner.language,
                              ingestion_tool=settings.ingestion.tool)


@dataclass
class DomainServices:
    """What the domain tools are injected with; ``as_list()`` feeds ``ChatPlatform(services=...)``."""

    domain: DomainSettings
    graph: Any  # a graph.store.GraphStore
    retriever: ChunkRetriever
    units: UnitCatalog

    @classmethod
    def load(cls, domain: DomainSettings, graph_settings: Any = None, *, dense: DenseEncoder | None = None,
             neo4j_settings: Any = None, retrieval_settings: Any = None) -> DomainServices:
        """Load the graph (embedded by default, Neo4j when ``graph.store = "neo4j"``) and the chunk index.

        Hybrid ranking: ``dense``, else the model named by ``retrieval_settings.dense_model`` (empty: BM25 only;
        the numpy encoder is then not even imported).

        Raises:
            ConfigError: the dense model cannot be loaded (names the setting's value).
        """
        if dense is None and getattr(retrieval_settings, "dense_model", "").strip():
            from tools.retrieval.dense import load_encoder

            dense = load_encoder(retrieval_settings.dense_model, batch_size=retrieval_settings.dense_batch_size,
                                 threads=retrieval_settings.dense_threads)
        store_kind = getattr(graph_settings, "store", "embedded")
        if store_kind == "neo4j":
            from graph.neo4j_store import Neo4jGraphStore

            graph: Any = Neo4jGraphStore.from_settings(neo4j_settings)
        else:
            from graph.embedded import EmbeddedGraphStore

            graph = EmbeddedGraphStore.from_settings(domain.lakehouse, graph_settings)
        retriever = ChunkRetriever.from_lakehouse(domain.lakehouse, domain.language, dense=dense)
        units = UnitCatalog.from_lakehouse(domain.lakehouse, retriever.chunks)
        return cls(domain, graph, retriever, units)

    def as_list(self) -> list[object]:
        """The services, for ``ChatPlatform(services=...)``."""
        return [self.domain, self.graph, self.retriever, self.units]
