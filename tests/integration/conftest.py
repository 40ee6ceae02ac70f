"""Fixtures of the integration tests: the project's Neo4j server, and the real novels ingested once per session."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import SecretStr

from graph.settings import Neo4jSettings
from tests.conftest import corpus_path
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


# -- the real novels, ingested once per test session ------------------------------------------------------------


def _run(spark: Any, tool_class: type, corpus: Path, lake: Path) -> SimpleNamespace:
    from tools.config import load_settings
    from tools.ingestion import IngestionRequest

    tool = tool_class()
    tool.set_settings(load_settings(lakehouse={"root": lake}, spark={"master": "local[2]", "shuffle_partitions": 2}))
    tool.set_spark_session(spark)
    result = tool.execute_ingestion(IngestionRequest(inputs=[str(corpus)]))
    return SimpleNamespace(lake=lake, result=result)


@pytest.fixture(scope="session")
def egri_run(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """Egri csillagok ingested once per test session (later tests ask questions of it)."""
    from ingestion.domains.egri_ingestion import EgriCsillagokNERIngestionTool

    corpus = corpus_path("egri_csillagok.txt")
    return _run(spark, EgriCsillagokNERIngestionTool, corpus, tmp_path_factory.mktemp("egri") / "lake")


@pytest.fixture(scope="session")
def war_and_peace_run(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """War and Peace ingested once per test session with en_core_web_sm."""
    from ingestion.domains.generic import GenericNERIngestionTool

    corpus = corpus_path("war_and_peace.txt")
    return _run(spark, GenericNERIngestionTool, corpus, tmp_path_factory.mktemp("wp") / "lake")
