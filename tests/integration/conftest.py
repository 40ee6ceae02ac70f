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

ROOT = Path(__file__).resolve().parents[2]


def run_domain(
    spark: Any, config: str, corpus: Path, lake: Path, *, ingestion: dict[str, Any] | None = None, **request: Any
) -> SimpleNamespace:
    """Ingest ``corpus`` with a domain's settings file alone, as ``jobs.pipeline CORPUS --config conf/domains/…`` run
    from the repository root does: the tool is the one ``ingestion.tool`` names; the relative paths of the file
    (alias table, gold list) are read from the root. ``ingestion``: settings of that section to override;
    ``request``: more fields of the ``IngestionRequest`` (stages, force)."""
    from ingestion.tool import AbstractNERIngestionTool
    from jobs.common import DEFAULT_TOOL, build_tool
    from settings.config import load_settings
    from tools.ingestion import IngestionRequest

    settings = load_settings(ROOT / "conf" / "domains" / config, lakehouse={"root": lake},
                             spark={"master": "local[2]", "shuffle_partitions": 2},
                             **({"ingestion": ingestion} if ingestion else {}))
    tool = build_tool(settings.ingestion.tool or DEFAULT_TOOL, settings)
    assert isinstance(tool, AbstractNERIngestionTool), tool
    tool.set_spark_session(spark)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        result = tool.execute_ingestion(IngestionRequest(inputs=[str(corpus)], **request))
    return SimpleNamespace(lake=lake, result=result, settings=settings, tool=tool)


@pytest.fixture(scope="session")
def egri_run(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """Egri csillagok ingested once per test session with conf/domains/egri_csillagok.toml (the domain tool, the
    gold list); later tests ask questions of it."""
    corpus = corpus_path("egri_csillagok.txt")
    return run_domain(spark, "egri_csillagok.toml", corpus, tmp_path_factory.mktemp("egri") / "lake")


@pytest.fixture(scope="session")
def war_and_peace_run(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """War and Peace ingested once per test session with conf/domains/war_and_peace.toml: the generic English tool
    (en_core_web_sm), the domain's alias table and its gold list."""
    corpus = corpus_path("war_and_peace.txt")
    return run_domain(spark, "war_and_peace.toml", corpus, tmp_path_factory.mktemp("wp") / "lake")
