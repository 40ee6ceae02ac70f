from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.app import cli, main
from graph.lakehouse import Lakehouse
from tools.ingestion import IngestionResult, StageReport

KEY = "cli-test-key"


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def all_command_paths(group=cli, prefix=()):
    yield prefix
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from all_command_paths(command, (*prefix, name))
        else:
            yield (*prefix, name)


def test_cli_help_on_every_command():
    paths = list(all_command_paths())
    assert ("ingest",) in paths and ("tasks", "cancel") in paths and ("graph", "draw") in paths
    assert {("pipeline",), ("stage",), ("summary",), ("ask",), ("serve",), ("vacuum",)} <= set(paths)
    for path in paths:
        result = run(*path, "--help")
        assert result.exit_code == 0, path
        assert result.output.startswith(f"Usage: cli {' '.join(path)}".rstrip()), path


def test_cli_usage_error_is_one_line_exit_2(capsys):
    assert main(["ingest", "--zzz"]) == 2
    err = capsys.readouterr().err
    assert err == "csillag: No such option '--zzz'. (see `csillag ingest --help`)\n"
    assert main(["ingest"]) == 2  # no inputs: the pipeline job's line, whichever name the command was reached by
    assert capsys.readouterr().err == "csillag: no inputs given; name files, folders, JSONL files or tables to ingest\n"
    assert main(["frobnicate"]) == 2
    assert capsys.readouterr().err.strip() == "csillag: No such command 'frobnicate'. (see `csillag --help`)"


class FakeTool:
    def __init__(self, result: IngestionResult) -> None:
        self.result = result
        self.requests = []

    def execute_ingestion(self, request):
        self.requests.append(request)
        return self.result


PARTIAL = IngestionResult(
    run_id="run-7",
    status="partial",
    reason="1 document(s) rejected; see the rejects table",
    stages=[
        StageReport(stage="documents", status="succeeded", counts={"documents": 2, "rejects": 1}, seconds=1.5),
        StageReport(stage="chunks", status="skipped", reason="up to date", seconds=0.0),
    ],
    rejects=1,
)


def test_cli_ingest_runs_the_tool_prints_the_table_and_exits_3_when_partial(monkeypatch, tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("Gergely", encoding="utf-8")
    fake = FakeTool(PARTIAL)
    seen = {}

    def build(name, settings):
        seen["name"], seen["settings"] = name, settings
        return fake

    monkeypatch.setattr("cli.ingest.build_tool", build)
    monkeypatch.setattr("cli.ingest.configure_logging", lambda quiet: None)
    result = run("ingest", str(book), "--lakehouse", str(tmp_path / "lake"), "--master", "local[2]", "--force",
                 "--stages", "documents,chunks", "--tool", "egri_csillagok_ner_ingestion")
    assert result.exit_code == 3
    assert seen["name"] == "egri_csillagok_ner_ingestion"
    assert seen["settings"].spark.master == "local[2]"
    assert seen["settings"].lakehouse.root == tmp_path / "lake"
    request = fake.requests[0]
    assert request.inputs == [str(book)] and request.force and request.stages == ["documents", "chunks"]
    lines = result.output.splitlines()
    assert lines[0] == f"run run-7 → {(tmp_path / 'lake').resolve()}"
    assert "documents      succeeded       1.5  documents=2, rejects=1" in lines
    assert "chunks         skipped         0.0    (up to date)" in lines
    assert lines[-1] == "status: partial — 1 document(s) rejected; see the rejects table"


def test_cli_ingest_tool_defaults_to_the_setting_then_ner_ingestion(monkeypatch, tmp_path):
    monkeypatch.setattr("cli.ingest.configure_logging", lambda quiet: None)
    monkeypatch.delenv("CSILLAG_INGESTION_TOOL", raising=False)
    seen = []
    monkeypatch.setattr("cli.ingest.build_tool", lambda name, settings: seen.append(name) or FakeTool(PARTIAL))
    egri = Path(__file__).resolve().parents[3] / "conf" / "domains" / "egri_csillagok.toml"
    run("--config", str(egri), "ingest", str(tmp_path), "--lakehouse", str(tmp_path / "lake"))
    run("ingest", str(tmp_path), "--lakehouse", str(tmp_path / "lake"))
    run("--config", str(egri), "ingest", str(tmp_path), "--lakehouse", str(tmp_path / "lake"), "--tool", "x")
    assert seen == ["egri_csillagok_ner_ingestion", "ner_ingestion", "x"]


def test_cli_ingest_prints_the_gold_score(monkeypatch, tmp_path):
    monkeypatch.setattr("cli.ingest.configure_logging", lambda quiet: None)
    gold = {"path": "conf/domains/gold.json", "precision": 1.0, "recall": 0.95, "found_aliases": 19,
            "gold_aliases": 20}
    result = IngestionResult(run_id="r", status="succeeded", stages=[
        StageReport(stage="entities", status="succeeded", counts={"entities": 3}, details={"gold": gold})])
    monkeypatch.setattr("cli.ingest.build_tool", lambda name, settings: FakeTool(result))
    output = run("ingest", str(tmp_path), "--lakehouse", str(tmp_path / "lake")).output
    assert "entity resolution vs gold conf/domains/gold.json: precision 1.000 recall 0.950 (19/20 gold aliases " \
           "found)" in output.splitlines()


def test_cli_ingest_json_and_exit_codes_per_status(monkeypatch, tmp_path):
    monkeypatch.setattr("cli.ingest.configure_logging", lambda quiet: None)
    for status, code in (("succeeded", 0), ("skipped", 0), ("failed", 1)):
        fake = FakeTool(IngestionResult(run_id="r", status=status))
        monkeypatch.setattr("cli.ingest.build_tool", lambda name, settings, fake=fake: fake)
        result = run("ingest", str(tmp_path), "--json")
        assert result.exit_code == code, status
        assert json.loads(result.output)["status"] == status


def test_cli_ingest_unknown_tool_and_stage_are_one_line_exit_2(tmp_path, capsys):
    assert main(["ingest", str(tmp_path), "--tool", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("csillag: ") and "'nope'" in err[0] and "ner_ingestion" in err[0]
    assert main(["ingest", str(tmp_path), "--stages", "documents,parse"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["csillag: unknown stage 'parse'; valid stages: documents, chunks, index, mentions, "
                   "entities, quotes, relations, cooccurrences, graph, neo4j"]


@pytest.fixture
def small_lake(tmp_path: Path) -> Path:
    import pandas as pd
    from deltalake import write_deltalake

    from ingestion.markers import Marker, MarkerStore

    lake = tmp_path / "lake"
    write_deltalake(str(lake / "documents"), pd.DataFrame({"doc_id": ["a", "b"], "text": ["x", "y"]}))
    MarkerStore(Lakehouse.for_root(lake)).write(Marker(stage="documents", run_id="run-42", config_fingerprint="c",
                                                       input_fingerprint="i", output_fingerprint="o",
                                                       counts={"documents": 2}, finished_at="2026-11-30T10:00:00"))
    return lake


def test_cli_status_json_reports_markers_and_table_rows(small_lake):
    result = run("status", "--lakehouse", str(small_lake), "--json")
    assert result.exit_code == 0
    report = json.loads(result.output)
    assert list(report["stages"]) == ["documents", "chunks", "index", "mentions", "entities", "quotes",
                                      "relations", "cooccurrences", "graph", "neo4j"]
    assert report["stages"]["documents"]["run_id"] == "run-42"
    assert report["stages"]["documents"]["counts"] == {"documents": 2}
    assert report["stages"]["chunks"] is None
    assert report["tables"]["documents"] == 2 and report["tables"]["chunks"] is None


def test_cli_status_table(small_lake):
    result = run("status", "--lakehouse", str(small_lake))
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[1].split() == ["documents", "done", "2026-11-30T10:00:00", "run-42", "documents=2"]
    assert lines[2].split() == ["chunks", "pending", "—", "—"]
    assert "1/9 stages done (neo4j not used)" in lines
    assert lines[10].split() == ["neo4j", "unused", "—", "—", "graph.store", "is", "'embedded'"]
    assert "  documents             2 rows" in lines


def test_issue_12_status_counts_the_neo4j_stage_only_when_neo4j_is_the_store(small_lake, monkeypatch):
    monkeypatch.setenv("CSILLAG_GRAPH_STORE", "neo4j")
    result = run("status", "--lakehouse", str(small_lake))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "1/10 stages done" in lines
    assert lines[10].split() == ["neo4j", "pending", "—", "—"]


def test_cli_status_missing_lakehouse_is_exit_2(tmp_path, capsys):
    assert main(["status", "--lakehouse", str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_cli_graph_errors_are_one_line(tmp_path, capsys):
    assert main(["graph", "export", str(tmp_path / "g.txt"), "--lakehouse", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"csillag: cannot tell the format of {str(tmp_path / 'g.txt')!r}; name it .graphml or .gexf, "
        "or pass --format graphml|gexf"
    )
    assert main(["graph", "draw", str(tmp_path / "g.html"), "--lakehouse", str(tmp_path / "empty")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(tmp_path / "empty") in err[0]


def test_cli_serve_without_key_refuses(monkeypatch, capsys):
    monkeypatch.delenv("CSILLAG_API_API_KEY", raising=False)
    assert main(["serve"]) == 2
    assert capsys.readouterr().err.strip() == (
        "csillag: no API key: set the environment variable CSILLAG_API_API_KEY before starting the API"
    )


def test_issue_12_cli_ask_without_a_built_lakehouse_is_one_line_not_an_empty_answer(tmp_path: Path):
    # Before issue 12 this printed "I found no information about this in the knowledge base." with exit 0.
    result = run("ask", "Who defended Eger?", "--lakehouse", str(tmp_path))
    assert result.exit_code == 1
    assert result.output.strip() == (f"csillag: lakehouse {tmp_path} holds no ingested corpus (no stage done); "
                                     f"ingest one first: csillag ingest PATH… --lakehouse {tmp_path}")


@pytest.fixture
def api_url(tmp_path: Path):
    import uvicorn

    from api.app import create_app
    from settings.config import load_settings
    from tests.unit.api.apitest_tools import make_registry

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = load_settings(api={"state_dir": tmp_path / "state", "allowed_roots": [tmp_path], "api_key": KEY})
    server = uvicorn.Server(uvicorn.Config(create_app(settings, registry=make_registry()), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def tasks_cmd(url: str, *args: str, key: str = KEY):
    return CliRunner().invoke(cli, ["tasks", "--url", url, *args], env={"CSILLAG_API_API_KEY": key})


def test_cli_tasks_start_wait_and_status(api_url):
    started = tasks_cmd(api_url, "start", "sum.v1", "--input", '{"numbers": [7, 8, 9]}', "--wait", "--timeout", "20")
    assert started.exit_code == 0, started.output
    state = json.loads(started.output)
    assert state["status"] == "succeeded" and state["result"] == {"total": 24}
    again = tasks_cmd(api_url, "status", state["task_id"])
    assert again.exit_code == 0 and json.loads(again.output)["result"] == {"total": 24}


def test_cli_tasks_failed_task_exits_1_and_cancel(api_url):
    failed = tasks_cmd(api_url, "start", "fail.v1", "--input", '{"path": "x/egri.txt"}', "--wait", "--timeout", "20")
    assert failed.exit_code == 1
    assert json.loads(failed.output)["error"] == "FileNotFoundError: no such corpus: egri.txt"
    slow = json.loads(tasks_cmd(api_url, "start", "sleep.v1", "--input", '{"seconds": 60}').output)
    cancelled = tasks_cmd(api_url, "cancel", slow["task_id"])
    assert cancelled.exit_code == 0 and json.loads(cancelled.output)["status"] == "cancelled"


def test_cli_tasks_errors(api_url, tmp_path):
    invalid = tasks_cmd(api_url, "start", "sum.v1", "--input", '{"numbers": "x"}')
    assert invalid.exit_code == 2 and "numbers" in invalid.output and invalid.output.startswith("csillag: the API")
    missing = tasks_cmd(api_url, "status", "nope")
    assert missing.exit_code == 4 and missing.output.strip() == "csillag: the API answered 404: no task with id 'nope'"
    wrong_key = tasks_cmd(api_url, "types", key="wrong")
    assert wrong_key.exit_code == 4 and "401: invalid API key" in wrong_key.output
    not_json = tasks_cmd(api_url, "start", "sum.v1", "--input", "{numbers")
    assert not_json.exit_code == 2 and "not JSON" in not_json.output
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    unreachable = tasks_cmd(closed, "types")
    assert unreachable.exit_code == 4 and "cannot reach the API" in unreachable.output
    types = tasks_cmd(api_url, "types")
    assert sorted(json.loads(types.output)) == ["fail.v1", "sleep.v1", "sum.v1"]
