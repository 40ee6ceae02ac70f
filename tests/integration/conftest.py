"""Fixtures of the integration tests: the project's Neo4j server (started once per session by its helper)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from graph.settings import Neo4jSettings


def _field(info: Any, name: str, position: int) -> Any:
    """Read uri/user/password from whatever ``ensure_neo4j`` returns: an object, a mapping or a tuple."""
    if isinstance(info, dict):
        return info[name]
    if isinstance(info, tuple | list):
        return info[position]
    return getattr(info, name)


@pytest.fixture(scope="session")
def neo4j_settings() -> Neo4jSettings:
    """Settings of a running Neo4j server: ``ensure_neo4j()`` starts it if needed (and the helper stops it)."""
    try:
        from tests.integration.neo4j_server import ensure_neo4j
    except ImportError as exc:
        # Without the helper, a server already started by ``scripts/neo4j.sh start`` can be named in the environment
        # (``eval "$(scripts/neo4j.sh env)"``).
        if not os.environ.get("CSILLAG_NEO4J_URI"):
            pytest.skip(f"no Neo4j: tests/integration/neo4j_server.py is not importable ({exc}) and "
                        "CSILLAG_NEO4J_URI is not set")
        info = (os.environ["CSILLAG_NEO4J_URI"], os.environ.get("CSILLAG_NEO4J_USER", "neo4j"),
                os.environ.get("CSILLAG_NEO4J_PASSWORD", ""))
    else:
        info = ensure_neo4j()
    password = _field(info, "password", 2)
    return Neo4jSettings(
        uri=_field(info, "uri", 0),
        user=_field(info, "user", 1),
        password=password.get_secret_value() if hasattr(password, "get_secret_value") else password,
        database=os.environ.get("CSILLAG_NEO4J_DATABASE", "neo4j"),
        batch_size=7,  # small on purpose: the tiny test graph then needs several batches per kind
        connection_timeout_s=5.0,
    )
