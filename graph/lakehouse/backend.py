"""``Backend``: what a lakehouse root needs of the storage it lives on — names for every client, and small files.

One backend per kind of storage (``local``, ``s3``, ``hdfs``); a ``Lakehouse`` (``graph.lakehouse.root``) holds one
and hands it every operation. A name is given as ``parts`` — the segments under the root, e.g.
``("_markers", "chunks", "_SUCCESS")``; ``()`` is the root itself.

The small-file operations keep the marker protocol's guarantees on every kind (docs/deploy.md, "Object storage" and
"HDFS"): a write is seen whole or not at all; an exclusive create and a replace or delete conditional on a tag let
two runs race for the lakehouse lock and only one win.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from typing import Any, Protocol

Parts = tuple[str, ...]


class Backend(Protocol):
    """One kind of storage under a lakehouse root: its names for Spark, delta-rs and pyarrow, and its small files.

    Implementations are frozen dataclasses (a ``Lakehouse`` is a hashable value, so is its backend); each method
    raises ``graph.errors.StorageError`` naming the file and the store when the store fails.
    """

    @property
    def prefix(self) -> str:
        """The root's key prefix in the store (no leading or trailing slash); "" for a folder."""

    @property
    def identity(self) -> str:
        """What tells this root from every other one (two stores may have a bucket of the same name)."""

    @property
    def storage_options(self) -> dict[str, str] | None:
        """delta-rs's ``storage_options`` for this root (None: the URI alone is enough)."""

    def uri(self, parts: Parts) -> str:
        """How people, messages and Spark name ``parts``: a path, ``s3a://bucket/key`` or ``hdfs://namenode/path``."""

    def delta_uri(self, parts: Parts) -> str:
        """What delta-rs opens (with :attr:`storage_options`)."""

    def fs_path(self, parts: Parts) -> str:
        """The name of ``parts`` in :meth:`filesystem`."""

    def filesystem(self) -> Any:
        """A pyarrow file system for :meth:`fs_path` names."""

    def spark_conf(self) -> dict[str, str]:
        """The Spark settings that make Spark reach this storage (empty when its defaults do)."""

    def cache_name(self) -> str | None:
        """The start of the local cache folder's name of a remote root; None for a folder (its cache is itself)."""

    def read_tagged(self, parts: Parts) -> tuple[bytes, str] | None:
        """The file's content and a tag a later conditional replace or delete names it by, or None."""

    def read_bytes(self, parts: Parts) -> bytes | None:
        """The file's content, or None when it does not exist."""

    def write_bytes(self, parts: Parts, data: bytes) -> None:
        """Write the whole file so that a reader sees the old content or the new, never part of it."""

    def create(self, parts: Parts, data: bytes) -> str | None:
        """Create the file only if no file has the name (rename-if-absent); its tag, or None when it existed."""

    def replace(self, parts: Parts, data: bytes, tag: str) -> str | None:
        """Replace the file only if it is still the one read with ``tag``; the new tag, or None."""

    def delete(self, parts: Parts, tag: str | None) -> bool:
        """Remove the file (with ``tag``: only if it is still that version); False when it was not removed."""

    def is_file(self, parts: Parts) -> bool:
        """Whether the file exists."""

    def is_dir(self, parts: Parts) -> bool:
        """Whether anything is stored under ``parts``."""

    def list_files(self, parts: Parts) -> list[str]:
        """The names of the files directly under ``parts``, sorted."""

    def list_dirs(self, parts: Parts) -> list[str]:
        """The names of the folders directly under ``parts``, sorted."""

    def check_writable(self) -> None:
        """Fail before any work when the root cannot hold a lakehouse (not creatable, not writable, not reached)."""

    def check_confined(self, unchecked: Collection[str]) -> None:
        """Fail before a write when it could land outside the root (a symbolic link; only folders have them)."""


def join_key(prefix: str, parts: Parts) -> str:
    """``prefix/part/…``: the object key of ``parts`` under a root's prefix (each part stripped of its slashes)."""
    return "/".join(p for p in (prefix, *(str(part).strip("/") for part in parts)) if p)


def content_tag(data: bytes) -> str:
    """A tag made from the content itself, for a store without one (HDFS has no ETag; a lock's content names its
    run and pid): its SHA-256."""
    return hashlib.sha256(data).hexdigest()


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (a client's error can run to a page), or its class name."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
