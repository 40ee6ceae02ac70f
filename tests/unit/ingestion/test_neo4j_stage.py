"""Issue 12 item 2 without a server: the ``neo4j`` stage's place, its skip, its marker keys, and ``csillag graph load``
failing in one line. The loads themselves, on the real Neo4j server, are in tests/integration/test_neo4j_pipeline.py."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pytest
from deltalake import write_deltalake

import graph.metrics
from cli.app import main
from graph.errors import GraphLoadError
from graph.lakehouse import Lakehouse
from graph.loading import lakehouse_versions, load_into_neo4j, read_graph
from graph.settings import Neo4jSettings
from graph.testing.fixtures import frames, small_graph
from ingestion.markers import MarkerStore
from ingestion.pipeline import STAGE_NAMES
from ingestion.stages.graph import MAX_DRIVER_EDGES
from ingestion.stages.neo4j import Neo4jStage
from settings.config import load_settings
from tools.ingestion import STAGE_NAMES as CONTRACT_STAGE_NAMES

ROOT = Path(__file__).resolve().parents[3]


def _lakehouse(root: Path) -> Path:
    """The small graph's tables as Delta tables (delta-rs, no JVM)."""
    for table, frame in frames().items():
        write_deltalake(str(root / table), pa.Table.from_pandas(frame, preserve_index=False), mode="overwrite")
    return root


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ctx(root: Path, **overrides: Any) -> SimpleNamespace:
    settings = load_settings(lakehouse={"root": root}, **overrides)
    storage = Lakehouse.for_root(root)
    lakehouse = SimpleNamespace(root=root, storage=storage, markers=MarkerStore(storage))
    return SimpleNamespace(settings=settings, lakehouse=lakehouse, force=False, run_id="run-1")


def test_issue_12_neo4j_stage_runs_last_and_is_in_the_contract_list() -> None:
    assert STAGE_NAMES[-2:] == ("graph", "neo4j") and CONTRACT_STAGE_NAMES == STAGE_NAMES


def test_issue_12_neo4j_stage_skips_without_marker_for_the_embedded_store(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, graph={"store": "embedded"})
    report = Neo4jStage().run(ctx)  # type: ignore[arg-type]
    assert report.status == "skipped" and "graph.store is 'embedded'" in (report.reason or "")
    assert not (tmp_path / "_markers").exists()


def test_issue_12_neo4j_stage_keys_its_marker_by_table_versions_and_server(tmp_path: Path) -> None:
    root = _lakehouse(tmp_path)
    ctx = _ctx(root, graph={"store": "neo4j"})
    stage = Neo4jStage()
    first_input, first_config = stage.input_fingerprint(ctx), stage.config_fingerprint(ctx)  # type: ignore[arg-type]
    # a new commit to any table it loads changes the input fingerprint
    write_deltalake(str(root / "mentions"), pa.Table.from_pandas(frames()["mentions"], preserve_index=False),
                    mode="overwrite")
    assert Neo4jStage().input_fingerprint(ctx) != first_input  # type: ignore[arg-type]
    # another server or database changes the config fingerprint; another password does not
    other = _ctx(root, graph={"store": "neo4j"}, neo4j={"uri": "bolt://elsewhere:7687"})
    assert Neo4jStage().config_fingerprint(other) != first_config  # type: ignore[arg-type]
    assert Neo4jStage().config_fingerprint(ctx) == first_config  # type: ignore[arg-type]


def test_issue_12_loading_reads_the_tables_at_the_given_versions(tmp_path: Path) -> None:
    root = _lakehouse(tmp_path)
    lakehouse = Lakehouse.for_root(root)
    pinned = lakehouse_versions(lakehouse, published=False)
    nodes = frames()["graph_nodes"]
    nodes = nodes[nodes["entity_id"] != "ent_12"]
    write_deltalake(str(root / "graph_nodes"), pa.Table.from_pandas(nodes, preserve_index=False), mode="overwrite")
    assert len(read_graph(lakehouse, pinned).entities) == 12  # time travel to the pinned version
    assert len(read_graph(lakehouse, lakehouse_versions(lakehouse, published=False)).entities) == 11
    assert read_graph(lakehouse, pinned) == small_graph()


def test_issue_12_load_into_an_unreachable_neo4j_is_one_line_with_uri_and_user(tmp_path: Path) -> None:
    root = _lakehouse(tmp_path)
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    settings = Neo4jSettings(uri=uri, user="reader", connection_timeout_s=2.0)
    with pytest.raises(GraphLoadError) as caught:
        load_into_neo4j(Lakehouse.for_root(root), settings, published=True)
    message = str(caught.value)
    assert "\n" not in message and uri in message and "user 'reader'" in message
    assert (caught.value.uri, caught.value.user) == (uri, "reader")


def test_issue_12_cli_graph_load_neo4j_down_exit_1_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _lakehouse(tmp_path)
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("CSILLAG_NEO4J_URI", uri)
    monkeypatch.setenv("CSILLAG_NEO4J_USER", "loader")
    monkeypatch.setenv("CSILLAG_NEO4J_CONNECTION_TIMEOUT_S", "2")
    assert main(["graph", "load", "--lakehouse", str(root)]) == 1
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert out.out == "" and len(lines) == 1
    assert lines[0].startswith("csillag: ") and uri in lines[0] and "user 'loader'" in lines[0]


def test_issue_12_cli_graph_load_missing_tables_exit_1_naming_the_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["graph", "load", "--lakehouse", str(tmp_path / "empty")]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and str(tmp_path / "empty") in lines[0]


def test_issue_12_driver_edge_limit_is_the_documented_one() -> None:
    # graph.metrics measured the driver's limit ("about 10^6 edges"); the stage and the docs must say the same
    assert re.search(r"The limit is about 10\^6 edges", graph.metrics.__doc__ or "")
    assert MAX_DRIVER_EDGES == 10**6
    stage_page = (ROOT / "docs" / "stages" / "graph.md").read_text(encoding="utf-8")
    assert "up to `MAX_DRIVER_EDGES` (1,000,000 edges)" in stage_page
