"""Settings of the graph stores (Neo4j connection, embedded store cache).

Plain pydantic models: the composed, file- and environment-aware settings object lives in
``settings.config``; ``graph`` imports none of our packages, so it only defines its own components here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class Neo4jSettings(BaseModel):
    """Connection to a Neo4j 5 server; the password comes from the environment (``CSILLAG_NEO4J_PASSWORD``)."""

    model_config = ConfigDict(extra="forbid")

    uri: str = Field(default="bolt://127.0.0.1:7687", description="Bolt or neo4j:// URI of the server.")
    user: str = "neo4j"
    password: SecretStr = SecretStr("")
    database: str = "neo4j"
    batch_size: int = Field(default=20_000, ge=1, le=1_000_000, description="Rows per UNWIND batch when loading.")
    connection_timeout_s: float = Field(default=10.0, gt=0)


class GraphSettings(BaseModel):
    """Which store the chat side queries, and where the embedded store keeps its cache."""

    model_config = ConfigDict(extra="forbid")


    store: Literal["embedded", "neo4j"] = "embedded"
    cache_dir: Path | None = Field(
        default=None, description="Where the embedded store caches the loaded graph; default: <lakehouse>/_cache."
    )
