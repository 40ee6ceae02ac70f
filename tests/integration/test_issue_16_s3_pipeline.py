"""Issue 16, items 1-2: the whole pipeline with its lakehouse in an S3 bucket (moto's S3 API server on 127.0.0.1).

A first run (``python -m jobs.pipeline``, which builds its own session) is killed with SIGKILL in the middle of the
mentions stage; the issue's own command, ``./spark-submit.sh pipeline … --lakehouse s3a://…``, then takes over the
dead run's lock and resumes. Each run is a separate process whose JVM must start with Hadoop's S3A connector and the
bucket's settings (``spark-submit.sh`` gets them from its pre-JVM check). The lakehouse left must be the one a run on
local disk leaves from the same input, table for table and row for row; a rerun must find every stage up to date.

Both lakehouses are built once per module (``s3_run``); the chat side then asks them the same questions through the
user's commands (``python -m tools.ask``, ``csillag ask``) and must give the same answers from the bucket as from
local disk; ``csillag graph export|load`` and the pipeline's ``neo4j`` stage read the bucket as they read a folder.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cli.app import main as cli_main
from graph.lakehouse import Lakehouse
from graph.settings import S3Settings
from graph.tables import NON_PROSE_UNIT_KINDS
from tests.conftest import ROOT, S3_TEST_CREDENTIALS, SAMPLES
from tests.unit.ingestion.tables import comparable, read
from tools.ingestion import STAGE_NAMES

pytestmark = [pytest.mark.s3, pytest.mark.spark, pytest.mark.integration]

TABLES = ("documents", "chunks", "mentions", "entities", "mention_entities", "quotes", "relations", "cooccurrences",
          "graph_nodes", "graph_edges", "rejects")


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


def _kill_mid_mentions(root: str, s3: S3Settings, storage: Lakehouse, cwd: Path) -> None:
    """Start a run with small NER batches and SIGKILL it (and its JVM) once a few batches are committed."""
    # small batches on the workers (NER in the driver, which a sample's few words would get, is over too soon to kill)
    env = _environment(s3) | {"CSILLAG_INGESTION_MENTIONS_BATCH_WORDS": "300",
                              "CSILLAG_INGESTION_DRIVER_MAX_NER_WORDS": "0"}
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


@pytest.fixture(scope="module")
def s3_run(s3_endpoint: str, spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimpleNamespace]:
    """The sample ingested into a bucket — a run killed mid-mentions, then resumed by ``spark-submit.sh`` — and into
    a local folder, once for the module; what was seen between the two bucket runs is recorded for the test."""
    import boto3

    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings
    from tools.ingestion import IngestionRequest

    tmp = tmp_path_factory.mktemp("s3-run")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in S3_TEST_CREDENTIALS.items():  # where csillag reads them: the environment
            patch.setenv(name, value)
        bucket = f"issue-16-s3-pipeline-{os.getpid()}"
        s3 = S3Settings(endpoint=s3_endpoint, region="us-east-1", path_style=True)
        boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
        root = f"s3a://{bucket}/library/lh"
        storage = Lakehouse.for_root(root, s3)
        work = tmp / "cwd"
        work.mkdir()
        _kill_mid_mentions(root, s3, storage, work)
        chunks = read(storage, "chunks")
        killed = SimpleNamespace(
            marker=storage.read_text("_markers", "mentions", "_SUCCESS"),
            lock=storage.read_text("_lock.json"),
            done_chunks=len(read(storage, "mention_chunks")),
            prose_chunks=int((~chunks.unit_kind.isin(NON_PROSE_UNIT_KINDS)).sum()),  # NER reads prose chunks only
        )
        resumed = _pipeline(SPARK_SUBMIT, root, s3, tmp / "first.json", work)

        # the same input on local disk, through the same code; named like the bucket's (the domain's name)
        local = tmp / "disk" / "lh"
        tool = GenericNERIngestionTool()
        spark_settings = {"master": "local[2]", "shuffle_partitions": 2}
        tool.set_settings(load_settings(lakehouse={"root": local}, spark=spark_settings))
        tool.set_spark_session(spark)
        local_status = tool.execute_ingestion(IngestionRequest(inputs=[str(SAMPLES / "en")])).status
        yield SimpleNamespace(root=root, s3=s3, storage=storage, work=work, tmp=tmp, killed=killed, resumed=resumed,
                              result_file=tmp / "first.json", local=local, local_status=local_status)


def test_issue_16_s3_pipeline_killed_mid_mentions_resumes_to_the_local_disk_tables_and_reruns_skip(
    s3_run: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    root, s3, storage, work, local = s3_run.root, s3_run.s3, s3_run.storage, s3_run.work, s3_run.local
    killed = s3_run.killed
    assert killed.marker is None  # killed before its marker
    assert killed.lock is not None  # the dead run's lock, left behind
    assert 0 < killed.done_chunks < killed.prose_chunks

    done = s3_run.resumed
    assert done.returncode == 0, done.stderr[-4000:]
    # spark-submit's JVM passes the Python driver's stderr on to its own stdout
    assert "took over the stale lock of run" in done.stdout + done.stderr
    first = json.loads(s3_run.result_file.read_text())
    assert first["status"] == "succeeded", first
    stages = {stage["stage"]: stage for stage in first["stages"]}
    assert stages["documents"]["status"] == stages["chunks"]["status"] == "skipped"
    # resumed, not redone: only the chunks the killed run had not finished went through NER
    assert stages["mentions"]["counts"]["chunks_processed"] == killed.prose_chunks - killed.done_chunks
    assert read(storage, "mentions").mention_id.is_unique and read(storage, "mention_chunks").chunk_id.is_unique
    assert list(work.iterdir()) == []  # nothing written to a local folder named "s3a:"

    # the same input on local disk, through the same code, gives the same tables
    assert s3_run.local_status == "succeeded"
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


# In the sample, Margaret Hale spends the story with Ellen Pryor (tests/integration/test_chat_surfaces.py).
QUESTIONS = ("Who is Margaret Hale's closest companion?", "How are Margaret Hale and Ellen Pryor connected?")
CSILLAG = Path(sys.executable).with_name("csillag")


def _ask(command: list[str], question: str, lakehouse: str, env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run([*command, question, "--lakehouse", lakehouse, "--quiet"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_issue_16_csillag_ask_answers_from_the_bucket_as_from_local_disk(
    s3_run: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, storage, local = s3_run.root, s3_run.storage, s3_run.local
    user_cache = s3_run.tmp / "user-cache"
    cwd = s3_run.tmp / "ask-cwd"
    cwd.mkdir()
    # no CSILLAG_* setting from the caller's shell may point the chat side elsewhere; the bucket's block and the
    # credentials are what a user sets
    env = {k: v for k, v in _environment(s3_run.s3).items()
           if not k.startswith(("CSILLAG_NER_", "CSILLAG_INGESTION_", "CSILLAG_GRAPH_", "CSILLAG_LAKEHOUSE_ROOT"))}
    env["XDG_CACHE_HOME"] = str(user_cache)
    index_files = storage.list_files("_index")
    python_m = [sys.executable, "-m", "tools.ask"]
    answers = []
    for question in QUESTIONS:
        from_bucket = _ask(python_m, question, root, env, cwd)
        assert from_bucket == _ask(python_m, question, str(local), env, cwd), question
        assert "Ellen Pryor" in from_bucket and "Sources:" in from_bucket, from_bucket
        answers.append(from_bucket)
    assert answers[0] != answers[1]  # two questions, two answers: not one canned reply
    # csillag ask, started again: the graph from the local cache, the index from its local copy — the same answer
    warm = _ask([str(CSILLAG), "ask"], QUESTIONS[0], root, env, cwd)
    assert warm.startswith("Margaret Hale's closest companion is Ellen Pryor"), warm
    assert warm == _ask(python_m, QUESTIONS[0], str(local), env, cwd)

    # what the chat side derives lives in the user's cache folder, one folder per root; the bucket is unchanged
    monkeypatch.setenv("XDG_CACHE_HOME", str(user_cache))  # as the commands had it
    folder = storage.local_cache_dir()
    assert folder.parent == user_cache / "csillag" / "lakehouses"
    assert len(list((folder / "_cache").glob("graph-*.npz"))) == 1
    for name in storage.list_files("_index"):
        assert (folder / "_index" / name).read_bytes() == storage.read_bytes("_index", name)
    assert storage.list_files("_index") == index_files and not storage.is_dir("_cache")
    assert list(cwd.iterdir()) == []  # no local folder named "s3a:"


def _cli(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def test_issue_16_csillag_graph_exports_and_loads_the_bucket_as_local_disk(
    s3_run: SimpleNamespace, neo4j_settings: Any
) -> None:
    """``csillag graph export`` and ``csillag graph load`` read a bucket as a folder: the same GraphML, and a load
    from the bucket right after one from local disk changes nothing in Neo4j (the same graph, item for item)."""
    cwd = s3_run.tmp / "graph-cwd"
    cwd.mkdir()
    env = {k: v for k, v in _environment(s3_run.s3).items()
           if not k.startswith(("CSILLAG_NEO4J_", "CSILLAG_GRAPH_", "CSILLAG_LAKEHOUSE_ROOT"))}
    env |= {"CSILLAG_NEO4J_URI": neo4j_settings.uri, "CSILLAG_NEO4J_USER": neo4j_settings.user,
            "CSILLAG_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value(),
            "CSILLAG_NEO4J_DATABASE": neo4j_settings.database}
    exported = {}
    for name, root in (("bucket", s3_run.root), ("disk", str(s3_run.local))):
        out = s3_run.tmp / f"{name}.graphml"
        done = _cli("graph", "export", str(out), "--lakehouse", root, env=env, cwd=cwd)
        assert done.returncode == 0, done.stderr[-2000:]
        exported[name] = out.read_text(encoding="utf-8")
    assert "Ellen Pryor" in exported["bucket"] and exported["bucket"] == exported["disk"]

    from_disk = _cli("graph", "load", "--lakehouse", str(s3_run.local), env=env, cwd=cwd)
    assert from_disk.returncode == 0, from_disk.stderr[-2000:]
    from_bucket = _cli("graph", "load", "--lakehouse", s3_run.root, env=env, cwd=cwd)
    assert from_bucket.returncode == 0, from_bucket.stderr[-2000:]
    assert "nothing changed" in from_bucket.stdout and neo4j_settings.uri in from_bucket.stdout, from_bucket.stdout
    held = from_disk.stdout.split(" holds ", 1)[1].split(";", 1)[0]
    assert held == from_bucket.stdout.split(" holds ", 1)[1].split(";", 1)[0] and held.split()[0] != "0", held
    assert list(cwd.iterdir()) == []  # no local folder named "s3a:"


def test_issue_16_pipeline_neo4j_stage_loads_from_the_bucket_and_marks_it_there(
    s3_run: SimpleNamespace, neo4j_settings: Any, tmp_path: Path
) -> None:
    """The pipeline's ``neo4j`` stage (``graph.store = "neo4j"``) on the bucket lakehouse: it loads the published
    graph, writes its marker into the bucket, and a rerun finds it up to date. (Runs after the graph test above,
    which left Neo4j holding this graph: the stage then changes nothing, and says so in its counts.)"""
    env = _environment(s3_run.s3) | {
        "CSILLAG_GRAPH_STORE": "neo4j", "CSILLAG_NEO4J_URI": neo4j_settings.uri,
        "CSILLAG_NEO4J_USER": neo4j_settings.user,
        "CSILLAG_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value(),
        "CSILLAG_NEO4J_DATABASE": neo4j_settings.database,
    }
    results = []
    for attempt in ("first", "again"):
        done = subprocess.run(
            [*PYTHON_M, str(SAMPLES / "en"), "--lakehouse", s3_run.root, "--stages", "neo4j",
             "--result-file", str(tmp_path / f"{attempt}.json")],
            cwd=s3_run.work, env=env, capture_output=True, text=True, timeout=600, check=False,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        results.append(json.loads((tmp_path / f"{attempt}.json").read_text()))
    first, again = ({s["stage"]: s for s in r["stages"]}["neo4j"] for r in results)
    assert first["status"] == "succeeded", first
    marker = json.loads(s3_run.storage.read_text("_markers", "neo4j", "_SUCCESS") or "{}")
    assert marker["run_id"] == results[0]["run_id"], marker
    assert again["status"] == "skipped" and again["reason"] == "up to date", again
    assert list(s3_run.work.iterdir()) == []  # no local folder named "s3a:"
