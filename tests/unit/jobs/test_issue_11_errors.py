"""Issue 11 item 7 (and 8's command line): a bad setting, value or path is one ``csillag:`` line and exit code 2,
before any table is touched and — through ``spark-submit.sh`` — before the JVM starts.

The spark-submit.sh cases run the real script in a subprocess; they stay fast because the check fails first.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from cli.app import main as cli_main
from cli.base import EXIT_OK, EXIT_USAGE
from jobs import pipeline

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "ingestion" / "samples" / "en"


def test_issue_11_pipeline_job_missing_input_is_one_line_before_any_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lake = tmp_path / "lake"
    assert pipeline.main([str(SAMPLES), "/missing/novel.txt", "--lakehouse", str(lake)]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.err.strip() == (
        "csillag: input '/missing/novel.txt' does not exist; name files, folders, JSONL files or tables to ingest"
    )
    assert captured.out == "" and not lake.exists()


def test_issue_11_pipeline_job_empty_input_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert pipeline.main(["", "--lakehouse", str(tmp_path / "lake")]) == EXIT_USAGE
    assert "input '' does not exist" in capsys.readouterr().err


def test_issue_11_check_only_validates_and_starts_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lake = tmp_path / "lake"
    assert pipeline.main([str(SAMPLES), "--lakehouse", str(lake), "--check"]) == EXIT_OK
    assert capsys.readouterr().out == "" and not lake.exists()


def test_issue_11_cli_ingest_setting_not_json_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("CSILLAG_API_ALLOWED_ROOTS", "notjson")
    assert cli_main(["ingest", str(SAMPLES), "--lakehouse", str(tmp_path / "lake")]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("csillag: invalid setting api.allowed_roots = 'notjson'")
    assert "CSILLAG_API_ALLOWED_ROOTS" in err[0]
    assert not (tmp_path / "lake").exists()


def test_issue_11_graph_export_that_cannot_write_is_one_line_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from graph.testing.fixtures import small_graph

    monkeypatch.setattr("cli.graph._graph_data", lambda ctx, lakehouse: small_graph())
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    for command in (["graph", "export", str(blocker / "g.graphml")], ["graph", "draw", str(blocker / "g.html")]):
        assert cli_main(command) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"csillag: cannot write {blocker / 'g.'}")


def _submit(*args: str, env: dict[str, str] | None = None, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CSILLAG_", "SPARK_"))}
    environ |= {"CSILLAG_NO_BOOTSTRAP": "1"} | (env or {})
    return subprocess.run([str(ROOT / "spark-submit.sh"), *args], cwd=tmp_path, env=environ, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (["pipeline", "/missing"], {}, "csillag: input '/missing' does not exist"),
        (["pipeline", str(SAMPLES)], {"CSILLAG_SPARK_MASTER": "garbage"},
         "csillag: invalid setting spark.master = 'garbage': unknown Spark master 'garbage'"),
        (["--master", "garbage", "pipeline", str(SAMPLES)], {}, "csillag: invalid setting spark.master = 'garbage'"),
        (["pipeline", str(SAMPLES)], {"SPARK_DRIVER_MEMORY": "lots"},
         "csillag: SPARK_DRIVER_MEMORY='lots' is not a memory size"),
        (["--driver-memory", "lots", "pipeline", str(SAMPLES)], {}, "csillag: --driver-memory 'lots' is not a memory"),
        (["pipeline", str(SAMPLES)], {"CSILLAG_API_ALLOWED_ROOTS": "notjson"},
         "csillag: invalid setting api.allowed_roots = 'notjson' (from the environment variable "
         "CSILLAG_API_ALLOWED_ROOTS)"),
        (["pipeline", str(SAMPLES)], {"CSILLAG_INGESTION_CHUNK_MIN_CHARS": "1600"},
         "csillag: invalid setting ingestion.chunk_min_chars = '1600': must not exceed ingestion.chunk_max_chars"),
        (["stage", "mentions", "/missing"], {}, "csillag: input '/missing' does not exist"),
    ],
    ids=["missing-input", "csillag-master", "master-flag", "spark-driver-memory", "driver-memory-flag", "not-json",
         "chunk-sizes", "stage-missing-input"],
)
def test_issue_11_spark_submit_bad_values_are_one_line_exit_2_before_spark(
    tmp_path: Path, args: list[str], env: dict[str, str], expected: str
) -> None:
    lake = tmp_path / "lake"
    started = time.monotonic()
    done = _submit(*args, "--lakehouse", str(lake), env=env, tmp_path=tmp_path)
    assert done.returncode == EXIT_USAGE, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(expected), done.stderr
    assert done.stdout == "" and not lake.exists()
    assert time.monotonic() - started < 20  # no JVM was started


def test_issue_11_spark_submit_relative_input_is_checked_from_the_callers_folder(tmp_path: Path) -> None:
    (tmp_path / "book.txt").write_text("Call me Ishmael.", encoding="utf-8")
    done = _submit("pipeline", "book.txt", "sequel.txt", tmp_path=tmp_path)
    assert done.returncode == EXIT_USAGE
    # book.txt was found beside the caller, not looked for in the project's folder
    assert done.stderr.startswith("csillag: input 'sequel.txt' does not exist")
