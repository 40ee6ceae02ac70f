"""``LakehouseStorage``: one lakehouse root — a local folder, an ``s3a://`` prefix or an ``hdfs://`` folder — as every
engine must name it.

A lakehouse is read and written by four clients: Spark (executors write the Delta files), delta-rs (the driver's
own commits and every in-process read), pyarrow (Parquet snapshots, the retrieval index) and csillag's small files
(stage markers, ``_STARTED``, the lock, ``_published.json``). This class is the only place that turns the one root of
the settings into what each of them needs — a Spark URI, a delta-rs URI with its ``storage_options``, a pyarrow file
system and path — from the one ``S3Settings`` block, so they can never point at different buckets.

Small files keep the marker protocol's guarantees on every kind of storage (docs/deploy.md, "Object storage" and
"HDFS"):

- on a local (or mounted) folder, exactly as before: temp file + fsync + ``rename`` for a write, ``link`` for an
  exclusive create;
- on S3, which has no rename: one PUT under the final key (S3 replaces an object whole, so a reader sees the old or
  the new content, never half), ``If-None-Match: *`` for an exclusive create and ``If-Match: <ETag>`` for a replace or
  delete that must not overwrite what another run wrote meanwhile;
- on HDFS (the ``hdfs-native`` client: Rust, no JVM or libhdfs), as on a folder: a temp file then a rename (atomic in
  the NameNode) for a write; for an exclusive create the rename without overwrite, which fails when the name exists;
  a conditional replace or delete moves the file aside (one rename: only one run can), checks that it is the one read
  (its tag is the SHA-256 of its content) and puts it back if it is not.

It lives in ``graph`` (the bottom layer: it imports none of our packages but ``graph.settings``) so that every
layer, from the chat side's readers to the ingestion stages, uses the same one. A root's text is checked by
``graph.roots.parse_root`` (the one parser of lakehouse names) before it becomes a storage.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import socket
import uuid
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from graph.errors import StorageError
from graph.files import atomic_write_bytes
from graph.roots import parse_root
from graph.settings import S3Settings

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

# Characters of a local root that the pinned Delta library (deltalake 1.1) cannot store a table under: it turns the
# path into a URL and back, so '#' and '?' start a fragment or a query (the table is "not found" right after its
# first write) and '[', ']', '^', '|' make it panic. Later releases (1.6) handle them all.
DELTA_UNSAFE_CHARS = "#?[]^|"
# What deltalake 1.1 leaves unencoded when it (wrongly) creates a percent-encoded twin of a table's folder beside it
# on a table's first write or a delete (``LakehouseStorage.remove_delta_twins``); ``-._~`` and letters and digits are
# never encoded.
_DELTA_URL_SAFE = "/!$&'()*+,;=:@"


def _delta_safe(local: Path, given: str) -> Path:
    """``local``, unless its path holds a character the Delta library cannot store tables under.

    Raises:
        ValueError: naming the root, the characters and the ones to avoid.
    """
    bad = sorted({c for c in str(local) if c in DELTA_UNSAFE_CHARS})
    if bad:
        raise ValueError(
            f"lakehouse root {given!r} contains {' '.join(repr(c) for c in bad)}: the Delta library cannot store "
            f"tables under such a path (deltalake 1.1); choose a folder whose path has none of "
            f"{' '.join(DELTA_UNSAFE_CHARS)}"
        )
    return local


@dataclass(frozen=True)
class LakehouseStorage:
    """A lakehouse root: ``local`` (an absolute folder), ``bucket``/``prefix`` of an S3-compatible store, or
    ``namenode``/``prefix`` of an HDFS (``prefix``: the folder's absolute path without its leading slash)."""

    local: Path | None = None
    bucket: str | None = None
    prefix: str = ""
    s3: S3Settings | None = None
    namenode: str | None = None

    @classmethod
    def for_root(
        cls, root: str | os.PathLike[str] | LakehouseStorage, s3: S3Settings | None = None
    ) -> LakehouseStorage:
        """The storage of ``root``: a path, a ``file://`` URI, ``s3a://BUCKET/PREFIX`` (``s3://`` too) or
        ``hdfs://NAMENODE[:PORT]/PATH``.

        Raises:
            ValueError: a root ``graph.roots.parse_root`` refuses (another scheme, a bad bucket name or NameNode, a
                URI the clients would read differently: percent-escapes, a query, ``..``); the message names it.
        """
        if isinstance(root, LakehouseStorage):
            return root
        name = parse_root(root)
        if name.is_local:
            return cls(local=_delta_safe(Path(name.path).resolve(), os.fspath(root)))
        if name.scheme == "hdfs":
            return cls(namenode=name.authority, prefix=name.path)
        return cls(bucket=name.authority, prefix=name.path, s3=s3 or S3Settings())

    @property
    def is_local(self) -> bool:
        """Whether the root is a folder of this machine's file system (or a mount)."""
        return self.local is not None

    @property
    def is_s3(self) -> bool:
        """Whether the root is in an S3-compatible store (an ``s3a://`` URI)."""
        return self.bucket is not None

    @property
    def is_hdfs(self) -> bool:
        """Whether the root is a folder of an HDFS (an ``hdfs://`` URI)."""
        return self.namenode is not None

    # -- names ---------------------------------------------------------------------------------------------------

    def key(self, *parts: str) -> str:
        """The object key of ``parts`` under the root (S3; on HDFS the absolute path less its leading slash),
        ``prefix/part/…``."""
        return "/".join(p for p in (self.prefix, *(str(part).strip("/") for part in parts)) if p)

    def path(self, *parts: str) -> Path:
        """The local path of ``parts``; only for a local root.

        Raises:
            StorageError: the root is in an object store (no local path exists).
        """
        if self.local is None:
            raise StorageError(f"{self.uri()} is not on the local file system", path=self.uri())
        return self.local.joinpath(*parts)

    def uri(self, *parts: str) -> str:
        """How people and messages name it: the local path, ``s3a://bucket/key`` or ``hdfs://namenode/path``."""
        if self.namenode is not None:
            return f"hdfs://{self.namenode}/{self.key(*parts)}"
        return str(self.path(*parts)) if self.is_local else f"s3a://{self.bucket}/{self.key(*parts)}"

    def spark_uri(self, *parts: str) -> str:
        """What Spark reads and writes: the local path, ``s3a://bucket/key`` (Hadoop's S3A connector) or the
        ``hdfs://`` URI (Spark's own Hadoop client)."""
        return self.uri(*parts)

    def delta_uri(self, *parts: str) -> str:
        """What delta-rs opens (with ``storage_options``): the local path, ``s3://bucket/key``, or the ``hdfs://``
        URI (delta-rs's HDFS object store, hdfs-native)."""
        if self.namenode is not None:
            return self.uri(*parts)
        return str(self.path(*parts)) if self.is_local else f"s3://{self.bucket}/{self.key(*parts)}"

    @property
    def identity(self) -> str:
        """What tells this root from every other one: the local path, or the S3 endpoint and the ``s3a://`` URI
        (one bucket name can exist on two stores)."""
        if self.local is not None:
            return str(self.local)
        if self.namenode is not None:
            return self.uri()
        return f"{self.s3.endpoint if self.s3 and self.s3.endpoint else 'aws'} {self.uri()}"

    def local_cache_dir(self) -> Path:
        """The local folder where readers keep what they derive from this lakehouse (the embedded graph's cache, the
        chat side's copies of the index files): the root itself for a folder; for a bucket, one folder per root under
        the user's cache folder, ``$XDG_CACHE_HOME/csillag/lakehouses/<bucket>-<hash of identity>`` (default
        ``~/.cache``; on HDFS ``hdfs-<namenode>-<hash>``) — readers must not need write access to the bucket, and two
        roots must never share a folder.
        """
        if self.local is not None:
            return self.local
        digest = hashlib.sha256(self.identity.encode("utf-8")).hexdigest()[:16]
        name = f"hdfs-{self.namenode.replace(':', '-')}" if self.namenode is not None else str(self.bucket)
        return user_cache_root() / "csillag" / "lakehouses" / f"{name}-{digest}"

    def remove_delta_twins(self) -> list[Path]:
        """Remove the empty percent-encoded twin folders deltalake 1.1 creates beside a local root whose path has a
        space, a non-ASCII letter, ``%`` or one of ``"<>`{}\\`` (e.g. ``k%C3%B6nyvt%C3%A1r`` beside ``könyvtár``): it
        makes them on a table's first write and on a delete, and writes nothing into them. Only empty folders go
        (``rmdir``): a folder holding anything is left as it is. Returns the folders removed."""
        if self.local is None:
            return []
        real, twin = self.local.parts, Path(quote(str(self.local), safe=_DELTA_URL_SAFE)).parts
        differs = next((i for i, (a, b) in enumerate(zip(real, twin, strict=True)) if a != b), None)
        if differs is None:
            return []
        top = Path(*twin[: differs + 1])
        if not top.is_dir() or top.is_symlink():
            return []
        removed = []
        for folder, _, _ in sorted(os.walk(top), key=lambda entry: -len(entry[0])):  # deepest first
            try:
                os.rmdir(folder)
            except OSError:
                continue
            removed.append(Path(folder))
        if removed:
            logger.info("removed %d empty folder(s) the Delta library made beside the lakehouse: %s", len(removed),
                        top)
        return removed

    # -- client configuration ------------------------------------------------------------------------------------

    @property
    def storage_options(self) -> dict[str, str] | None:
        """delta-rs's ``storage_options`` (None for a local root and for HDFS, which delta-rs reaches with the
        ``hdfs://`` URI alone, reading ``HADOOP_CONF_DIR`` for a nameservice; its commits rename without overwrite,
        which HDFS makes exclusive by itself).

        ``AWS_S3_ALLOW_UNSAFE_RENAME``: delta-rs commits a version by writing its log entry, and on S3 without a
        locking provider it cannot make that write exclusive by itself. That is safe here because the lakehouse lock
        (``ingestion.lock``, a conditional create) already makes one run the only writer of the lakehouse.
        """
        if self.s3 is None:
            return None
        options = {
            "AWS_REGION": self.s3.region,
            "AWS_S3_ALLOW_UNSAFE_RENAME": "true",
            "AWS_VIRTUAL_HOSTED_STYLE_REQUEST": "false" if self.s3.path_style else "true",
        }
        if self.s3.endpoint:
            options["AWS_ENDPOINT_URL"] = self.s3.endpoint
            options["AWS_ALLOW_HTTP"] = "true" if self.s3.endpoint.startswith("http://") else "false"
        for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
            if os.environ.get(variable):
                options[variable] = os.environ[variable]
        return options

    def spark_conf(self) -> dict[str, str]:
        """The ``spark.hadoop.fs.s3a.*`` settings that make Spark's S3A connector reach the same bucket (empty locally
        and for HDFS: Spark's own Hadoop client reads ``hdfs://`` URIs and the cluster's ``HADOOP_CONF_DIR``).

        Credentials are not put in the configuration (it is logged and shown in Spark's UI): the connector reads
        them from the environment, as delta-rs and pyarrow do.
        """
        if self.s3 is None:
            return {}
        conf = {
            "spark.hadoop.fs.s3a.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
            "spark.hadoop.fs.s3a.endpoint.region": self.s3.region,
            "spark.hadoop.fs.s3a.path.style.access": "true" if self.s3.path_style else "false",
            "spark.hadoop.fs.s3a.aws.credentials.provider":
                "software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider",
        }
        if self.s3.endpoint:
            conf["spark.hadoop.fs.s3a.endpoint"] = self.s3.endpoint
            conf["spark.hadoop.fs.s3a.connection.ssl.enabled"] = (
                "false" if self.s3.endpoint.startswith("http://") else "true"
            )
        return conf

    def filesystem(self) -> Any:
        """A pyarrow file system for :meth:`fs_path` names (local, or ``S3FileSystem`` on the same endpoint).

        Raises:
            StorageError: for HDFS: pyarrow's ``HadoopFileSystem`` needs libhdfs and a JVM in this process; read
                with :meth:`read_bytes` (``graph.published.arrow_dataset`` does).
        """
        if self.namenode is not None:
            raise StorageError(
                f"no pyarrow file system for {self.uri()}: pyarrow's HDFS needs libhdfs; csillag reads HDFS with "
                "hdfs-native", path=self.uri(),
            )
        return _pyarrow_fs(self.s3)

    def fs_path(self, *parts: str) -> str:
        """The name of ``parts`` in :meth:`filesystem`: the local path, ``bucket/key``, or on HDFS the absolute path."""
        if self.namenode is not None:
            return "/" + self.key(*parts)
        return str(self.path(*parts)) if self.is_local else f"{self.bucket}/{self.key(*parts)}"

    # -- small files: markers, the lock, the manifest ------------------------------------------------------------

    def read_text(self, *parts: str) -> str | None:
        """The file's text, or None when it does not exist.

        Raises:
            OSError (local) or StorageError (S3): it exists but cannot be read.
        """
        found = self.read_tagged(*parts)
        return None if found is None else found[0]

    def read_tagged(self, *parts: str) -> tuple[str, str] | None:
        """The file's text and a tag to make a later replace or delete conditional on (S3: its ETag; HDFS: the
        SHA-256 of its content), or None."""
        if self.local is not None:
            try:
                return self.path(*parts).read_text(encoding="utf-8"), ""
            except FileNotFoundError:
                return None
        if self.namenode is not None:
            data = self._hdfs().read(parts)
            return None if data is None else (data.decode("utf-8"), _content_tag(data))
        try:
            answer = self._client().get_object(Bucket=self.bucket, Key=self.key(*parts))
        except Exception as exc:  # noqa: BLE001 - boto3's errors are classes made at run time; sorted by code below
            if _error_code(exc) in {"NoSuchKey", "404"}:
                return None
            raise self._error("read", parts, exc) from exc
        return answer["Body"].read().decode("utf-8"), answer["ETag"]

    def write_text(self, *parts: str, data: str) -> None:
        """Write the whole file so that a reader sees the old content or the new, never part of it.

        Local: temp file, fsync, rename (``graph.files``). S3: one PUT under the final key — an object is replaced
        whole, and there is no rename to do it with. HDFS: a temp file in the same folder, closed (its blocks
        acknowledged by the DataNodes), then renamed over the name — one atomic NameNode operation.
        """
        self.write_bytes(*parts, data=data.encode("utf-8"))

    def write_bytes(self, *parts: str, data: bytes) -> None:
        """``write_text`` for binary content (the retrieval index's vectors)."""
        if self.local is not None:
            path = self.path(*parts)
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(path, data)
            return
        if self.namenode is not None:
            self._hdfs().write(parts, data, overwrite=True)
            return
        self._put(parts, data)

    def read_bytes(self, *parts: str) -> bytes | None:
        """The file's content, or None when it does not exist."""
        if self.local is not None:
            try:
                return self.path(*parts).read_bytes()
            except FileNotFoundError:
                return None
        if self.namenode is not None:
            return self._hdfs().read(parts)
        try:
            return bytes(self._client().get_object(Bucket=self.bucket, Key=self.key(*parts))["Body"].read())
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            if _error_code(exc) in {"NoSuchKey", "404"}:
                return None
            raise self._error("read", parts, exc) from exc

    def is_file(self, *parts: str) -> bool:
        """Whether the file exists."""
        if self.local is not None:
            return self.path(*parts).is_file()
        if self.namenode is not None:
            return self._hdfs().kind(parts) == "file"
        try:
            self._client().head_object(Bucket=self.bucket, Key=self.key(*parts))
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            if _error_code(exc) in {"NoSuchKey", "404", "NotFound"}:
                return False
            raise self._error("look up", parts, exc) from exc
        return True

    def list_files(self, *parts: str) -> list[str]:
        """The names of the files directly under ``parts``, sorted."""
        if self.local is not None:
            folder = self.path(*parts)
            return sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
        if self.namenode is not None:
            return self._hdfs().names(parts, folders=False)
        return self._list(parts, "Contents", "Key")

    def create_text(self, *parts: str, data: str) -> str | None:
        """Create the file only if it does not exist (S3: ``If-None-Match: *``; HDFS: a temp file renamed to the
        name without overwrite, which fails when the name exists); its tag, or None when it existed.

        Only for an object store or HDFS: a local exclusive create is the lock's own ``link`` (``ingestion.lock``).
        """
        self._object_store_only("an exclusive create")
        if self.namenode is not None:
            return self._hdfs().write(parts, data.encode("utf-8"), overwrite=False)
        return self._put(parts, data, IfNoneMatch="*")

    def replace_text(self, *parts: str, data: str, tag: str) -> str | None:
        """Replace the file only if it is still the one read with ``tag`` (S3: ``If-Match``; HDFS: moved aside,
        checked, then created anew without overwrite); the new tag, or None when another writer changed or removed it
        first."""
        self._object_store_only("a conditional replace")
        if self.namenode is not None:
            hdfs = self._hdfs()
            if not hdfs.take_aside(parts, tag):
                return None
            return hdfs.write(parts, data.encode("utf-8"), overwrite=False)
        return self._put(parts, data, IfMatch=tag)

    def delete(self, *parts: str, tag: str | None = None) -> bool:
        """Remove the file (with ``tag``: only if it is still that version); False when it was not removed."""
        if self.local is not None:
            self.path(*parts).unlink(missing_ok=True)
            return True
        if self.namenode is not None:
            return self._hdfs().take_aside(parts, tag) if tag else self._hdfs().delete(parts)
        conditions = {"IfMatch": tag} if tag else {}
        try:
            self._client().delete_object(Bucket=self.bucket, Key=self.key(*parts), **conditions)
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            if _error_code(exc) in {"PreconditionFailed", "NoSuchKey", "404"}:
                return False
            raise self._error("delete", parts, exc) from exc
        return True

    def is_dir(self, *parts: str) -> bool:
        """Whether anything is stored under ``parts`` (S3 has no folders: a key with that prefix)."""
        if self.local is not None:
            return self.path(*parts).is_dir()
        if self.namenode is not None:
            return self._hdfs().kind(parts) == "dir"
        prefix = self.key(*parts)
        try:
            answer = self._client().list_objects_v2(
                Bucket=self.bucket, Prefix=prefix + "/" if prefix else "", MaxKeys=1
            )
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            raise self._error("list", parts, exc) from exc
        return bool(answer.get("KeyCount"))

    def list_dirs(self, *parts: str) -> list[str]:
        """The names of the folders directly under ``parts``, sorted (S3: the common prefixes)."""
        if self.local is not None:
            folder = self.path(*parts)
            return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
        if self.namenode is not None:
            return self._hdfs().names(parts, folders=True)
        return self._list(parts, "CommonPrefixes", "Prefix")

    def is_table(self, *parts: str) -> bool:
        """Whether a committed Delta table is at ``parts`` (it has a ``_delta_log``)."""
        return self.is_dir(*parts, "_delta_log")

    def check_writable(self) -> None:
        """Fail before any work when the root cannot hold a lakehouse: the folder cannot be created or written, or
        the bucket or the NameNode cannot be reached (with the environment's credentials).

        Raises:
            StorageError: naming the root and the cause.
        """
        if self.local is not None:
            try:
                self.local.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError(
                    f"cannot create the lakehouse root {self.local}: {exc.strerror}", path=str(self.local)
                ) from exc
            if not os.access(self.local, os.W_OK | os.X_OK):
                raise StorageError(f"the lakehouse root {self.local} is not writable", path=str(self.local))
            return
        if self.namenode is not None:
            self._hdfs().make_root()
            return
        try:
            self._client().head_bucket(Bucket=self.bucket)
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            raise self._error("reach the bucket of", (), exc) from exc

    def check_confined(self, *, unchecked: Collection[str] = ()) -> None:
        """Fail before a write when it could land outside a local root: the root's path no longer leads to the folder
        it resolved to when configured (a folder on it was replaced by a link), or a symbolic link under it — a table's
        folder, ``_markers``, ``_index``, any file — leads outside it (or dangles there): Delta, delta-rs and the
        marker writes would follow it. A link within the root is fine, and so are the names directly under the root in
        ``unchecked`` (files whose writer never follows a link: the lock). Object stores and HDFS have no links.

        Raises:
            StorageError: naming the root or the link (never its target: API clients read run errors).
        """
        if self.local is None or not os.path.lexists(self.local):
            return
        root = str(self.local)
        if os.path.realpath(root) != root:
            raise StorageError(
                f"the lakehouse root {root} no longer leads to the folder it named (a folder on its path was replaced "
                "by a symbolic link); nothing written", path=root,
            )
        for link in _links_under(root):
            if os.path.dirname(link) == root and os.path.basename(link) in unchecked:
                continue
            real = os.path.realpath(link)
            if real != root and not real.startswith(root + os.sep):
                raise StorageError(
                    f"{link} in the lakehouse {root} is a symbolic link leading outside it; csillag writes only inside "
                    "the lakehouse root: remove the link (or name the folder it leads to as the lakehouse)", path=link,
                )

    # -- S3 plumbing ---------------------------------------------------------------------------------------------

    def _object_store_only(self, what: str) -> None:
        if self.local is not None:
            raise StorageError(
                f"{what} by tag is for an object store or HDFS; on the folder {self.local} the lock uses link(2)",
                path=str(self.local),
            )

    def _list(self, parts: tuple[str, ...], kind: str, field: str) -> list[str]:
        """One level of names under ``parts``: "CommonPrefixes" (folders) or "Contents" (files)."""
        prefix = self.key(*parts)
        prefix = prefix + "/" if prefix else ""
        names: list[str] = []
        try:
            pages = self._client().get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix, Delimiter="/"
            )
            for page in pages:
                names += [item[field][len(prefix):].rstrip("/") for item in page.get(kind, [])]
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            raise self._error("list", parts, exc) from exc
        return sorted(name for name in names if name)

    def _put(self, parts: tuple[str, ...], data: str | bytes, **conditions: str) -> str | None:
        body = data.encode("utf-8") if isinstance(data, str) else data
        try:
            answer = self._client().put_object(Bucket=self.bucket, Key=self.key(*parts), Body=body, **conditions)
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            code = _error_code(exc)
            if conditions and code in {"PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey", "404"}:
                return None
            if conditions and code == "NotImplemented":
                raise StorageError(
                    f"the S3 store at {self.s3.endpoint if self.s3 else '?'} does not support conditional writes "
                    f"({', '.join(conditions)}); csillag needs them to lock a lakehouse ({self.uri()})",
                    path=self.uri(*parts),
                ) from exc
            raise self._error("write", parts, exc) from exc
        return str(answer["ETag"])

    def _client(self) -> Any:
        return _s3_client(self.s3)

    def _hdfs(self) -> _HdfsFiles:
        return _HdfsFiles(self)

    def _error(self, action: str, parts: tuple[str, ...], exc: Exception) -> StorageError:
        where = self.uri(*parts)
        endpoint = self.s3.endpoint if self.s3 and self.s3.endpoint else "AWS S3"
        return StorageError(f"cannot {action} {where} (endpoint {endpoint}): {_first_line(exc)}", path=where)


class _HdfsFiles:
    """The small-file operations of an ``hdfs://`` root, through hdfs-native (a Rust client: no JVM, no libhdfs).

    Its client starts Rust threads: in a process that will start Spark's JVM itself (``get_spark`` without
    spark-submit), the JVM must be started first — pyspark launches it with ``Popen(preexec_fn=…)``, which may hang in
    a process that already has other threads. ``ingestion.tool`` does so for an hdfs:// root.
    """

    def __init__(self, storage: LakehouseStorage) -> None:
        self.storage = storage
        assert storage.namenode is not None
        self.namenode = storage.namenode

    def path(self, parts: tuple[str, ...] | list[str]) -> str:
        return "/" + self.storage.key(*parts)

    def client(self) -> Any:
        return _hdfs_client(self.namenode)

    def error(self, action: str, parts: tuple[str, ...] | list[str], exc: BaseException) -> StorageError:
        where = self.storage.uri(*parts)
        return StorageError(f"cannot {action} {where} (NameNode {self.namenode}): {_first_line(exc)}", path=where)

    def guarded(self, action: str, parts: tuple[str, ...], work: Callable[[], _T]) -> _T:
        """``work()``, with hdfs-native's errors (OSError subclasses, RuntimeError) as one ``StorageError`` naming
        the file and the NameNode; a ``StorageError`` (the client's own, e.g. the NameNode not reachable) as it is."""
        try:
            return work()
        except StorageError:
            raise
        except Exception as exc:  # noqa: BLE001 - hdfs-native raises OSError subclasses and RuntimeError
            raise self.error(action, parts, exc) from exc

    def read(self, parts: tuple[str, ...]) -> bytes | None:
        def work() -> bytes | None:
            try:
                with self.client().read(self.path(parts)) as reader:
                    return bytes(reader.read())
            except FileNotFoundError:
                return None

        return self.guarded("read", parts, work)

    def kind(self, parts: tuple[str, ...]) -> str | None:
        """"file", "dir", or None when nothing is there."""

        def work() -> str | None:
            try:
                status = self.client().get_file_info(self.path(parts))
            except FileNotFoundError:
                return None
            return "dir" if status.isdir else "file"

        return self.guarded("look up", parts, work)

    def names(self, parts: tuple[str, ...], *, folders: bool) -> list[str]:
        def work() -> list[str]:
            try:
                listing = self.client().list_status(self.path(parts))
                found = [(status.path.rstrip("/").rsplit("/", 1)[-1], status.isdir) for status in listing]
            except (FileNotFoundError, NotADirectoryError):
                return []
            return sorted(name for name, is_dir in found if is_dir == folders and name)

        return self.guarded("list", parts, work)

    def write(self, parts: tuple[str, ...], data: bytes, *, overwrite: bool) -> str | None:
        """Write ``data`` under a temp name in the same folder, then rename it to ``parts`` (with ``overwrite``, or
        failing when the name exists: then None); the content's tag."""
        from hdfs_native import WriteOptions

        client, final = self.client(), self.path(parts)
        folder, _, name = final.rpartition("/")
        temp = f"{folder}/.{name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp"

        def work() -> str | None:
            with client.create(temp, WriteOptions(overwrite=False, create_parent=True)) as writer:
                writer.write(data)
            try:
                client.rename(temp, final, overwrite)
            except FileExistsError:
                return None
            return _content_tag(data)

        try:
            return self.guarded("write", parts, work)
        finally:
            self._remove_quietly(temp)

    def take_aside(self, parts: tuple[str, ...], tag: str) -> bool:
        """Remove the file if it is still the one whose content has ``tag``: moved aside in one rename (of two runs
        only one can), its content checked, put back (without overwrite) when it is another; False when it was not
        removed."""
        client, final = self.client(), self.path(parts)
        folder, _, name = final.rpartition("/")
        aside = f"{folder}/.{name}.aside.{os.getpid()}.{uuid.uuid4().hex[:12]}"

        def work() -> bool:
            try:
                client.rename(final, aside, False)
            except FileNotFoundError:
                return False  # removed or moved by another run first
            with client.read(aside) as reader:
                moved = bytes(reader.read())
            if _content_tag(moved) == tag:
                return True
            try:  # another run replaced it between our read and the rename: give it back
                client.rename(aside, final, False)
            except FileExistsError:
                pass
            return False

        try:
            return self.guarded("replace", parts, work)
        finally:
            self._remove_quietly(aside)

    def delete(self, parts: tuple[str, ...]) -> bool:
        def work() -> bool:
            try:
                self.client().delete(self.path(parts), False)
            except FileNotFoundError:
                pass
            return True

        return self.guarded("delete", parts, work)

    def make_root(self) -> None:
        self.guarded("create the lakehouse root", (), lambda: self.client().mkdirs(self.path(()), create_parent=True))

    def _remove_quietly(self, path: str) -> None:
        try:
            self.client().delete(path, False)
        except Exception:  # noqa: BLE001, S110 - a temp name that was renamed away or never made
            pass


def _links_under(folder: str) -> Iterator[str]:
    """Every symbolic link under ``folder``, depth first; links are reported, never entered.

    Raises:
        StorageError: a folder under it cannot be listed (one vanishing meanwhile is skipped).
    """
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StorageError(f"cannot list {folder} to check it for links: {exc.strerror}", path=folder) from exc
    for entry in entries:
        if entry.is_symlink():
            yield entry.path
        elif entry.is_dir(follow_symlinks=False):
            yield from _links_under(entry.path)


def as_storage(root: str | os.PathLike[str] | LakehouseStorage) -> LakehouseStorage:
    """``root`` as a storage: a storage as it is, a local path or ``file://`` URI as a local root, an ``hdfs://`` URI
    as its HDFS folder.

    Raises:
        ValueError: ``root`` is a remote URI given as a string: its endpoint and region are settings, so build the
            storage from them (``LakehouseSettings.storage()``) rather than guess.
    """
    if isinstance(root, LakehouseStorage):
        return root
    if parse_root(root).scheme == "s3a":
        raise ValueError(
            f"{os.fspath(root)} is a remote lakehouse root: pass LakehouseStorage.for_root(root, settings.lakehouse.s3)"
        )
    return LakehouseStorage.for_root(root)  # an hdfs:// URI needs no settings: the NameNode is in it


def user_cache_root() -> Path:
    """The user's cache folder: ``$XDG_CACHE_HOME`` when it is an absolute path (the XDG rule), else ``~/.cache``."""
    configured = os.environ.get("XDG_CACHE_HOME", "")
    return Path(configured) if os.path.isabs(configured) else Path.home() / ".cache"


def _error_code(exc: Exception) -> str:
    response = getattr(exc, "response", None)
    return str(response.get("Error", {}).get("Code", "")) if isinstance(response, dict) else ""


def _content_tag(data: bytes) -> str:
    """An HDFS file's tag: the SHA-256 of its content (HDFS has no ETag; a lock's content names its run and pid)."""
    return hashlib.sha256(data).hexdigest()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@functools.lru_cache(maxsize=8)
def _s3_client(s3: S3Settings | None) -> Any:
    """One boto3 client per S3 settings block (clients are thread-safe and costly to make)."""
    try:
        import boto3
        from botocore.config import Config
    except ImportError as exc:  # pragma: no cover - an optional dependency
        raise StorageError("an s3a:// lakehouse needs boto3: pip install 'csillag[s3]'", path="s3a://") from exc
    s3 = s3 or S3Settings()
    return boto3.client(
        "s3",
        endpoint_url=s3.endpoint,
        region_name=s3.region,
        config=Config(s3={"addressing_style": "path" if s3.path_style else "auto"}, retries={"max_attempts": 5}),
    )


_hdfs_clients_made = False
HDFS_CONNECT_TIMEOUT_S = 10.0


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


@functools.lru_cache(maxsize=8)
def _pyarrow_fs(s3: S3Settings | None) -> Any:
    import pyarrow.fs as pafs

    if s3 is None:
        return pafs.LocalFileSystem()
    options: dict[str, Any] = {"region": s3.region, "force_virtual_addressing": not s3.path_style and not s3.endpoint}
    if s3.endpoint:
        scheme, _, host = s3.endpoint.partition("://")
        options.update(endpoint_override=host, scheme=scheme)
    return pafs.S3FileSystem(**options)
