"""``S3Backend``: a lakehouse root under a prefix of a bucket of an S3-compatible store.

S3 has no rename, so small files are written as one PUT under the final key (S3 replaces an object whole, so a
reader sees the old or the new content, never half); an exclusive create is ``If-None-Match: *`` and a replace or
delete that must not overwrite what another run wrote meanwhile is ``If-Match: <ETag>``. Every client — boto3 here,
pyarrow's ``S3FileSystem``, delta-rs's ``storage_options``, Spark's S3A settings — is derived from the one
``S3Settings`` block, so they can never point at different buckets.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from graph.errors import StorageError
from graph.lakehouse.backend import Parts, first_line, join_key
from graph.settings import S3Settings

logger = logging.getLogger(__name__)

_MISSING = {"NoSuchKey", "404"}


@dataclass(frozen=True)
class S3Backend:
    """``bucket``/``prefix`` of the store ``s3`` describes (``prefix``: no leading or trailing slash)."""

    bucket: str
    prefix: str = ""
    s3: S3Settings = S3Settings()

    @property
    def identity(self) -> str:
        """The endpoint and the ``s3a://`` URI (one bucket name can exist on two stores)."""
        return f"{self.s3.endpoint or 'aws'} {self.uri(())}"

    def uri(self, parts: Parts) -> str:
        """``s3a://bucket/key``: Hadoop's (and so Spark's) name."""
        return f"s3a://{self.bucket}/{join_key(self.prefix, parts)}"

    def delta_uri(self, parts: Parts) -> str:
        """``s3://bucket/key``: delta-rs's name."""
        return f"s3://{self.bucket}/{join_key(self.prefix, parts)}"

    def fs_path(self, parts: Parts) -> str:
        """``bucket/key``: pyarrow's name."""
        return f"{self.bucket}/{join_key(self.prefix, parts)}"

    def cache_name(self) -> str:
        """The bucket's name."""
        return self.bucket

    @property
    def storage_options(self) -> dict[str, str]:
        """delta-rs's options for the same endpoint, region and addressing; credentials from the environment.

        ``AWS_S3_ALLOW_UNSAFE_RENAME``: delta-rs commits a version by writing its log entry, and on S3 without a
        locking provider it cannot make that write exclusive by itself. That is safe here because the lakehouse lock
        (``ingestion.lock``, a conditional create) already makes one run the only writer of the lakehouse.
        """
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
        """The ``spark.hadoop.fs.s3a.*`` settings that make Spark's S3A connector reach the same bucket.

        Credentials are not put in the configuration (it is logged and shown in Spark's UI): the connector reads
        them from the environment, as delta-rs and pyarrow do.
        """
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
        """pyarrow's ``S3FileSystem`` on the same endpoint."""
        return _pyarrow_s3(self.s3)

    def client(self) -> Any:
        """The boto3 client of this store (one per settings block)."""
        return _s3_client(self.s3)

    def read_tagged(self, parts: Parts) -> tuple[bytes, str] | None:
        """The object's content and ETag, or None."""
        try:
            answer = self.client().get_object(Bucket=self.bucket, Key=join_key(self.prefix, parts))
        except Exception as exc:  # noqa: BLE001 - boto3's errors are classes made at run time; sorted by code below
            if _error_code(exc) in _MISSING:
                return None
            raise self._error("read", parts, exc) from exc
        return bytes(answer["Body"].read()), str(answer["ETag"])

    def read_bytes(self, parts: Parts) -> bytes | None:
        """The object's content, or None."""
        found = self.read_tagged(parts)
        return None if found is None else found[0]

    def write_bytes(self, parts: Parts, data: bytes) -> None:
        """One PUT under the final key."""
        self._put(parts, data)

    def create(self, parts: Parts, data: bytes) -> str | None:
        """A PUT with ``If-None-Match: *``."""
        return self._put(parts, data, IfNoneMatch="*")

    def replace(self, parts: Parts, data: bytes, tag: str) -> str | None:
        """A PUT with ``If-Match: tag``."""
        return self._put(parts, data, IfMatch=tag)

    def delete(self, parts: Parts, tag: str | None) -> bool:
        """A DELETE, with ``If-Match: tag`` when given."""
        conditions = {"IfMatch": tag} if tag else {}
        try:
            self.client().delete_object(Bucket=self.bucket, Key=join_key(self.prefix, parts), **conditions)
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            if _error_code(exc) in {"PreconditionFailed", *_MISSING}:
                return False
            raise self._error("delete", parts, exc) from exc
        return True

    def is_file(self, parts: Parts) -> bool:
        """Whether an object has the key (a HEAD)."""
        try:
            self.client().head_object(Bucket=self.bucket, Key=join_key(self.prefix, parts))
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            if _error_code(exc) in {*_MISSING, "NotFound"}:
                return False
            raise self._error("look up", parts, exc) from exc
        return True

    def is_dir(self, parts: Parts) -> bool:
        """Whether any key starts with ``parts/`` (S3 has no folders)."""
        prefix = join_key(self.prefix, parts)
        try:
            answer = self.client().list_objects_v2(Bucket=self.bucket, Prefix=prefix + "/" if prefix else "", MaxKeys=1)
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            raise self._error("list", parts, exc) from exc
        return bool(answer.get("KeyCount"))

    def list_files(self, parts: Parts) -> list[str]:
        """The objects directly under ``parts/``."""
        return self._list(parts, "Contents", "Key")

    def list_dirs(self, parts: Parts) -> list[str]:
        """The common prefixes directly under ``parts/``."""
        return self._list(parts, "CommonPrefixes", "Prefix")

    def check_writable(self) -> None:
        """The bucket must be reachable with the environment's credentials (a HEAD on it)."""
        try:
            self.client().head_bucket(Bucket=self.bucket)
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            raise self._error("reach the bucket of", (), exc) from exc

    def check_confined(self, unchecked: Collection[str]) -> None:
        """Nothing to check: an object store has no links."""

    def _list(self, parts: Parts, kind: str, field: str) -> list[str]:
        """One level of names under ``parts``: "CommonPrefixes" (folders) or "Contents" (files)."""
        prefix = join_key(self.prefix, parts)
        prefix = prefix + "/" if prefix else ""
        names: list[str] = []
        try:
            pages = self.client().get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix, Delimiter="/"
            )
            for page in pages:
                names += [item[field][len(prefix):].rstrip("/") for item in page.get(kind, [])]
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            raise self._error("list", parts, exc) from exc
        return sorted(name for name in names if name)

    def _put(self, parts: Parts, data: bytes, **conditions: str) -> str | None:
        try:
            answer = self.client().put_object(
                Bucket=self.bucket, Key=join_key(self.prefix, parts), Body=data, **conditions
            )
        except Exception as exc:  # noqa: BLE001 - see read_tagged
            code = _error_code(exc)
            if conditions and code in {"PreconditionFailed", "ConditionalRequestConflict", *_MISSING}:
                return None
            if conditions and code == "NotImplemented":
                raise StorageError(
                    f"the S3 store at {self.s3.endpoint} does not support conditional writes "
                    f"({', '.join(conditions)}); csillag needs them to lock a lakehouse ({self.uri(())})",
                    path=self.uri(parts),
                ) from exc
            raise self._error("write", parts, exc) from exc
        return str(answer["ETag"])

    def _error(self, action: str, parts: Parts, exc: Exception) -> StorageError:
        where = self.uri(parts)
        return StorageError(
            f"cannot {action} {where} (endpoint {self.s3.endpoint or 'AWS S3'}): {first_line(exc)}", path=where
        )


def _error_code(exc: Exception) -> str:
    response = getattr(exc, "response", None)
    return str(response.get("Error", {}).get("Code", "")) if isinstance(response, dict) else ""


@functools.lru_cache(maxsize=8)
def _s3_client(s3: S3Settings) -> Any:
    """One boto3 client per S3 settings block (clients are thread-safe and costly to make)."""
    try:
        import boto3
        from botocore.config import Config
    except ImportError as exc:  # pragma: no cover - an optional dependency
        raise StorageError("an s3a:// lakehouse needs boto3: pip install 'csillag[s3]'", path="s3a://") from exc
    return boto3.client(
        "s3",
        endpoint_url=s3.endpoint,
        region_name=s3.region,
        config=Config(s3={"addressing_style": "path" if s3.path_style else "auto"}, retries={"max_attempts": 5}),
    )


@functools.lru_cache(maxsize=8)
def _pyarrow_s3(s3: S3Settings) -> Any:
    import pyarrow.fs as pafs

    options: dict[str, Any] = {"region": s3.region, "force_virtual_addressing": not s3.path_style and not s3.endpoint}
    if s3.endpoint:
        scheme, _, host = s3.endpoint.partition("://")
        options.update(endpoint_override=host, scheme=scheme)
    return pafs.S3FileSystem(**options)
