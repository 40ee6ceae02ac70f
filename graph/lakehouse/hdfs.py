"""``HdfsBackend``: a lakehouse root that is a folder of an HDFS, through hdfs-native (a Rust client: no JVM, no
libhdfs).

Small files as on a folder: a temp file then a rename (atomic in the NameNode) for a write; for an exclusive create
the rename without overwrite, which fails when the name exists; a conditional replace or delete moves the file aside
(one rename: only one run can), checks that it is the one read (its tag is the SHA-256 of its content) and puts it
back if it is not.

The client starts Rust threads: in a process that will start Spark's JVM itself (``get_spark`` without
spark-submit), the JVM must be started first — pyspark launches it with ``Popen(preexec_fn=…)``, which may hang in a
process that already has other threads. ``ingestion.tool`` does so for an hdfs:// root.
"""

from __future__ import annotations

import functools
import logging
import os
import socket
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

from graph.errors import StorageError
from graph.lakehouse.backend import Parts, content_tag, first_line, join_key

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

HDFS_CONNECT_TIMEOUT_S = 10.0
_hdfs_clients_made = False


@dataclass(frozen=True)
class HdfsBackend:
    """``namenode`` (host[:port], or an HA nameservice) and ``prefix``, the folder's absolute path without its
    leading slash."""

    namenode: str
    prefix: str = ""

    @property
    def identity(self) -> str:
        """The ``hdfs://`` URI."""
        return self.uri(())

    @property
    def storage_options(self) -> None:
        """None: delta-rs reaches HDFS with the ``hdfs://`` URI alone, reading ``HADOOP_CONF_DIR`` for a nameservice;
        its commits rename without overwrite, which HDFS makes exclusive by itself."""
        return None

    def uri(self, parts: Parts) -> str:
        """``hdfs://namenode/path``: Spark's and delta-rs's name."""
        return f"hdfs://{self.namenode}/{join_key(self.prefix, parts)}"

    delta_uri = uri

    def fs_path(self, parts: Parts) -> str:
        """The absolute path in the HDFS."""
        return "/" + join_key(self.prefix, parts)

    def filesystem(self) -> Any:
        """Refused: pyarrow's ``HadoopFileSystem`` needs libhdfs and a JVM in this process.

        Raises:
            StorageError: always; read with ``read_bytes`` (``graph.published.arrow_dataset`` does).
        """
        raise StorageError(
            f"no pyarrow file system for {self.uri(())}: pyarrow's HDFS needs libhdfs; csillag reads HDFS with "
            "hdfs-native", path=self.uri(()),
        )

    def spark_conf(self) -> dict[str, str]:
        """Nothing: Spark's own Hadoop client reads ``hdfs://`` URIs and the cluster's ``HADOOP_CONF_DIR``."""
        return {}

    def cache_name(self) -> str:
        """``hdfs-<namenode>``."""
        return f"hdfs-{self.namenode.replace(':', '-')}"

    def client(self) -> Any:
        """The hdfs-native client of this NameNode (one per NameNode)."""
        return _hdfs_client(self.namenode)

    def read_tagged(self, parts: Parts) -> tuple[bytes, str] | None:
        """The content and its SHA-256, or None."""
        data = self.read_bytes(parts)
        return None if data is None else (data, content_tag(data))

    def read_bytes(self, parts: Parts) -> bytes | None:
        """The file's content, or None."""
        def work() -> bytes | None:
            try:
                with self.client().read(self.fs_path(parts)) as reader:
                    return bytes(reader.read())
            except FileNotFoundError:
                return None

        return self._guarded("read", parts, work)

    def write_bytes(self, parts: Parts, data: bytes) -> None:
        """A temp file in the same folder, closed (its blocks acknowledged by the DataNodes), then renamed over the
        name — one atomic NameNode operation."""
        self._write(parts, data, overwrite=True)

    def create(self, parts: Parts, data: bytes) -> str | None:
        """A temp file renamed to the name without overwrite, which fails when the name exists."""
        return self._write(parts, data, overwrite=False)

    def replace(self, parts: Parts, data: bytes, tag: str) -> str | None:
        """Moved aside, checked, then created anew without overwrite."""
        if not self._take_aside(parts, tag):
            return None
        return self._write(parts, data, overwrite=False)

    def delete(self, parts: Parts, tag: str | None) -> bool:
        """Delete the file; with ``tag``, only the version read with it (moved aside first)."""
        if tag:
            return self._take_aside(parts, tag)

        def work() -> bool:
            try:
                self.client().delete(self.fs_path(parts), False)
            except FileNotFoundError:
                pass
            return True

        return self._guarded("delete", parts, work)

    def is_file(self, parts: Parts) -> bool:
        """Whether a file is there."""
        return self._kind(parts) == "file"

    def is_dir(self, parts: Parts) -> bool:
        """Whether a folder is there."""
        return self._kind(parts) == "dir"

    def list_files(self, parts: Parts) -> list[str]:
        """The files directly in the folder, sorted."""
        return self._names(parts, folders=False)

    def list_dirs(self, parts: Parts) -> list[str]:
        """The folders directly in the folder, sorted."""
        return self._names(parts, folders=True)

    def check_writable(self) -> None:
        """The root folder is made (with its parents) if missing: fails when the NameNode cannot be reached."""
        self._guarded("create the lakehouse root", (),
                      lambda: self.client().mkdirs(self.fs_path(()), create_parent=True))

    def check_confined(self, unchecked: Collection[str]) -> None:
        """Nothing to check: csillag never makes HDFS links."""

    def _error(self, action: str, parts: Parts, exc: BaseException) -> StorageError:
        where = self.uri(parts)
        return StorageError(f"cannot {action} {where} (NameNode {self.namenode}): {first_line(exc)}", path=where)

    def _guarded(self, action: str, parts: Parts, work: Callable[[], _T]) -> _T:
        """``work()``, with hdfs-native's errors (OSError subclasses, RuntimeError) as one ``StorageError`` naming
        the file and the NameNode; a ``StorageError`` (the client's own, e.g. the NameNode not reachable) as it is."""
        try:
            return work()
        except StorageError:
            raise
        except Exception as exc:  # noqa: BLE001 - hdfs-native raises OSError subclasses and RuntimeError
            raise self._error(action, parts, exc) from exc

    def _kind(self, parts: Parts) -> str | None:
        """"file", "dir", or None when nothing is there."""

        def work() -> str | None:
            try:
                status = self.client().get_file_info(self.fs_path(parts))
            except FileNotFoundError:
                return None
            return "dir" if status.isdir else "file"

        return self._guarded("look up", parts, work)

    def _names(self, parts: Parts, *, folders: bool) -> list[str]:
        def work() -> list[str]:
            try:
                listing = self.client().list_status(self.fs_path(parts))
                found = [(status.path.rstrip("/").rsplit("/", 1)[-1], status.isdir) for status in listing]
            except (FileNotFoundError, NotADirectoryError):
                return []
            return sorted(name for name, is_dir in found if is_dir == folders and name)

        return self._guarded("list", parts, work)

    def _write(self, parts: Parts, data: bytes, *, overwrite: bool) -> str | None:
        """Write ``data`` under a temp name in the same folder, then rename it to ``parts`` (with ``overwrite``, or
        failing when the name exists: then None); the content's tag."""
        from hdfs_native import WriteOptions

        client, final = self.client(), self.fs_path(parts)
        folder, _, name = final.rpartition("/")
        temp = f"{folder}/.{name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp"

        def work() -> str | None:
            with client.create(temp, WriteOptions(overwrite=False, create_parent=True)) as writer:
                writer.write(data)
            try:
                client.rename(temp, final, overwrite)
            except FileExistsError:
                return None
            return content_tag(data)

        try:
            return self._guarded("write", parts, work)
        finally:
            self._remove_quietly(temp)

    def _take_aside(self, parts: Parts, tag: str) -> bool:
        """Remove the file if it is still the one whose content has ``tag``: moved aside in one rename (of two runs
        only one can), its content checked, put back (without overwrite) when it is another; False when it was not
        removed."""
        client, final = self.client(), self.fs_path(parts)
        folder, _, name = final.rpartition("/")
        aside = f"{folder}/.{name}.aside.{os.getpid()}.{uuid.uuid4().hex[:12]}"

        def work() -> bool:
            try:
                client.rename(final, aside, False)
            except FileNotFoundError:
                return False  # removed or moved by another run first
            with client.read(aside) as reader:
                moved = bytes(reader.read())
            if content_tag(moved) == tag:
                return True
            try:  # another run replaced it between our read and the rename: give it back
                client.rename(aside, final, False)
            except FileExistsError:
                pass
            return False

        try:
            return self._guarded("replace", parts, work)
        finally:
            self._remove_quietly(aside)

    def _remove_quietly(self, path: str) -> None:
        try:
            self.client().delete(path, False)
        except Exception:  # noqa: BLE001, S110 - a temp name that was renamed away or never made
            pass


def hdfs_client_made() -> bool:
    """Whether this process has made an hdfs-native client (and so runs its Rust threads): ``ingestion.spark``
    warns when it must then launch the Spark JVM itself."""
    return _hdfs_clients_made


@functools.lru_cache(maxsize=8)
def _hdfs_client(namenode: str) -> Any:
    """One hdfs-native client per NameNode (thread-safe; it keeps its connections)."""
    global _hdfs_clients_made
    try:
        from hdfs_native import Client
    except ImportError as exc:  # pragma: no cover - an optional dependency
        raise StorageError(
            "an hdfs:// lakehouse needs hdfs-native: pip install 'csillag[hdfs]'", path=f"hdfs://{namenode}"
        ) from exc
    host, _, port = namenode.rpartition(":")
    if host and port:
        # hdfs-native retries a refused connection for minutes; a NameNode that is not there fails in seconds here
        try:
            socket.create_connection((host, int(port)), timeout=HDFS_CONNECT_TIMEOUT_S).close()
        except OSError as exc:
            raise StorageError(
                f"cannot reach the HDFS NameNode {namenode}: {exc.strerror or exc}", path=f"hdfs://{namenode}"
            ) from exc
    _hdfs_clients_made = True
    return Client(f"hdfs://{namenode}")
