"""Issue 16, items 1-2: the whole pipeline with its lakehouse in an S3 bucket (moto's S3 API server on 127.0.0.1).

A first run (``python -m jobs.pipeline``, which builds its own session) is killed with SIGKILL in the middle of the
mentions stage; the issue's own command, ``./spark-submit.sh pipeline … --lakehouse s3a://…``, then takes over the
dead run's lock and resumes. Each run is a separate process whose JVM must start with Hadoop's S3A connector and the
bucket's settings (``spark-submit.sh`` gets them from its pre-JVM check). The lakehouse left must be the one a run on
local disk leaves from the same input, table for table and row for row; a rerun must find every stage up to date.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from graph.settings import S3Settings
from graph.storage import LakehouseStorage
from graph.tables import NON_PROSE_UNIT_KINDS
from jobs.cli import main as cli_main
from tests.conftest import ROOT, SAMPLES
from tests.unit.ingestion.tables import comparable, read
from tools.ingestion import STAGE_NAMES

pytestmark = [pytest.mark.s3, pytest.mark.spark, pytest.mark.integration]

TABLES = ("documents", "chunks", "mentions", "entities", "mention_entities", "cooccurrences", "graph_nodes",
          "graph_edges", "rejects")


def _environment(s3: S3Settings) -> dict[str, str]:
    return {
        **os.environ,  # the credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, set by the s3_bucket fixture
        "PYTHONPATH": str(ROOT),
        "PYSPARK_PYTHON": sys.executable,
        "CSILLAG_NO_BOOTSTRAP": "1",
        "CSILLAG_VENV": str(Path(sys.executable).parent.parent),
        "CSILLAG_LAKEHOUSE_S3": s3.model_dump_json(),
    }


def _pipeline(
    command: list[str], root: str, s3: S3Settings, result: Path, cwd: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command, str(SAMPLES / "en"), "--lakehouse", root, "--result-file", str(result)],
        cwd=cwd, env=_environment(s3), capture_output=True, text=True, timeout=900, check=False,
    )


SPARK_SUBMIT = [str(ROOT / "spark-submit.sh"), "--master", "local[2]", "pipeline"]
PYTHON_M = [sys.executable, "-m", "jobs.pipeline", "--master", "local[2]"]


def _kill_mid_mentions(root: str, s3: S3Settings, storage: LakehouseStorage, cwd: Path) -> None:
    """Start a run with small NER batches and SIGKILL it (and its JVM) once a few batches are committed."""
    env = _environment(s3) | {"CSILLAG_INGESTION_MENTIONS_BATCH_WORDS": "300"}
    job = subprocess.Popen(
        [*PYTHON_M, str(SAMPLES / "en"), "--lakehouse", root, "--quiet"],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    deadline = time.monotonic() + 300
    try:
        # the progress table's creation plus at least three appends
        while len([n for n in storage.list_files("mention_chunks", "_delta_log") if n.endswith(".json")]) < 4:
            assert job.poll() is None, f"the job ended before it could be killed: {job.stdout.read().decode()[-2000:]}"  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the mentions stage never got going"
            time.sleep(0.3)
    finally:
        os.killpg(job.pid, signal.SIGKILL)
        job.wait(30)


def test_issue_16_s3_pipeline_killed_mid_mentions_resumes_to_the_local_disk_tables_and_reruns_skip(
    s3_bucket: tuple[str, S3Settings], tmp_path: Path, ingest: Any, make_settings: Any,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    bucket, s3 = s3_bucket
    root = f"s3a://{bucket}/library/lh"
    storage = LakehouseStorage.for_root(root, s3)
    work = tmp_path / "cwd"
    work.mkdir()
    _kill_mid_mentions(root, s3, storage, work)
    assert storage.read_text("_markers", "mentions", "_SUCCESS") is None  # killed before its marker
    assert storage.read_text("_lock.json") is not None  # the dead run's lock, left behind
    done_before = len(read(storage, "mention_chunks"))
    chunks = read(storage, "chunks")
    total_chunks = int((~chunks.unit_kind.isin(NON_PROSE_UNIT_KINDS)).sum())  # NER reads prose chunks only
    assert 0 < done_before < total_chunks

    done = _pipeline(SPARK_SUBMIT, root, s3, tmp_path / "first.json", work)
    assert done.returncode == 0, done.stderr[-4000:]
    # spark-submit's JVM passes the Python driver's stderr on to its own stdout
    assert "took over the stale lock of run" in done.stdout + done.stderr
    first = json.loads((tmp_path / "first.json").read_text())
    assert first["status"] == "succeeded", first
    stages = {stage["stage"]: stage for stage in first["stages"]}
    assert stages["documents"]["status"] == stages["chunks"]["status"] == "skipped"
    # resumed, not redone: only the chunks the killed run had not finished went through NER
    assert stages["mentions"]["counts"]["chunks_processed"] == total_chunks - done_before
    assert read(storage, "mentions").mention_id.is_unique and read(storage, "mention_chunks").chunk_id.is_unique
    assert list(work.iterdir()) == []  # nothing written to a local folder named "s3a:"

    # the same input on local disk, through the same code, gives the same tables
    local = tmp_path / "local"
    assert ingest([SAMPLES / "en"], settings=make_settings(lakehouse={"root": local})).status == "succeeded"
    for table in TABLES:
        assert comparable(read(storage, table)) == comparable(read(local, table)), table
    assert len(read(storage, "mentions")) > 0 and len(read(storage, "graph_edges")) > 0

    # the small files: every stage's marker, the manifest naming every table, the index files, no lock left
    assert storage.list_dirs("_markers") == sorted(s for s in STAGE_NAMES if s != "neo4j")
    manifest = json.loads(storage.read_text("_published.json") or "{}")
    assert manifest["run_id"] == first["run_id"] and set(TABLES) <= set(manifest["tables"])
    assert manifest["index_files"] and manifest["index_files"] == storage.list_files("_index")
    assert storage.read_text("_lock.json") is None

    # a rerun finds every stage up to date, and answers without starting Spark
    started = time.monotonic()
    again = _pipeline(PYTHON_M, root, s3, tmp_path / "again.json", work)
    assert again.returncode == 0, again.stderr[-4000:]
    result = json.loads((tmp_path / "again.json").read_text())
    assert result["status"] == "skipped" and {s["status"] for s in result["stages"]} == {"skipped"}, result
    assert "starting Spark session" not in again.stderr and time.monotonic() - started < 30

    # csillag status and csillag summary read the bucket (delta-rs and pyarrow, same settings)
    monkeypatch.setenv("CSILLAG_LAKEHOUSE_S3", s3.model_dump_json())
    capsys.readouterr()
    assert cli_main(["status", "--lakehouse", root, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["lakehouse"] == root and report["published"]["run_id"] == first["run_id"]
    assert report["tables"]["mentions"] == len(read(local, "mentions"))
    assert all(report["stages"][stage] is not None for stage in STAGE_NAMES if stage != "neo4j")
    assert cli_main(["summary", root]) == 0
    summary = capsys.readouterr().out
    top = read(local, "graph_nodes").sort_values("pagerank", ascending=False).iloc[0].canonical_name
    assert summary.startswith(f"lakehouse {root}") and top in summary
