"""The publish manifest ``<lakehouse>/_published.json``: which table versions make up the last completed run.

An ingestion run commits its Delta tables stage by stage, so the latest versions of the tables are, while it runs,
a half-written mix of the new run and the previous one. The run writes this manifest atomically (temp file + rename)
only once every stage of the pipeline is current (``ingestion.publish``), naming the Delta version of every table and
the retrieval index files of that chunks version. Readers — the graph, the embedded store's cache key, the chunk
retriever, ``csillag status`` — open every table at its published version (delta-rs time travel), so they see the
last completed run until the next one completes, never a run in progress.

A lakehouse without a manifest (written before publishing existed, or by hand in tests) is read at the latest
versions. A table the manifest does not name did not exist when the run was published: readers treat it as missing.
This module is the format's reader and lives in ``graph`` because ``graph`` imports none of our packages and every
reader can import it; the writer is ``ingestion.publish``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from graph.errors import GraphDataError

if TYPE_CHECKING:
    from deltalake import DeltaTable

logger = logging.getLogger(__name__)

PUBLISHED_FILE = "_published.json"
PUBLISHED_FORMAT = 1


class PublishedRun(BaseModel):
    """The content of ``_published.json``."""

    format: int = PUBLISHED_FORMAT
    run_id: str | None = None  # None: the tables found when a run first took the lakehouse (nothing published yet)
    tool: str | None = None
    finished_at: str
    tables: dict[str, int] = Field(default_factory=dict)  # table name → Delta version
    index_files: list[str] = Field(default_factory=list)  # file names under _index/ of the published chunks version
    markers: dict[str, dict[str, Any]] = Field(default_factory=dict)  # stage → its _SUCCESS marker when published


def published_path(root: Path) -> Path:
    """Where the manifest of the lakehouse at ``root`` lives."""
    return Path(root) / PUBLISHED_FILE


def read_published(root: Path) -> PublishedRun | None:
    """The manifest, or None when the lakehouse has none (it is then read at the latest versions).

    Raises:
        GraphDataError: the file exists but is not a manifest; reading the latest versions instead could serve a
            half-written run, so the reader stops and says how to repair it.
    """
    path = published_path(root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise GraphDataError(f"cannot read the publish manifest {path}: {exc.strerror}", path=str(path)) from exc
    try:
        return PublishedRun.model_validate(json.loads(text))
    except (ValueError, ValidationError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise GraphDataError(
            f"the publish manifest {path} is unreadable ({first}); rerun the ingestion pipeline to rewrite it",
            path=str(path),
        ) from exc


def published_version(root: Path, table: str, manifest: PublishedRun | None = None) -> int | None:
    """The version of ``table`` to read: the published one, or None for "the latest" (no manifest).

    Raises:
        deltalake.exceptions.TableNotFoundError: the manifest does not name the table (it was not published).
    """
    manifest = manifest if manifest is not None else read_published(root)
    if manifest is None:
        return None
    if table not in manifest.tables:
        from deltalake.exceptions import TableNotFoundError

        raise TableNotFoundError(f"table {table!r} is not in the publish manifest {published_path(root)}")
    return manifest.tables[table]


def open_table(root: Path, table: str, manifest: PublishedRun | None = None) -> DeltaTable:
    """The Delta table ``<root>/<table>`` at its published version (at its latest without a manifest).

    Raises:
        deltalake.exceptions.TableNotFoundError: no such table, or the manifest does not name it.
        GraphDataError: the published version can no longer be read (e.g. its files were vacuumed).
    """
    from deltalake import DeltaTable
    from deltalake.exceptions import DeltaError, TableNotFoundError

    version = published_version(root, table, manifest)
    path = str(Path(root) / table)
    if version is None:
        return DeltaTable(path)
    try:
        return DeltaTable(path, version=version)
    except TableNotFoundError:
        raise
    except DeltaError as exc:
        raise GraphDataError(
            f"lakehouse table {table!r} at {path} cannot be read at its published version {version} ({exc}); "
            "rerun the ingestion pipeline to publish a readable version",
            path=path,
        ) from exc


def arrow_dataset(delta: DeltaTable) -> Any:
    """The Delta snapshot's Parquet files as a native ``pyarrow.dataset.Dataset``.

    delta-rs's own ``to_pyarrow_dataset`` reads through a Python filesystem handler, so Arrow's I/O threads call back
    into Python; one still finishing when the interpreter exits aborts the process ("terminate called without an
    active exception", exit 134) after a command that succeeded — about one run in five of ``csillag pipeline`` on
    an up-to-date lakehouse here (apache/arrow#39862, delta-io/delta-rs#2184). A local table the plain Parquet
    reader can read exactly — reader protocol 1 (no deletion vectors, no column mapping), no partition columns — is
    read by pyarrow's own file system instead; anything else still goes through delta-rs.
    """
    import pyarrow as pa
    import pyarrow.dataset as ds

    protocol = delta.protocol()
    files = delta.file_uris()
    local = all("://" not in uri or uri.startswith("file://") for uri in files)
    if protocol.min_reader_version > 1 or protocol.reader_features or delta.metadata().partition_columns or not local:
        return delta.to_pyarrow_dataset()
    paths = [uri.removeprefix("file://") for uri in files]
    return ds.dataset(paths, schema=pa.schema(delta.schema().to_arrow()), format="parquet")
