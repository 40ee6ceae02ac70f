"""spark-submit.sh end to end: locally, and on a standalone cluster on 127.0.0.1, shipped as to a real cluster."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import ROOT, SAMPLES
from tests.unit.ingestion.tables import comparable, read
from tools.ingestion import STAGE_NAMES as STAGES

pytestmark = [pytest.mark.spark, pytest.mark.integration]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _submit(*args: str, timeout: int = 600, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    venv = str(Path(sys.executable).parent.parent)
    env = dict(os.environ, CSILLAG_NO_BOOTSTRAP="1", CSILLAG_VENV=venv, **(env or {}))
    return subprocess.run(
        [str(ROOT / "spark-submit.sh"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SAMPLES / "en" / "harbour_notes.txt", corpus)
    return corpus


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """harbour_notes.txt through ``spark-submit.sh --master local[2] pipeline``, once per module: the first test checks
    the run, the cluster test compares its tables with the cluster's (a second local run would cost ~30 s)."""
    base = tmp_path_factory.mktemp("local_run")
    corpus, lake, out = _corpus(base), base / "lake", base / "result.json"
    done = _submit("--master", "local[2]", "pipeline", str(corpus), "--lakehouse", str(lake), "--result-file", str(out))
    return SimpleNamespace(corpus=corpus, lake=lake, out=out, done=done)


def test_spark_submit_runs_the_pipeline_and_reports_json(local_run: SimpleNamespace, tmp_path: Path) -> None:
    lake, corpus, done = local_run.lake, str(local_run.corpus), local_run.done
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(local_run.out.read_text())
    assert result["status"] == "succeeded"
    assert [s["stage"] for s in result["stages"]] == [
        "documents",
        "chunks",
        "index",
        "mentions",
        "entities",
        "quotes",
        "relations",
        "cooccurrences",
        "graph",
        "neo4j",
    ]
    assert result["stages"][-1]["status"] == "skipped"  # the embedded graph store: nothing to load into Neo4j
    assert len(read(lake, "graph_nodes")) == result["counts"]["graph.nodes"] > 0
    # Issue 14: with no settings, English is read by the shipped literary NER.
    assert set(read(lake, "mentions").model) == {"en_litbank"}

    again = _submit("--master", "local[2]", "stage", "mentions", corpus, "--lakehouse", str(lake))
    assert again.returncode == 0, again.stderr[-3000:]
    assert "skipped" in again.stdout

    # Issue 16, item 5: a rerun with every stage up to date is answered before any JVM starts
    out = tmp_path / "rerun.json"
    rerun = _submit("pipeline", corpus, "--lakehouse", str(lake), "--result-file", str(out))
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "every stage is up to date; Spark not started" in rerun.stderr
    assert "SparkContext" not in rerun.stdout + rerun.stderr and "py4j" not in rerun.stdout + rerun.stderr
    skipped = json.loads(out.read_text())
    assert skipped["status"] == "skipped" and {s["status"] for s in skipped["stages"]} == {"skipped"}
    assert skipped["counts"]["graph.nodes"] == result["counts"]["graph.nodes"]


def _table(stdout: str) -> list[list[str]]:
    """The result table's stage rows and status line, without the timings and the run id."""
    rows = [line.split()[:2] for line in stdout.splitlines() if line.split()[:1] and line.split()[0] in STAGES]
    return rows + [line.split() for line in stdout.splitlines() if line.startswith("status: ")]


def test_issue_12_spark_submit_and_csillag_pipeline_print_the_same_result(tmp_path: Path) -> None:
    # One command behind both doors: the same flags, the same table, the same exit code (all up to date the 2nd time).
    lake, corpus = tmp_path / "lake", str(_corpus(tmp_path))
    first = _submit("--master", "local[2]", "pipeline", corpus, "--lakehouse", str(lake), "--stages",
                    "documents,chunks", "--run-id", "run-1")
    assert first.returncode == 0, first.stderr[-3000:]
    # spark-submit's Python runner sends the driver's stderr (logs) to stdout too: the table is among them
    assert f"run run-1 → {lake.resolve()}" in first.stdout.splitlines()
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    args = [corpus, "--lakehouse", str(lake), "--stages", "documents,chunks", "--master", "local[1]"]
    again = subprocess.run([str(Path(sys.executable).parent / "csillag"), "pipeline", *args], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=600, check=False)
    submitted = _submit("pipeline", *args)
    assert again.returncode == submitted.returncode == 0, again.stderr[-3000:] + submitted.stderr[-3000:]
    assert _table(again.stdout) == _table(submitted.stdout) == [
        ["documents", "skipped"], ["chunks", "skipped"], "status: skipped — every stage was up to date".split()]
    assert _table(first.stdout) == [["documents", "succeeded"], ["chunks", "succeeded"], ["status:", "succeeded"]]


def test_spark_submit_unknown_job_and_missing_input_exit_codes(tmp_path: Path) -> None:
    unknown = _submit("frobnicate")
    assert unknown.returncode == 2 and "unknown job 'frobnicate'" in unknown.stderr
    missing = _submit("--master", "local[1]", "pipeline", str(tmp_path / "nowhere"), "--lakehouse", str(tmp_path / "l"))
    # issue 11: a usage error, one line, found before Spark starts and before any table is touched
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.strip() == (
        f"csillag: input {str(tmp_path / 'nowhere')!r} does not exist; name files, folders, JSONL files or tables to "
        "ingest"
    )
    assert not (tmp_path / "l").exists()


@pytest.fixture(scope="module")
def standalone_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, Path]]:
    """A Spark standalone master and two one-core workers (separate processes) from the pyspark installation, on
    127.0.0.1 only: tasks of one job run in two executor JVMs with their own Python workers, as on a real cluster."""
    import pyspark

    spark_home = Path(pyspark.__file__).parent
    port, ui_port = _free_port(), _free_port()
    logs = tmp_path_factory.mktemp("standalone")
    env = dict(
        os.environ,
        SPARK_HOME=str(spark_home),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_LOG_DIR=str(logs),
        PYSPARK_PYTHON=sys.executable,
    )
    spark_class = str(spark_home / "bin" / "spark-class")
    procs = []
    try:
        procs.append(
            subprocess.Popen(
                [
                    spark_class,
                    "org.apache.spark.deploy.master.Master",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--webui-port",
                    str(ui_port),
                ],
                env=env,
                stdout=open(logs / "master.log", "w"),
                stderr=subprocess.STDOUT,
            )
        )
        for worker in (1, 2):
            procs.append(
                subprocess.Popen(
                    [
                        spark_class,
                        "org.apache.spark.deploy.worker.Worker",
                        f"spark://127.0.0.1:{port}",
                        "--host",
                        "127.0.0.1",
                        "--cores",
                        "1",
                        "--memory",
                        "2g",
                        "--webui-port",
                        str(_free_port()),
                        "--work-dir",
                        str(logs / f"work{worker}"),
                    ],
                    env=env,
                    stdout=open(logs / f"worker{worker}.log", "w"),
                    stderr=subprocess.STDOUT,
                )
            )
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=2) as answer:
                    state = json.load(answer)
                if state.get("aliveworkers", 0) >= 2:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"standalone cluster did not come up: {(logs / 'worker1.log').read_text()[-2000:]}")
            time.sleep(1)
        yield f"spark://127.0.0.1:{port}", ui_port, logs
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.mark.s3
def test_issue_16_spark_submit_on_a_standalone_cluster_with_the_lakehouse_in_a_bucket(
    standalone_cluster: tuple[str, int, Path], tmp_path: Path, local_run: SimpleNamespace, s3_bucket: Any
) -> None:
    """Issue 16, item 3: two one-core workers, the driver by ``spark-submit.sh --master spark://…``, the lakehouse in
    the S3 bucket (the executors share no disk with the driver, only the bucket): the tables a local[2] run writes on
    local disk from the same input."""
    from graph.lakehouse import Lakehouse

    master, ui_port, logs = standalone_cluster
    bucket, s3 = s3_bucket
    root, corpus = f"s3a://{bucket}/cluster/lh", local_run.corpus  # the local run's folder: the same sources
    done = _submit(
        "--master",
        master,
        "--conf",
        "spark.executor.memory=1g",
        "--conf",
        "spark.cores.max=2",
        "pipeline",
        str(corpus),
        "--lakehouse",
        root,
        "--result-file",
        str(tmp_path / "result.json"),
        timeout=900,
        # the credentials are in the environment already; NER on the executors, never in the driver (a small input
        # would otherwise be read there: ingestion.driver_max_ner_words), so the model must reach them
        env={"CSILLAG_LAKEHOUSE_S3": s3.model_dump_json(), "CSILLAG_INGESTION_DRIVER_MAX_NER_WORDS": "0"},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    lake = Lakehouse.for_root(root, s3)
    assert not (ROOT / "s3a:").exists() and not (tmp_path / "s3a:").exists()
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["status"] == "succeeded"
    assert {s["stage"]: s for s in result["stages"]}["mentions"]["details"]["ner_in"] == "workers"
    with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=5) as answer:
        state = json.load(answer)
    apps = state.get("completedapps", []) + state.get("activeapps", [])
    assert any(app["name"] == "csillag" for app in apps), apps
    assert len(read(lake, "mentions")) > 0
    assert set(read(lake, "mentions").model) == {"en_litbank"}  # the shipped model reached the cluster's workers
    # both workers ran an executor of the job (each keeps a folder per application it served)
    (app_id,) = [app["id"] for app in apps if app["name"] == "csillag"]
    assert all((logs / f"work{worker}" / app_id).is_dir() for worker in (1, 2)), app_id
    # Issue 16, item 3: exactly the tables a local[2] run writes from the same input.
    assert local_run.done.returncode == 0, local_run.done.stderr[-3000:]
    local = local_run.lake
    for table in ("documents", "chunks", "mentions", "entities", "mention_entities", "cooccurrences", "graph_nodes",
                  "graph_edges"):
        assert comparable(read(lake, table)) == comparable(read(local, table)), table
