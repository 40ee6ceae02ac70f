"""Settings of the graph stores (Neo4j connection, embedded store cache).

Plain pydantic models: the composed, file- and environment-aware settings object lives in
``settings.config``; ``graph`` imports none of our packages, so it only defines its own components here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator


class Neo4jSettings(BaseModel):
    """Connection to a Neo4j 5 server; the password comes from the environment (``CSILLAG_NEO4J_PASSWORD``)."""

    model_config = ConfigDict(extra="forbid")

    uri: str = Field(default="bolt://127.0.0.1:7687", description="Bolt or neo4j:// URI of the server.")
    user: str = "neo4j"
    password: SecretStr = SecretStr("")
    database: str = "neo4j"
    batch_size: int = Field(default=20_000, ge=1, le=1_000_000, description="Rows per UNWIND batch when loading.")
    connection_timeout_s: float = Field(default=10.0, gt=0)


class S3Settings(BaseModel):
    """Where an ``s3a://`` lakehouse's bucket is served: one block that feeds Spark (``spark.hadoop.fs.s3a.*``),
    delta-rs (``storage_options``) and the Python side (pyarrow, boto3), so that they cannot point at different places.

    Credentials are not settings: they come only from the environment (``AWS_ACCESS_KEY_ID``,
    ``AWS_SECRET_ACCESS_KEY``, optionally ``AWS_SESSION_TOKEN``), like every other secret of csillag.
    """

    # frozen: hashable, so one client per settings block can be cached (graph.lakehouse.s3)
    model_config = ConfigDict(extra="forbid", frozen=True)

    endpoint: str | None = Field(
        default=None,
        description="URL of an S3-compatible server (http://host:port or https://…); None = AWS S3 of the region.",
    )
    region: str = Field(default="us-east-1", min_length=1)
    path_style: bool = Field(
        default=False, description="Address buckets as endpoint/bucket/key (MinIO, most self-hosted stores)."
    )

    @field_validator("endpoint")
    @classmethod
    def _check_endpoint(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("not an endpoint URL; accepted: http://HOST:PORT or https://HOST[:PORT]")
        return value.rstrip("/") if value else value


class GraphSettings(BaseModel):
    """Which store the chat side queries, and where the embedded store keeps its cache."""

    model_config = ConfigDict(extra="forbid")


    store: Literal["embedded", "neo4j"] = "embedded"
    cache_dir: Path | None = Field(
        default=None,
        description="Where the embedded store caches the loaded graph; default: <lakehouse>/_cache (for an s3a:// "
        "lakehouse: a local folder per root under $XDG_CACHE_HOME/csillag/lakehouses, default ~/.cache).",
    )
