"""``Lakehouse``: one lakehouse root — a local folder, an ``s3a://`` prefix or an ``hdfs://`` folder — as every engine
must name it, and the one way to read and write its small files.

A lakehouse is read and written by four clients: Spark (executors write the Delta files), delta-rs (the driver's own
commits and every in-process read), pyarrow (Parquet snapshots, the retrieval index) and csillag's small files
(stage markers, ``_STARTED``, the lock, ``_published.json``). A ``Lakehouse`` turns the one root of the settings into
what each of them needs — a Spark URI, a delta-rs URI with its ``storage_options``, a pyarrow file system and path —
so they can never point at different places. It is a frozen, hashable value, built once where the root is given
(``Lakehouse.for_root``: the settings, ``--lakehouse``, an API request) and passed as it is everywhere else; what
differs between a folder, S3 and HDFS is its backend's business (``graph.lakehouse.local``, ``.s3``, ``.hdfs``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graph.errors import StorageError
from graph.lakehouse.backend import Backend, join_key
from graph.lakehouse.hdfs import HdfsBackend
from graph.lakehouse.local import LocalBackend, delta_safe_folder
from graph.lakehouse.s3 import S3Backend
from graph.roots import parse_root
from graph.settings import S3Settings


@dataclass(frozen=True)
class Lakehouse:
    """A lakehouse root, on the storage of its ``backend``; ``str()`` of it is its :meth:`uri`."""

    backend: Backend

    @classmethod
    def for_root(cls, root: str | os.PathLike[str], s3: S3Settings | None = None) -> Lakehouse:
        """The lakehouse at ``root``: a path, a ``file://`` URI, ``s3a://BUCKET/PREFIX`` (``s3://`` too; in the store
        ``s3`` describes, default AWS) or ``hdfs://NAMENODE[:PORT]/PATH``. A local root is made absolute.

        Raises:
            ValueError: a root ``graph.roots.parse_root`` refuses (another scheme, a bad bucket name or NameNode, a
                URI the clients would read differently: percent-escapes, a query, ``..``), or a local path the Delta
                library cannot store tables under; the message names it.
        """
        name = parse_root(root)
        if name.is_local:
            return cls(LocalBackend(delta_safe_folder(name.path, os.fspath(root))))
        if name.scheme == "hdfs":
            return cls(HdfsBackend(name.authority, name.path))
        return cls(S3Backend(name.authority, name.path, s3 or S3Settings()))

    def __str__(self) -> str:
        return self.uri()

    # -- what kind of root -------------------------------------------------------------------------------------------

    @property
    def local(self) -> Path | None:
        """The folder of a local root (absolute), else None."""
        return self.backend.path if isinstance(self.backend, LocalBackend) else None

    @property
    def is_local(self) -> bool:
        """Whether the root is a folder of this machine's file system (or a mount)."""
        return isinstance(self.backend, LocalBackend)

    @property
    def is_s3(self) -> bool:
        """Whether the root is in an S3-compatible store (an ``s3a://`` URI)."""
        return isinstance(self.backend, S3Backend)

    @property
    def is_hdfs(self) -> bool:
        """Whether the root is a folder of an HDFS (an ``hdfs://`` URI)."""
        return isinstance(self.backend, HdfsBackend)

    @property
    def bucket(self) -> str | None:
        """The bucket of an S3 root, else None."""
        return self.backend.bucket if isinstance(self.backend, S3Backend) else None

    @property
    def namenode(self) -> str | None:
        """The NameNode of an HDFS root, else None."""
        return self.backend.namenode if isinstance(self.backend, HdfsBackend) else None

    @property
    def location(self) -> Path | str:
        """What errors and reports name as the lakehouse's place: a local root's folder (a ``Path``), else its URI."""
        return self.backend.path if isinstance(self.backend, LocalBackend) else self.uri()

    @property
    def prefix(self) -> str:
        """The root's key prefix in its store ("" for a folder)."""
        return self.backend.prefix

    # -- names ---------------------------------------------------------------------------------------------------

    def key(self, *parts: str) -> str:
        """The object key of ``parts`` under the root (S3; on HDFS the absolute path less its leading slash),
        ``prefix/part/…``."""
        return join_key(self.backend.prefix, parts)

    def path(self, *parts: str) -> Path:
        """The local path of ``parts``; only for a local root.

        Raises:
            StorageError: the root is in an object store or HDFS (no local path exists).
        """
        if not isinstance(self.backend, LocalBackend):
            raise StorageError(f"{self.uri()} is not on the local file system", path=self.uri())
        return self.backend.file(parts)

    def uri(self, *parts: str) -> str:
        """How people and messages name it: the local path, ``s3a://bucket/key`` or ``hdfs://namenode/path``."""
        return self.backend.uri(parts)

    def spark_uri(self, *parts: str) -> str:
        """What Spark reads and writes: the local path, ``s3a://bucket/key`` (Hadoop's S3A connector) or the
        ``hdfs://`` URI (Spark's own Hadoop client)."""
        return self.backend.uri(parts)

    def delta_uri(self, *parts: str) -> str:
        """What delta-rs opens (with ``storage_options``): the local path, ``s3://bucket/key``, or the ``hdfs://``
        URI (delta-rs's HDFS object store, hdfs-native)."""
        return self.backend.delta_uri(parts)

    def fs_path(self, *parts: str) -> str:
        """The name of ``parts`` in :meth:`filesystem`: the local path, ``bucket/key``, or on HDFS the absolute path."""
        return self.backend.fs_path(parts)

    @property
    def identity(self) -> str:
        """What tells this root from every other one: the local path, the ``hdfs://`` URI, or the S3 endpoint and
        the ``s3a://`` URI (one bucket name can exist on two stores)."""
        return self.backend.identity

    def local_cache_dir(self) -> Path:
        """The local folder where readers keep what they derive from this lakehouse (the embedded graph's cache, the
        chat side's copies of the index files): the root itself for a folder; for a bucket, one folder per root under
        the user's cache folder, ``$XDG_CACHE_HOME/csillag/lakehouses/<bucket>-<hash of identity>`` (default
        ``~/.cache``; on HDFS ``hdfs-<namenode>-<hash>``) — readers must not need write access to the bucket, and two
        roots must never share a folder.
        """
        name = self.backend.cache_name()
        if name is None:
            return self.path()
        digest = hashlib.sha256(self.identity.encode("utf-8")).hexdigest()[:16]
        return user_cache_root() / "csillag" / "lakehouses" / f"{name}-{digest}"

    def remove_delta_twins(self) -> list[Path]:
        """Remove the empty percent-encoded folders deltalake 1.1 makes beside a local root
        (``LocalBackend.remove_delta_twins``); nothing elsewhere. Returns the folders removed."""
        return self.backend.remove_delta_twins() if isinstance(self.backend, LocalBackend) else []

    # -- client configuration ------------------------------------------------------------------------------------

    @property
    def storage_options(self) -> dict[str, str] | None:
        """delta-rs's ``storage_options`` (None for a local root and for HDFS)."""
        return self.backend.storage_options

    def spark_conf(self) -> dict[str, str]:
        """The Spark settings that reach this root (``spark.hadoop.fs.s3a.*`` for a bucket, else none)."""
        return self.backend.spark_conf()

    def filesystem(self) -> Any:
        """A pyarrow file system for :meth:`fs_path` names (local, or ``S3FileSystem`` on the same endpoint).

        Raises:
            StorageError: for HDFS: pyarrow's ``HadoopFileSystem`` needs libhdfs and a JVM in this process; read
                with :meth:`read_bytes` (``graph.published.arrow_dataset`` does).
        """
        return self.backend.filesystem()

    # -- small files: markers, the lock, the manifest ------------------------------------------------------------

    def read_text(self, *parts: str) -> str | None:
        """The file's text, or None when it does not exist.

        Raises:
            OSError (local) or StorageError (S3, HDFS): it exists but cannot be read.
        """
        found = self.backend.read_bytes(parts)
        return None if found is None else found.decode("utf-8")

    def read_tagged(self, *parts: str) -> tuple[str, str] | None:
        """The file's text and a tag to make a later replace or delete conditional on (S3: its ETag; HDFS: the
        SHA-256 of its content; a folder: the same), or None."""
        found = self.backend.read_tagged(parts)
        return None if found is None else (found[0].decode("utf-8"), found[1])

    def write_text(self, *parts: str, data: str) -> None:
        """Write the whole file so that a reader sees the old content or the new, never part of it (a folder: temp
        file, fsync, rename; S3: one PUT; HDFS: a temp file renamed over the name)."""
        self.backend.write_bytes(parts, data.encode("utf-8"))

    def write_bytes(self, *parts: str, data: bytes) -> None:
        """``write_text`` for binary content (the retrieval index's vectors)."""
        self.backend.write_bytes(parts, data)

    def read_bytes(self, *parts: str) -> bytes | None:
        """The file's content, or None when it does not exist."""
        return self.backend.read_bytes(parts)

    def create_text(self, *parts: str, data: str) -> str | None:
        """Create the file only if it does not exist (S3: ``If-None-Match: *``; HDFS: a temp file renamed to the
        name without overwrite; a folder: a temp file hard-linked to the name); its tag, or None when it existed."""
        return self.backend.create(parts, data.encode("utf-8"))

    def replace_text(self, *parts: str, data: str, tag: str) -> str | None:
        """Replace the file only if it is still the one read with ``tag``; the new tag, or None when another writer
        changed or removed it first."""
        return self.backend.replace(parts, data.encode("utf-8"), tag)

    def delete(self, *parts: str, tag: str | None = None) -> bool:
        """Remove the file (with ``tag``: only if it is still that version); False when it was not removed."""
        return self.backend.delete(parts, tag)

    def is_file(self, *parts: str) -> bool:
        """Whether the file exists."""
        return self.backend.is_file(parts)

    def is_dir(self, *parts: str) -> bool:
        """Whether anything is stored under ``parts`` (S3 has no folders: a key with that prefix)."""
        return self.backend.is_dir(parts)

    def list_files(self, *parts: str) -> list[str]:
        """The names of the files directly under ``parts``, sorted."""
        return self.backend.list_files(parts)

    def list_dirs(self, *parts: str) -> list[str]:
        """The names of the folders directly under ``parts``, sorted (S3: the common prefixes)."""
        return self.backend.list_dirs(parts)

    def is_table(self, *parts: str) -> bool:
        """Whether a committed Delta table is at ``parts`` (it has a ``_delta_log``)."""
        return self.is_dir(*parts, "_delta_log")

    def check_writable(self) -> None:
        """Fail before any work when the root cannot hold a lakehouse: the folder cannot be created or written, or
        the bucket or the NameNode cannot be reached (with the environment's credentials).

        Raises:
            StorageError: naming the root and the cause.
        """
        self.backend.check_writable()

    def check_confined(self, *, unchecked: Collection[str] = ()) -> None:
        """Fail before a write when it could land outside a local root (``LocalBackend.check_confined``: a symbolic
        link under it leading outside, or the root's own path replaced by one); object stores and HDFS have no links.

        Raises:
            StorageError: naming the root or the link (never its target: API clients read run errors).
        """
        self.backend.check_confined(unchecked)


def user_cache_root() -> Path:
    """The user's cache folder: ``$XDG_CACHE_HOME`` when it is an absolute path (the XDG rule), else ``~/.cache``."""
    configured = os.environ.get("XDG_CACHE_HOME", "")
    return Path(configured) if os.path.isabs(configured) else Path.home() / ".cache"
