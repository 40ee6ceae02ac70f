"""Stage 8, ``neo4j``: the graph loaded into Neo4j, when the chat side reads it from there (``graph.store``).

With ``graph.store = "neo4j"`` the stage makes the server named by the ``neo4j.*`` settings hold exactly the graph
of the Delta tables (``graph.loading``): entities, co-occurrences, documents, units, chunks and mentions upserted by
stable id, and whatever a changed corpus no longer has removed, so the server ends up as a fresh load would leave
it. With the embedded store the stage is reported ``skipped`` with the reason and writes no marker.

Its marker is keyed by the Delta versions of the tables it reads (the input fingerprint) and by the server's URI and
database (the config fingerprint; never the password), and it records what the server held after the load. A rerun
skips when the versions and the server are the same and the server still holds those counts (checked with one
count query, so a server emptied by hand is loaded again). Neo4j down or refusing the credentials fails the stage
with one line naming the URI and the user; the Delta tables are only read, and the next run loads.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from graph.errors import GraphStoreError
from ingestion.errors import IngestionError
from ingestion.markers import fingerprint
from ingestion.stage import Stage, StageOutput
from tools.ingestion import StageReport

if TYPE_CHECKING:
    from ingestion.context import RunContext

logger = logging.getLogger(__name__)


class Neo4jStage(Stage):
    """Loads the graph tables into Neo4j; writes no table."""

    name = "neo4j"
    version = 1
    tables = ()
    requires = ("graph",)

    def __init__(self) -> None:
        self._versions: dict[str, int] | None = None  # read once per run: the marker names what was loaded

    def run(self, ctx: RunContext) -> StageReport:
        """Skip (no marker) unless the chat side reads the graph from Neo4j; else the base class's run."""
        return self._unused(ctx) or super().run(ctx)

    def up_to_date(self, ctx: RunContext) -> StageReport | None:
        """Nothing to do when Neo4j is not used; else the base class's check."""
        return self._unused(ctx) or super().up_to_date(ctx)

    def _unused(self, ctx: RunContext) -> StageReport | None:
        store = ctx.settings.graph.store
        if store == "neo4j":
            return None
        reason = f'graph.store is {store!r}: Neo4j is not used (set graph.store = "neo4j" to load it)'
        logger.info("stage %s: skipped, %s", self.name, reason)
        return StageReport(stage=self.name, status="skipped", reason=reason)

    def config(self, ctx: RunContext) -> dict[str, Any]:
        """Which server and database (the password is not part of what was loaded)."""
        return {"uri": ctx.settings.neo4j.uri, "database": ctx.settings.neo4j.database}

    def _table_versions(self, ctx: RunContext) -> dict[str, int]:
        from graph.loading import lakehouse_versions

        if self._versions is None:
            try:
                self._versions = lakehouse_versions(ctx.lakehouse.storage, published=False)
            except GraphStoreError as exc:
                raise IngestionError(str(exc), stage=self.name, path=str(ctx.lakehouse.root)) from exc
        return self._versions

    def input_fingerprint(self, ctx: RunContext) -> str:
        """The graph marker, and the Delta version of every table loaded."""
        return fingerprint([super().input_fingerprint(ctx), self._table_versions(ctx)])

    def outputs_exist(self, ctx: RunContext) -> bool:
        """The server still holds what the last load left there (its counts, as the marker records them)."""
        from graph.loading import neo4j_counts

        marker = ctx.lakehouse.markers.read(self.name)
        if marker is None:
            return False
        try:
            return neo4j_counts(ctx.settings.neo4j) == marker.counts
        except GraphStoreError as exc:
            raise IngestionError(str(exc), stage=self.name) from exc

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Load the tables at the versions of the input fingerprint; the server is made to hold exactly them."""
        from graph.loading import load_into_neo4j

        versions = self._table_versions(ctx)
        try:
            done = load_into_neo4j(ctx.lakehouse.storage, ctx.settings.neo4j, published=False, versions=versions)
        except GraphStoreError as exc:
            raise IngestionError(str(exc), stage=self.name) from exc
        logger.info("stage %s: %s", self.name, done.summary())
        return StageOutput(
            counts=done.counts(),
            output_fingerprint=self.derived_fingerprint(ctx),
            details={
                "uri": done.uri, "database": done.database, "versions": versions,
                "added": done.report.added, "removed": done.report.removed,
            },
        )
