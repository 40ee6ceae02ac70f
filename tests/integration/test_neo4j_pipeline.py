"""Issue 12 item 2: the pipeline loads Neo4j (the ``neo4j`` stage) and ``csillag graph load`` does it by hand.

Real parts throughout: the English sample corpus ingested with local Spark, spaCy and Delta, into the project's Neo4j
test server. What Neo4j holds is read around the store, with the driver, and compared as a checksum of every node
and relationship with its properties; which entities belong to one document only is worked out from the Delta
tables, never hard-coded.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import neo4j
import pytest
from pydantic import SecretStr

from graph.embedded import EmbeddedGraphStore
from graph.errors import GraphLoadError
from graph.lakehouse import Lakehouse
from graph.loading import load_into_neo4j, neo4j_counts
from graph.neo4j_store import Neo4jGraphStore
from graph.settings import Neo4jSettings
from graph.testing.contract import comparable_answer
from tests.conftest import SAMPLES
from tests.unit.ingestion.tables import read, version

pytestmark = [pytest.mark.neo4j, pytest.mark.integration, pytest.mark.spark]

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Who is Margaret Hale's closest companion?"
TABLES = ["graph_nodes", "graph_edges", "documents", "chunks", "mention_entities", "mentions", "relations", "quotes"]


def _env(settings: Neo4jSettings) -> dict[str, str]:
    return {
        "CSILLAG_GRAPH_STORE": "neo4j", "CSILLAG_NEO4J_URI": settings.uri, "CSILLAG_NEO4J_USER": settings.user,
        "CSILLAG_NEO4J_PASSWORD": settings.password.get_secret_value(), "CSILLAG_NEO4J_DATABASE": settings.database,
    }


def _ingest(spark: Any, lake: Path, corpus: Path, env: dict[str, str], **request: Any) -> Any:
    """One in-process run of the generic English tool with the settings the environment ``env`` gives."""
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings
    from tools.ingestion import IngestionRequest

    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        settings = load_settings(lakehouse={"root": lake}, spark={"master": "local[2]", "shuffle_partitions": 2})
    tool = GenericNERIngestionTool()
    tool.set_settings(settings)
    tool.set_spark_session(spark)
    return tool.execute_ingestion(IngestionRequest(inputs=[str(corpus)], **request))


def _content(settings: Neo4jSettings) -> tuple[dict[str, int], str]:
    """Counts by label / relationship type, and a checksum of every node and relationship with its properties."""
    key = "coalesce(n.entity_id, n.chunk_id, n.unit_id, n.doc_id)"
    auth = (settings.user, settings.password.get_secret_value())
    with neo4j.GraphDatabase.driver(settings.uri, auth=auth) as driver:
        nodes, _, _ = driver.execute_query(
            f"MATCH (n) RETURN labels(n) AS labels, {key} AS id, properties(n) AS props", database_=settings.database
        )
        rels, _, _ = driver.execute_query(
            f"MATCH (n)-[r]->(m) RETURN type(r) AS type, {key} AS a, "
            "coalesce(m.entity_id, m.chunk_id, m.unit_id, m.doc_id) AS b, properties(r) AS props",
            database_=settings.database,
        )
    counts: dict[str, int] = {}
    for row in nodes:
        counts[row["labels"][0]] = counts.get(row["labels"][0], 0) + 1
    for row in rels:
        counts[row["type"]] = counts.get(row["type"], 0) + 1
    lines = sorted(json.dumps(row.data(), sort_keys=True, default=str) for row in [*nodes, *rels])
    return counts, hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _neo4j_entity_ids(settings: Neo4jSettings) -> set[str]:
    store = Neo4jGraphStore.from_settings(settings)
    try:
        return {row["e"]["entity_id"] for row in store._read("list", "MATCH (e:Entity) RETURN properties(e) AS e")}
    finally:
        store.close()


def _stage(result: Any, name: str = "neo4j") -> Any:
    return next(s for s in result.stages if s.stage == name)


@pytest.fixture(scope="module")
def run(
    spark: Any, neo4j_settings: Neo4jSettings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SimpleNamespace]:
    """The sample corpus (a copy: a test removes a document) ingested once with graph.store = "neo4j"."""
    base = tmp_path_factory.mktemp("neo4j-pipeline")
    corpus, lake = base / "corpus", base / "lake"
    shutil.copytree(SAMPLES / "en", corpus)
    settings = neo4j_settings.model_copy(update={"batch_size": 20_000})
    store = Neo4jGraphStore.from_settings(settings)
    store.clear()  # another test module's graph must not count as "removed" here
    store.close()
    env = _env(settings)
    first = _ingest(spark, lake, corpus, env)
    yield SimpleNamespace(corpus=corpus, lake=lake, env=env, settings=settings, first=first)
    store = Neo4jGraphStore.from_settings(settings)
    store.clear()
    store.close()


def test_issue_12_pipeline_loads_neo4j_with_the_embedded_stores_answers(run: SimpleNamespace) -> None:
    assert run.first.status == "succeeded", run.first
    stage = _stage(run.first)
    assert stage.status == "succeeded"
    nodes = read(run.lake, "graph_nodes")
    assert stage.counts["entities"] == len(nodes) and stage.counts["relations"] == len(read(run.lake, "graph_edges"))
    marker = json.loads((run.lake / "_markers" / "neo4j" / "_SUCCESS").read_text())
    assert marker["details"]["versions"] == {table: version(run.lake, table) for table in TABLES}
    assert run.settings.password.get_secret_value() not in json.dumps(marker)
    embedded = EmbeddedGraphStore.from_settings(Lakehouse.for_root(run.lake))
    neo = Neo4jGraphStore.from_settings(run.settings)
    try:
        margaret = embedded.find_entity("Margaret Hale").best
        assert margaret is not None
        top = [e.entity_id for e in embedded.top_entities(by="mentions", limit=5)]
        queries = [
            lambda s: s.find_entity("Margaret Hale"), lambda s: s.find_entity("margaret"), lambda s: s.stats(),
            lambda s: s.top_entities(by="pagerank", limit=10), lambda s: s.top_entities(by="mentions", limit=10),
            lambda s: s.quotations(limit=500), lambda s: s.find_quotations("the"),
        ]
        for entity_id in top:
            queries += [
                lambda s, e=entity_id: s.neighbours(e, limit=10), lambda s, e=entity_id: s.mentions(e, limit=5),
                lambda s, e=entity_id: s.timeline(e), lambda s, e=entity_id: s.shortest_path(margaret.entity_id, e),
                lambda s, e=entity_id: s.relatives(e), lambda s, e=entity_id: s.quotations(speaker_id=e),
                lambda s, e=entity_id: s.quotations(addressee_id=e),
            ]
        for query in queries:
            assert comparable_answer(lambda q=query: q(neo)) == comparable_answer(lambda q=query: q(embedded))
        assert neo.neighbours(margaret.entity_id), "Margaret Hale meets someone in the samples"
        assert neo.quotations(speaker_id=margaret.entity_id), "Margaret Hale speaks in the samples"
    finally:
        neo.close()


def _ask(lake: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", "ask", QUESTION, "--lakehouse", str(lake)],
        capture_output=True, text=True, timeout=600, cwd=ROOT, env=env, check=False,
    )


def test_issue_12_csillag_ask_answers_alike_from_neo4j_and_embedded(run: SimpleNamespace) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CSILLAG_")}
    embedded = _ask(run.lake, base | {"CSILLAG_GRAPH_STORE": "embedded"})
    from_neo4j = _ask(run.lake, base | run.env)
    assert embedded.returncode == 0, embedded.stderr[-2000:]
    assert from_neo4j.returncode == 0, from_neo4j.stderr[-2000:]
    assert "Margaret" in embedded.stdout
    assert from_neo4j.stdout == embedded.stdout


def test_issue_12_rerun_changes_nothing_in_neo4j(spark: Any, run: SimpleNamespace) -> None:
    before = _content(run.settings)
    again = _ingest(spark, run.lake, run.corpus, run.env)
    assert _stage(again).status == "skipped" and _stage(again).reason == "up to date"
    assert _content(run.settings) == before
    # by hand: `csillag graph load` loads what is published -- the same graph -- and changes nothing either
    done = subprocess.run(
        [sys.executable, "-m", "cli", "graph", "load", "--lakehouse", str(run.lake)],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env={"PATH": "/usr/bin:/bin"} | run.env, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("\n") == 1 and "nothing changed" in done.stdout and run.settings.uri in done.stdout
    assert _content(run.settings) == before


def test_issue_12_neo4j_down_or_wrong_password_fails_in_one_line(spark: Any, run: SimpleNamespace) -> None:
    versions = {table: version(run.lake, table) for table in TABLES}
    port = _closed_port()
    down = run.env | {"CSILLAG_NEO4J_URI": f"bolt://127.0.0.1:{port}"}
    failed = _ingest(spark, run.lake, run.corpus, down, stages=["neo4j"])
    assert failed.status == "failed"
    assert f"bolt://127.0.0.1:{port}" in failed.reason and "'neo4j'" in failed.reason and "\n" not in failed.reason
    wrong = run.env | {"CSILLAG_NEO4J_PASSWORD": "not-the-password"}
    refused = _ingest(spark, run.lake, run.corpus, wrong, stages=["neo4j"])
    assert refused.status == "failed" and _stage(refused).status == "failed"
    assert run.settings.uri in refused.reason and f"user {run.settings.user!r}" in refused.reason
    assert "not-the-password" not in refused.reason and "\n" not in refused.reason
    assert {table: version(run.lake, table) for table in TABLES} == versions  # the Delta tables are untouched
    # the same by hand: exit 1, one line
    done = subprocess.run(
        [sys.executable, "-m", "cli", "graph", "load", "--lakehouse", str(run.lake)],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env={"PATH": "/usr/bin:/bin"} | wrong, check=False,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().count("\n") == 0 and run.settings.uri in done.stderr and "'neo4j'" in done.stderr
    # and the next run with the right settings loads (the down server's attempt left the marker cleared)
    healed = _ingest(spark, run.lake, run.corpus, run.env, stages=["neo4j"])
    assert _stage(healed).status == "succeeded", healed
    assert _stage(healed).counts == _stage(run.first).counts


def _closed_port() -> int:
    """A local TCP port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_issue_12_removing_a_document_removes_its_entities_from_neo4j(spark: Any, run: SimpleNamespace) -> None:
    resolved = read(run.lake, "mention_entities")
    documents = read(run.lake, "documents").set_index("doc_id")
    docs_of = resolved.groupby("entity_id")["doc_id"].agg(set)
    # the document with the most entities that no other document mentions (harbour_notes.txt retells the story)
    only_in = {doc: {e for e, docs in docs_of.items() if docs == {doc}} for doc in documents.index}
    removed_doc = max(only_in, key=lambda doc: (len(only_in[doc]), doc))
    only_there = only_in[removed_doc]
    assert only_there and len(docs_of) > len(only_there), "the samples have entities of one document only"
    assert only_there <= _neo4j_entity_ids(run.settings)
    Path(documents.loc[removed_doc, "source"]).unlink()
    after = _ingest(spark, run.lake, run.corpus, run.env)
    assert after.status == "succeeded", after
    stage = _stage(after)
    assert stage.status == "succeeded" and stage.details["removed"]["entities"] >= len(only_there)
    held = _neo4j_entity_ids(run.settings)
    assert not only_there & held
    assert held == set(read(run.lake, "graph_nodes")["entity_id"])
    # exactly what a fresh load of the new tables gives
    updated = _content(run.settings)
    store = Neo4jGraphStore.from_settings(run.settings)
    store.clear()
    store.close()
    load_into_neo4j(Lakehouse.for_root(run.lake), run.settings, published=False)
    assert _content(run.settings) == updated


def test_issue_12_wrong_password_message_never_holds_the_password(neo4j_settings: Neo4jSettings) -> None:
    wrong = neo4j_settings.model_copy(update={"password": SecretStr("s3cret-guess")})

    with pytest.raises(GraphLoadError) as caught:
        neo4j_counts(wrong)
    assert "s3cret-guess" not in str(caught.value) and neo4j_settings.uri in str(caught.value)
    assert (caught.value.uri, caught.value.user) == (neo4j_settings.uri, neo4j_settings.user)
