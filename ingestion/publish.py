"""Publishing a completed run: ``<root>/_published.json``, the table versions readers use (format: ``graph.published``).

The pipeline commits its tables stage by stage; readers must not see that mix. A run that completed publishes the
versions it left — written atomically (temp file + rename; in an S3 bucket one PUT, as the last write of the run),
so a reader sees the previous manifest or the new one — and only then removes the retrieval index files of other
chunks versions (the chat side may still be reading the previous version's files until the manifest changes). A
failed run publishes nothing: readers keep the last completed run. A run of some stages only (``--stages``, the
Airflow DAG's one-stage tasks) publishes only when the whole pipeline is consistent afterwards: every stage is up to
date, or has never run (a lakehouse ingested up to its chunks serves retrieval, and has no graph yet); otherwise the
last complete state stays published until the stage that is out of date has run.

The first run with the lock on a lakehouse without a manifest first publishes the tables as it finds them (the
``baseline``, with no run id), so that even then readers do not see that run half-written.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from graph.errors import GraphDataError
from graph.lakehouse import Lakehouse
from graph.published import PUBLISHED_FILE, PublishedRun, read_published
from ingestion.markers import MarkerStore
from tools.retrieval.chunks import prune_index, version_files

if TYPE_CHECKING:
    from ingestion.context import RunContext
    from ingestion.stage import Stage

logger = logging.getLogger(__name__)

StageState = Literal["current", "untouched", "stale"]


def table_versions(root: Lakehouse) -> dict[str, int]:
    """The latest Delta version of every table under ``root`` (folders holding a ``_delta_log``)."""
    from deltalake import DeltaTable

    return {
        name: int(DeltaTable(root.delta_uri(name), storage_options=root.storage_options).version())
        for name in root.list_dirs()
        if root.is_table(name)
    }


def snapshot(root: Lakehouse, *, run_id: str | None, tool: str | None) -> PublishedRun:
    """The manifest of the lakehouse's latest state: table versions, index files, stage markers."""
    tables = table_versions(root)
    markers = MarkerStore(root)
    from ingestion.pipeline import STAGE_NAMES

    recorded = {}
    for stage in STAGE_NAMES:
        marker = markers.read(stage)
        if marker is not None:
            recorded[stage] = marker.model_dump(mode="json")
    index_files = version_files(root, tables["chunks"]) if "chunks" in tables else []
    return PublishedRun(
        run_id=run_id,
        tool=tool,
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
        tables=tables,
        index_files=index_files,
        markers=recorded,
    )


def replaceable_manifest(root: Lakehouse) -> PublishedRun | None:
    """The manifest as a writer sees it: None when there is none, and when it is unreadable (damaged, or of a format
    this code does not read) — the run that holds the lock then writes a new one over it, since readers cannot use it
    anyway; a warning says so."""
    try:
        return read_published(root)
    except GraphDataError as exc:
        logger.warning("%s; this run replaces it", exc)
        return None


def write_manifest(root: Lakehouse, manifest: PublishedRun) -> None:
    """Write ``_published.json`` atomically: readers see the old manifest or the whole new one."""
    root.write_text(PUBLISHED_FILE, data=manifest.model_dump_json(indent=2))


def ensure_baseline(root: Lakehouse) -> None:
    """Before a run's first write: publish the tables as found when the lakehouse has no manifest yet."""
    if replaceable_manifest(root) is not None:
        return
    manifest = snapshot(root, run_id=None, tool=None)
    write_manifest(root, manifest)
    logger.info("lakehouse %s had no publish manifest: published its %d table(s) as found", root, len(manifest.tables))


def stage_state(ctx: RunContext, stage: Stage) -> StageState:
    """``current`` (a rerun would skip it: the same check as ``Stage.run``), ``untouched`` (never started: no
    marker, no ``_STARTED``, no table) or ``stale``."""
    store = ctx.lakehouse.markers
    marker = store.read(stage.name)
    if marker is None:
        started = store.started_config(stage.name) is not None
        return "stale" if started or any(ctx.lakehouse.exists(t) for t in stage.tables) else "untouched"
    current = (
        marker.config_fingerprint == stage.config_fingerprint(ctx)
        and marker.input_fingerprint == stage.input_fingerprint(ctx)
        and stage.outputs_exist(ctx)
    )
    return "current" if current else "stale"


def unpublishable(ctx: RunContext, ran: list[Stage]) -> list[str]:
    """The stages that keep the lakehouse from being published after running ``ran``: stale ones, and stages that
    never ran placed before one that did (empty: publish)."""
    from ingestion.pipeline import STAGES

    by_name = {stage.name: stage for stage in ran}  # reuse the run's instances: they cache e.g. the dense model id
    states = [(cls.name, stage_state(ctx, by_name.get(cls.name) or cls())) for cls in STAGES]
    blocking = [name for name, state in states if state == "stale"]
    seen_untouched = False
    for name, state in states:
        if state == "untouched":
            seen_untouched = True
        elif seen_untouched:  # a gap: a later stage was written over an earlier one that never ran
            blocking.append(name)
    return blocking


def is_published(root: Lakehouse) -> bool:
    """Whether a run's manifest already names the lakehouse's latest state (tables and index files): publishing
    again would change nothing."""
    previous = replaceable_manifest(root)
    if previous is None or previous.run_id is None:
        return False
    current = snapshot(root, run_id=None, tool=None)
    return (previous.tables, previous.index_files) == (current.tables, current.index_files)


def publish(ctx: RunContext, ran: list[Stage], *, tool: str, whole_pipeline: bool) -> PublishedRun | None:
    """Publish the lakehouse after a run that completed; None when it is not consistent yet (see the module doc).

    ``whole_pipeline``: every stage ran or was found up to date in this run, so no check is needed.
    """
    root = ctx.lakehouse.storage
    if not whole_pipeline:
        blocking = unpublishable(ctx, ran)
        if blocking:
            logger.info(
                "run %s: not published — stage(s) %s are out of date; readers keep the run published before",
                ctx.run_id, ", ".join(blocking),
            )
            return None
    manifest = snapshot(root, run_id=ctx.run_id, tool=tool)
    previous = replaceable_manifest(root)
    # a baseline (no run id) is replaced even when nothing changed: the manifest then names a run
    if (
        previous is not None
        and previous.run_id is not None
        and (previous.tables, previous.index_files) == (manifest.tables, manifest.index_files)
    ):
        logger.info("run %s: nothing changed; run %s stays published", ctx.run_id, previous.run_id)
        return previous
    write_manifest(root, manifest)
    removed = prune_index(root, manifest.tables["chunks"]) if "chunks" in manifest.tables else []
    logger.info(
        "run %s published: %d table(s)%s", ctx.run_id, len(manifest.tables),
        f"; removed index files of other versions: {', '.join(removed)}" if removed else "",
    )
    return manifest
