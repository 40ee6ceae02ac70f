"""Delta VACUUM over every table of a lakehouse: old data files go, and with them the old versions' text.

Delta keeps every data file a table ever had, so a document removed or edited stays readable through time travel
(``versionAsOf``) until its files are vacuumed. ``vacuum_lakehouse`` runs delta-rs's VACUUM (no Spark) on each
table with ``lakehouse.retention_hours`` as the horizon: it deletes the files that no version committed within the
horizon still needs (the current version always keeps its files) and reports them. After it, versions older than
the horizon cannot be read any more; the Delta log and its history stay.

The versions named by the publish manifest (``graph.published``: what the chat side reads) are always kept, even
past the horizon, and the lakehouse's lock (``ingestion.lock``) is held throughout, so no run writes meanwhile: a
run's files not yet committed would look like garbage to a short horizon.

A VACUUM that deletes files adds two commits (``VACUUM START``/``END``) to the table, which change no row. The
retrieval index files are named after the chunks table version, so this module links them under the new version
too, rather than leaving the next run to rebuild (and, with a dense model, re-embed) an identical index.

The root is a folder or an S3 bucket (``graph.lakehouse.Lakehouse``): delta-rs vacuums either with the same
``storage_options`` its commits use, the lock is the bucket's conditional-create one, and in a bucket, which has no
links, the index files are copied under the new version.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from graph.errors import GraphDataError, StorageError
from graph.files import atomic_open
from graph.lakehouse import Lakehouse
from graph.published import read_published
from ingestion.errors import LakehouseError
from ingestion.lock import LakehouseLock

logger = logging.getLogger(__name__)

INDEX_DIR = "_index"  # tools.retrieval.chunks.INDEX_DIR: the index files named after the chunks version
_VERSIONED_FILE = re.compile(r"^(?P<stem>.+-v)(?P<version>\d+)(?P<suffix>\.(json|npz))$")


@dataclass
class TableVacuum:
    """One table's VACUUM: the data files it removed (or, in a dry run, would remove) and its versions."""

    table: str
    files: list[str]
    version_before: int
    version_after: int
    kept_versions: list[int] = field(default_factory=list)


@dataclass
class VacuumReport:
    """What ``vacuum_lakehouse`` did, table by table."""

    root: Path | str  # the folder, or the bucket's s3a:// URI
    retention_hours: int
    dry_run: bool
    tables: list[TableVacuum] = field(default_factory=list)
    linked_index_files: list[str] = field(default_factory=list)

    @property
    def files(self) -> int:
        """Data files removed (or that would be) over all tables."""
        return sum(len(t.files) for t in self.tables)


def lakehouse_tables(root: Lakehouse) -> list[str]:
    """The Delta tables directly under ``root`` (folders, or key prefixes, with a ``_delta_log``), sorted."""
    return [name for name in root.list_dirs() if root.is_table(name)]


def vacuum_lakehouse(
    root: Lakehouse, *, retention_hours: int, dry_run: bool = False, wait_seconds: float = 0.0
) -> VacuumReport:
    """VACUUM every table under ``root`` (a folder or a bucket's storage), keeping what the versions of the last
    ``retention_hours`` and the published versions need; holds the lakehouse's lock (waiting up to
    ``wait_seconds`` for a run to finish).

    Raises:
        LakehouseError: the root is not a folder (or holds nothing in its bucket), the retention is negative, the
            publish manifest is unreadable, or a table cannot be vacuumed.
        LakehouseBusyError: a run still holds the lakehouse after the wait.
    """
    if retention_hours < 0:
        raise LakehouseError(f"retention of {retention_hours} hours is invalid; give 0 or more hours")
    try:
        exists = root.is_dir()
    except StorageError as exc:
        raise LakehouseError(str(exc), path=root.uri()) from exc
    if not exists:
        where = root.location
        kind = "holds nothing in its bucket" if root.is_s3 else "is not a folder"
        raise LakehouseError(f"lakehouse {where} does not exist or {kind}", path=str(where))
    run_id = time.strftime("vacuum-%Y%m%dT%H%M%S")
    with LakehouseLock(root, run_id=run_id, tool="vacuum", wait_seconds=wait_seconds):
        return _vacuum_locked(root, retention_hours=retention_hours, dry_run=dry_run)


def _vacuum_locked(storage: Lakehouse, *, retention_hours: int, dry_run: bool) -> VacuumReport:
    from deltalake import DeltaTable
    from deltalake.exceptions import DeltaError

    root = storage.location
    try:
        manifest = read_published(storage)
    except (GraphDataError, StorageError) as exc:
        raise LakehouseError(str(exc), path=str(root)) from exc
    published = manifest.tables if manifest is not None else {}
    report = VacuumReport(root=root, retention_hours=retention_hours, dry_run=dry_run)
    options = storage.storage_options
    for name in lakehouse_tables(storage):
        uri = storage.delta_uri(name)
        try:
            table = DeltaTable(uri, storage_options=options)
            before = table.version()
            keep = [published[name]] if name in published else []
            # The setting is the horizon: Delta's own minimum (the table's deletedFileRetentionDuration, 7 days by
            # default) would refuse a shorter one, which is exactly what removing text for good may need.
            files = table.vacuum(
                retention_hours=retention_hours, dry_run=dry_run, enforce_retention_duration=False,
                keep_versions=keep or None,
            )
            after = DeltaTable(uri, storage_options=options).version()
        except (DeltaError, OSError) as exc:
            raise LakehouseError(f"cannot vacuum table {name} in {root}: {exc}", path=uri) from exc
        report.tables.append(TableVacuum(name, sorted(files), before, after, keep))
        logger.info("vacuum %s: %s %d files (version %d -> %d)", name, "would remove" if dry_run else "removed",
                    len(files), before, after)
        if name == "chunks" and after != before:
            report.linked_index_files = _carry_index_over(storage, before, after)
    return report


def _carry_index_over(storage: Lakehouse, before: int, after: int) -> list[str]:
    """Put the index files of chunks version ``before`` under ``after`` too: VACUUM's commits change no chunk.

    A folder gets hard links (a copy, written aside and renamed into place, where links are not supported); a
    bucket, which has no links, a copy (a PUT is atomic: a reader sees the whole copy or none). The old names stay,
    since the publish manifest may name them; the index stage's next publish prunes them.
    """
    carried = []
    for name in storage.list_files(INDEX_DIR):
        match = _VERSIONED_FILE.match(name)
        if match is None or int(match["version"]) != before:
            continue
        target = f"{match['stem']}{after}{match['suffix']}"
        if storage.is_file(INDEX_DIR, target):
            continue
        if storage.is_local:
            source, copy = storage.path(INDEX_DIR, name), storage.path(INDEX_DIR, target)
            try:
                os.link(source, copy)
            except OSError:
                with source.open("rb") as reader, atomic_open(copy, "wb") as writer:
                    shutil.copyfileobj(reader, writer)
        else:
            data = storage.read_bytes(INDEX_DIR, name)
            if data is None:
                continue
            storage.write_bytes(INDEX_DIR, target, data=data)
        carried.append(target)
    return carried
