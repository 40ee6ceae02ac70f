"""A domain as configuration: which book collection, in which language, from which lakehouse.

The same tool classes serve Egri csillagok, War and Peace and any other book; only a ``DomainSettings`` differs.
``DomainSettings.for_lakehouse`` chooses it from the settings and from what the lakehouse holds (never a hard-coded
default domain); ``DomainServices`` loads what the tools are injected with — the graph store, the chunk retriever and
the unit catalogue — once per process, from the lakehouse. ``ChatPlatform.from_settings`` does both.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, field_validator

from graph.errors import GraphStoreError, StorageError
from graph.lakehouse import Lakehouse
from graph.roots import is_remote
from tools.analysis.lakehouse import LakehouseContents
from tools.errors import ConfigError, ToolError
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

    name: str = Field(min_length=1, description="The chat requests' domain; no default: see for_lakehouse().")
    title: str = ""
    language: str = Field(min_length=2, description="ISO code of the books and the default answer language.")
    # Built once at the edge (settings.lakehouse.lakehouse(), --lakehouse): a folder, a bucket or HDFS.
    lakehouse: InstanceOf[Lakehouse] = Field(default_factory=lambda: Lakehouse.for_root("lakehouse"))
    ingestion_tool: str | None = Field(
        default=None,
        description="Registered name of the ingestion tool that builds the lakehouse (e.g. ner_ingestion): the one "
        "wired to the domain's chat tools. None = the tool the container injects for the tools' class domain.",
    )

    @field_validator("lakehouse", mode="before")
    @classmethod
    def _no_root_as_text(cls, value: Any) -> Any:
        # a bucket's endpoint is a setting, so a root as text is never guessed into a Lakehouse here
        if isinstance(value, str | os.PathLike):
            kind = "a remote lakehouse root" if is_remote(value) else "a lakehouse folder"
            raise ValueError(f"{os.fspath(value)} is {kind}: pass its Lakehouse (settings.lakehouse.lakehouse(), or "
                             "graph.lakehouse.Lakehouse.for_root(root, s3))")
        return value

    @classmethod
    def for_domain(cls, name: str, *, lakehouse: Lakehouse, language: str | None = None,
                   title: str | None = None, ingestion_tool: str | None = None) -> DomainSettings:
        """Settings of ``name``: its known defaults, overridden by what is given.

        Raises:
            ConfigError: an unknown domain without a language.
        """
        known = KNOWN_DOMAINS.get(name, {})
        language = language or known.get("language")
        if not language:
            raise ConfigError(
                f"domain {name!r} is not one of {sorted(KNOWN_DOMAINS)} and the documents of "
                f"{lakehouse.uri()} record no language; give its language (ner.language)",
                field="domain",
            )
        return cls(name=name, title=title or known.get("title", name), language=language, lakehouse=lakehouse,
                   ingestion_tool=ingestion_tool or known.get("ingestion_tool"))

    @classmethod
    def for_lakehouse(cls, settings: Any, contents: LakehouseContents, name: str | None = None) -> DomainSettings:
        """The domain of a ready lakehouse (``check_lakehouse``'s result), chosen from settings and what it holds.

        Name: ``name``, else the domain of the ingestion tool that ``ingestion.tool`` names (e.g.
        ``egri_csillagok_ner_ingestion`` → ``egri_csillagok``), else the lakehouse folder's name (in a bucket: the
        last segment of its path, else the bucket's name) — a generic domain,
        with a known domain's title when the folder is named like one. Language: the documents' majority language
        (what the books were analysed in), else ``ner.language``, else the known domain's.

        Raises:
            ConfigError: no language anywhere (documents without a language, no ``ner.language``, unknown domain).
        """
        name = name or _tool_domain(settings.ingestion.tool) or _folder_name(contents.root)
        configured = settings.ner.language
        if contents.language and configured and configured != contents.language:
            logger.warning("ner.language is %s but the documents of %s are %s; analysing questions as %s", configured,
                           contents.root.uri(), contents.language, contents.language)
        return cls.for_domain(name, lakehouse=contents.root, language=contents.language or configured,
                              ingestion_tool=settings.ingestion.tool)

    @classmethod
    def from_settings(cls, settings: Any, name: str) -> DomainSettings:
        """From the composed ``CsillagSettings``: ``lakehouse.root``, ``ner.language`` and ``ingestion.tool``."""
        return cls.for_domain(name, lakehouse=settings.lakehouse.lakehouse(), language=settings.ner.language,
                              ingestion_tool=settings.ingestion.tool)


def _folder_name(root: Lakehouse) -> str:
    """The lakehouse's own name: its folder's, or in a bucket or HDFS the last segment of its path (else the bucket's
    or the NameNode's)."""
    if root.local is not None:
        return root.local.name
    return root.prefix.rsplit("/", 1)[-1] or str(root.bucket or root.namenode)


def _tool_domain(tool_name: str | None) -> str | None:
    """The domain of the registered ingestion tool ``tool_name`` (its class's ``domain``); None if generic/unknown."""
    if not tool_name:
        return None
    from tools.plugins import ToolRegistry

    try:
        return getattr(ToolRegistry().get_class(tool_name), "domain", None)
    except ToolError as exc:  # an unknown name is the ingestion side's error to report, not the chat side's
        logger.debug("ingestion tool %r names no domain: %s", tool_name, exc)
        return None


@dataclass
class DomainServices:
    """What the domain tools are injected with; ``as_list()`` feeds ``ChatPlatform(services=...)``."""

    domain: DomainSettings
    graph: Any  # a graph.store.GraphStore
    retriever: ChunkRetriever
    units: UnitCatalog
    stamp: str | None = None  # what the lakehouse published when these were loaded (graph.model.publication_stamp)

    @classmethod
    def load(cls, domain: DomainSettings, graph_settings: Any = None, *, dense: DenseEncoder | None = None,
             neo4j_settings: Any = None, retrieval_settings: Any = None) -> DomainServices:
        """Load the graph (embedded by default, Neo4j when ``graph.store = "neo4j"``) and the chunk index.

        Hybrid ranking: ``dense``, else the model named by ``retrieval_settings.dense_model`` (empty: BM25 only;
        the numpy encoder is then not even imported). ``stamp`` is taken before anything is read: a run published
        while they load makes ``is_current`` false at once, never a mix that passes for current.

        Raises:
            ConfigError: the dense model cannot be loaded (names the setting's value).
        """
        if dense is None and getattr(retrieval_settings, "dense_model", "").strip():
            from tools.retrieval.dense import load_encoder

            dense = load_encoder(retrieval_settings.dense_model, batch_size=retrieval_settings.dense_batch_size,
                                 threads=retrieval_settings.dense_threads)
        stamp = _stamp(domain.lakehouse)
        store_kind = getattr(graph_settings, "store", "embedded")
        if store_kind == "neo4j":
            from graph.neo4j_store import Neo4jGraphStore

            graph: Any = Neo4jGraphStore.from_settings(neo4j_settings)
        else:
            from graph.embedded import EmbeddedGraphStore

            graph = EmbeddedGraphStore.from_settings(domain.lakehouse, graph_settings)
        retriever = ChunkRetriever.from_lakehouse(domain.lakehouse, domain.language, dense=dense)
        units = UnitCatalog.from_lakehouse(domain.lakehouse, retriever.chunks)
        return cls(domain, graph, retriever, units, stamp)

    def is_current(self) -> bool:
        """Whether the lakehouse still publishes what these services hold (a cheap check: the publish manifest's
        text, ``graph.model.publication_stamp``). False once another run was published — documents removed or
        edited (whose old text a vacuum then deletes), a rebuild from another corpus — or the lakehouse is gone; true
        when the bucket cannot be reached now (nothing says the book changed; logged)."""
        try:
            return _stamp(self.domain.lakehouse) == self.stamp
        except StorageError as exc:
            logger.warning("cannot check whether %s published another run: %s", self.domain.lakehouse.uri(),
                           exc)
            return True
        except GraphStoreError:  # the manifest unreadable, or no manifest and a table gone
            return False

    def as_list(self) -> list[object]:
        """The services, for ``ChatPlatform(services=...)``."""
        return [self.domain, self.graph, self.retriever, self.units]


def _stamp(root: Lakehouse) -> str:
    from graph.model import publication_stamp  # with pandas: not at import, ``csillag ask --help`` stays fast

    return publication_stamp(root)
