"""Loading a lakehouse's graph into Neo4j: what the pipeline's ``neo4j`` stage and ``csillag graph load`` run.

The graph is read from the Delta tables at explicit versions (``lakehouse_versions``) and the server is made to hold
exactly that graph (``Neo4jGraphStore.load``: upsert by stable ids, removal of what is gone). Which versions:

- the pipeline's stage loads the *latest* ones — what the run holding the lakehouse lock has just written; the run
  publishes them (``graph.published``) only after its last stage;
- ``csillag graph load`` loads the *published* ones — what every other reader of the lakehouse sees.

Any trouble with the server becomes one ``GraphLoadError`` line naming the URI and the user; the Delta tables are
only read, so they stay as they are, and loading again later completes the graph.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from graph.errors import GraphDataError, GraphLoadError, GraphStoreError
from graph.lakehouse import Lakehouse
from graph.model import (
    LAKEHOUSE_TABLES,
    OPTIONAL_TABLES,
    GraphData,
    missing_table_error,
    read_records,
    table_versions,
)
from graph.published import PublishedRun
from graph.results import GraphStats, LoadReport
from graph.settings import Neo4jSettings

logger = logging.getLogger(__name__)

#: The counts a load leaves in the store, in the order the summary names them.
COUNTED = ("entities", "relations", "documents", "units", "chunks", "mentions", "typed_relations", "quotations")


@dataclass(frozen=True)
class Neo4jLoad:
    """What a load of the lakehouse into Neo4j did: the table versions read, the load report, the store's counts."""

    uri: str
    database: str
    versions: dict[str, int]
    report: LoadReport
    stats: GraphStats

    def counts(self) -> dict[str, int]:
        """What the server holds now, by kind."""
        return {kind: getattr(self.stats, kind) for kind in COUNTED}

    def summary(self) -> str:
        """One line: where, what the server holds now, and what the load changed."""
        held = ", ".join(f"{getattr(self.stats, kind)} {kind}" for kind in COUNTED)
        changed = [
            f"{kind} +{self.report.added.get(kind, 0)} -{self.report.removed.get(kind, 0)}"
            for kind in COUNTED
            if self.report.added.get(kind) or self.report.removed.get(kind)
        ]
        change = "; changed: " + ", ".join(changed) if changed else "; nothing changed"
        return f"Neo4j at {self.uri} (database {self.database}) holds {held}{change} ({self.report.seconds:.1f} s)"


def lakehouse_versions(root: Lakehouse, *, published: bool) -> dict[str, int]:
    """The Delta version of every table the graph reads: the published ones, or the latest.

    Raises ``GraphDataError`` naming the path and the stage to run when a table is missing.
    """
    if published:
        return table_versions(root)
    from deltalake import DeltaTable
    from deltalake.exceptions import TableNotFoundError

    versions = {}
    for table in LAKEHOUSE_TABLES:
        try:
            versions[table] = DeltaTable(root.delta_uri(table), storage_options=root.storage_options).version()
        except TableNotFoundError as exc:
            if table in OPTIONAL_TABLES:
                continue
            raise missing_table_error(root, table, "not a Delta table") from exc
    return versions


def read_graph(root: Lakehouse, versions: dict[str, int]) -> GraphData:
    """The graph of the lakehouse with every table read at the given version (delta-rs time travel)."""
    pinned = PublishedRun(finished_at="", tables=versions)  # the manifest format is how read_table takes versions
    return GraphData.from_tables(read_records(root, pinned))


def _one_line(exc: Exception) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " ".join(lines)[:400] if lines else type(exc).__name__


def load_into_neo4j(
    root: Lakehouse, settings: Neo4jSettings, *, published: bool, versions: dict[str, int] | None = None
) -> Neo4jLoad:
    """Make the Neo4j server of ``settings`` hold exactly the graph of the lakehouse at ``root``.

    ``versions`` pins the tables (else ``lakehouse_versions(root, published=published)``).

    Raises:
        GraphDataError: a table is missing or malformed (names its path).
        GraphLoadError: the server is down, refuses the credentials or fails (one line with the URI and the user).
    """
    from graph.neo4j_store import Neo4jGraphStore  # the driver is needed only here

    versions = versions if versions is not None else lakehouse_versions(root, published=published)
    graph = read_graph(root, versions)
    try:
        store = Neo4jGraphStore.from_settings(settings)
        try:
            report = store.load(graph)
            stats = store.stats()
        finally:
            store.close()
    except GraphDataError:
        raise
    except GraphStoreError as exc:
        raise GraphLoadError(
            f"cannot load the graph into Neo4j at {settings.uri} as user {settings.user!r}: {_one_line(exc)}",
            uri=settings.uri, user=settings.user,
        ) from exc
    done = Neo4jLoad(uri=settings.uri, database=settings.database, versions=versions, report=report, stats=stats)
    logger.info("%s", done.summary())
    return done


def neo4j_counts(settings: Neo4jSettings) -> dict[str, int]:
    """What the Neo4j server of ``settings`` holds now, by kind; raises ``GraphLoadError`` like a load."""
    from graph.neo4j_store import Neo4jGraphStore

    try:
        store = Neo4jGraphStore.from_settings(settings)
        try:
            stats = store.stats()
        finally:
            store.close()
    except GraphStoreError as exc:
        raise GraphLoadError(
            f"cannot read the graph in Neo4j at {settings.uri} as user {settings.user!r}: {_one_line(exc)}",
            uri=settings.uri, user=settings.user,
        ) from exc
    return {kind: getattr(stats, kind) for kind in COUNTED}
