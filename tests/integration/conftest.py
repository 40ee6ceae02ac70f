"""Fixtures of the integration tests: the project's Neo4j server (started once per session by its helper)."""

from __future__ import annotations

import os

import pytest
from pydantic import SecretStr

from graph.settings import Neo4jSettings
from tests.integration.neo4j_server import ensure_neo4j


@pytest.fixture(scope="session")
def neo4j_settings() -> Neo4jSettings:
    """Settings of a running Neo4j server: ``ensure_neo4j()`` starts the project's one if needed (and stops it)."""
    connection = ensure_neo4j()
    return Neo4jSettings(
        uri=connection.uri,
        user=connection.user,
        password=SecretStr(connection.password),
        database=os.environ.get("CSILLAG_NEO4J_DATABASE", "neo4j"),
        batch_size=7,  # small on purpose: the tiny test graph then needs several batches per kind
        connection_timeout_s=5.0,
    )
