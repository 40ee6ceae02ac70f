"""The publish manifest ``<lakehouse>/_published.json``: which table versions make up the last completed run.

An ingestion run commits its Delta tables stage by stage, so the latest versions of the tables are, while it runs, a
half-written mix of the new run and the previous one. The run writes this manifest atomically (temp file + rename;
in an S3 bucket one PUT, which replaces the object whole) only once every stage of the pipeline is current
(``ingestion.publish``), naming the Delta version of every table and the retrieval index files of that chunks
version. Readers — the graph, the embedded store's cache key, the chunk retriever, ``csillag status`` — open every
table at its published version (delta-rs time travel), so they see the last completed run until the next one
completes, never a run in progress.

A lakehouse without a manifest (written before publishing existed, or by hand in tests) is read at the latest
versions. A table the manifest does not name did not exist when the run was published: readers treat it as missing.
This module is the format's reader and lives in ``graph`` because ``graph`` imports none of our packages and every
reader can import it; the writer is ``ingestion.publish``.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from pydantic import BaseModel, Field, ValidationError, field_validator

from graph.errors import GraphDataError, StorageError
from graph.lakehouse import Lakehouse

if TYPE_CHECKING:
    from deltalake import DeltaTable

logger = logging.getLogger(__name__)

PUBLISHED_FILE = "_published.json"
PUBLISHED_FORMAT = 1
KNOWN_FORMATS = (PUBLISHED_FORMAT,)  # the manifest formats this code reads


class PublishedRun(BaseModel):
    """The content of ``_published.json``."""

    format: int = PUBLISHED_FORMAT
    run_id: str | None = None  # None: the tables found when a run first took the lakehouse (nothing published yet)
    tool: str | None = None
    finished_at: str
    tables: dict[str, int] = Field(default_factory=dict)  # table name → Delta version
    index_files: list[str] = Field(default_factory=list)  # file names under _index/ of the published chunks version
    markers: dict[str, dict[str, Any]] = Field(default_factory=dict)  # stage → its _SUCCESS marker when published

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: int) -> int:
        # another format names its tables differently: reading it as this one could serve the wrong versions
        if value not in KNOWN_FORMATS:
            known = ", ".join(str(f) for f in KNOWN_FORMATS)
            raise ValueError(f"{value} is not a publish manifest format this csillag reads (valid: {known})")
        return value


def published_path(root: Lakehouse) -> str:
    """Where the manifest of the lakehouse at ``root`` lives (a path, or an s3a:// URI)."""
    return root.uri(PUBLISHED_FILE)


def published_text(root: Lakehouse) -> str | None:
    """The manifest as stored, unparsed, or None when the lakehouse has none: one small read (a file, or one GET in a
    bucket), cheap enough for a long-running reader to ask now and then whether another run was published — every
    publish writes new text (a new run id, finish time and stage markers), and a run that changed nothing writes none.

    Raises:
        OSError: (a folder) the file exists but cannot be read.
        graph.errors.StorageError: (a bucket) the manifest cannot be read.
    """
    return root.read_text(PUBLISHED_FILE)


def read_published(root: Lakehouse) -> PublishedRun | None:
    """The manifest, or None when the lakehouse has none (it is then read at the latest versions).

    Raises:
        GraphDataError: the file exists but is not a manifest; reading the latest versions instead could serve a
            half-written run, so the reader stops and says how to repair it.
    """
    path = published_path(root)
    try:
        text = published_text(root)
    except OSError as exc:
        raise GraphDataError(f"cannot read the publish manifest {path}: {exc.strerror}", path=str(path)) from exc
    except StorageError as exc:
        raise GraphDataError(f"cannot read the publish manifest: {exc}", path=str(path)) from exc
    if text is None:
        return None
    try:
        return PublishedRun.model_validate(json.loads(text))
    except (ValueError, ValidationError) as exc:
        first = _first_problem(exc)
        raise GraphDataError(
            f"the publish manifest {path} is unreadable ({first}); rerun the ingestion pipeline to rewrite it",
            path=str(path),
        ) from exc


def _first_problem(exc: ValueError | ValidationError) -> str:
    """One line for why the manifest's text is no manifest: the first field in error and why, or the JSON error."""
    if isinstance(exc, ValidationError) and exc.errors():
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "the manifest"
        return f"{where}: {error['msg'].removeprefix('Value error, ')}"
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def published_version(root: Lakehouse, table: str, manifest: PublishedRun | None = None) -> int | None:
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


def open_table(root: Lakehouse, table: str, manifest: PublishedRun | None = None) -> DeltaTable:
    """The Delta table ``<root>/<table>`` at its published version (at its latest without a manifest).

    Raises:
        deltalake.exceptions.TableNotFoundError: no such table, or the manifest does not name it.
        GraphDataError: the published version can no longer be read (e.g. its files were vacuumed).
    """
    from deltalake import DeltaTable
    from deltalake.exceptions import DeltaError, TableNotFoundError

    version = published_version(root, table, manifest)
    path = root.delta_uri(table)
    if version is None:
        return DeltaTable(path, storage_options=root.storage_options)
    try:
        return DeltaTable(path, version=version, storage_options=root.storage_options)
    except TableNotFoundError:
        raise
    except DeltaError as exc:
        raise GraphDataError(
            f"lakehouse table {table!r} at {path} cannot be read at its published version {version} ({exc}); "
            "rerun the ingestion pipeline to publish a readable version",
            path=path,
        ) from exc


def arrow_dataset(delta: DeltaTable, storage: Lakehouse | None = None) -> Any:
    """The Delta snapshot's Parquet files as a native ``pyarrow.dataset.Dataset``.

    delta-rs's own ``to_pyarrow_dataset`` reads through a Python filesystem handler, so Arrow's I/O threads call back
    into Python; one still finishing when the interpreter exits aborts the process ("terminate called without an
    active exception", exit 134) after a command that succeeded — about one run in five of ``csillag pipeline`` on
    an up-to-date lakehouse here (apache/arrow#39862, delta-io/delta-rs#2184). A local table the plain Parquet
    reader can read exactly — reader protocol 1 (no deletion vectors, no column mapping), no partition columns — is
    read by pyarrow's own file system instead; so is one in the S3 bucket of ``storage`` (pyarrow's own
    ``S3FileSystem``, from the same settings as delta-rs's) and one in the HDFS folder of ``storage`` (its files read
    with hdfs-native into memory); anything else still goes through delta-rs.
    """
    import pyarrow as pa
    import pyarrow.dataset as ds

    protocol = delta.protocol()
    # delta-rs names the files as URIs, percent-encoded: a space in the root is "%20" there, not in the file system
    files = [unquote(uri) for uri in delta.file_uris()]
    local = all("://" not in uri or uri.startswith("file://") for uri in files)
    in_bucket = storage is not None and storage.bucket is not None and all(
        uri.startswith(f"s3://{storage.bucket}/") or uri.startswith(f"s3a://{storage.bucket}/") for uri in files
    )
    plain = not (protocol.min_reader_version > 1 or protocol.reader_features or delta.metadata().partition_columns)
    schema = pa.schema(delta.schema().to_arrow())
    if plain and local:
        return ds.dataset([uri.removeprefix("file://") for uri in files], schema=schema, format="parquet")
    if plain and in_bucket:
        assert storage is not None
        paths = [uri.split("://", 1)[1] for uri in files]  # bucket/key: pyarrow's S3 names
        return ds.dataset(paths, schema=schema, format="parquet", filesystem=storage.filesystem())
    root = storage.uri() + "/" if storage is not None and storage.is_hdfs else None
    if plain and root is not None and all(uri.startswith(root) for uri in files):
        # pyarrow's own HDFS needs libhdfs and a JVM: each file is read whole through hdfs-native (one client, no
        # Python callbacks from Arrow's threads) and decoded from memory
        assert storage is not None
        parquet = ds.ParquetFileFormat()
        fragments = []
        for uri in files:
            data = storage.read_bytes(uri[len(root):])
            if data is None:
                raise FileNotFoundError(f"{uri} of the Delta table's snapshot is gone")
            fragments.append(parquet.make_fragment(pa.BufferReader(data)))
        return ds.FileSystemDataset(fragments, schema, parquet)
    return delta.to_pyarrow_dataset()
