"""Issue 16, item 1: the whole pipeline with its lakehouse in HDFS (Hadoop's MiniDFSCluster on 127.0.0.1).

``python -m jobs.pipeline … --lakehouse hdfs://127.0.0.1:PORT/…/lake`` builds its own Spark session in its own
process — the path where the JVM must start before the first hdfs-native client (the lock's), or pyspark's
``Popen(preexec_fn=…)`` may hang — and writes the English samples into HDFS: Spark writes the Delta files through its
own Hadoop client, delta-rs commits the driver's batches, hdfs-native writes the markers, the lock, the manifest and
the index files. The tables must equal, row for row, those of the session's local run of the same corpus folder
(``pipeline_runs``); the issue's own command, ``./spark-submit.sh pipeline``, must then find every stage up to date
without starting a JVM; ``csillag status``, ``summary`` and ``ask`` read the HDFS lakehouse as they read the folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.app import main as cli_main
from graph.lakehouse import Lakehouse
from tests.conftest import EN_SAMPLE_FILES, ROOT, PipelineRun
from tests.unit.ingestion.tables import comparable, read
from tools.ingestion import STAGE_NAMES

pytestmark = [pytest.mark.hdfs, pytest.mark.spark, pytest.mark.integration]

TABLES = ("documents", "chunks", "mentions", "entities", "mention_entities", "quotes", "relations", "cooccurrences",
          "graph_nodes", "graph_edges", "rejects")
QUESTION = "Who is Margaret Hale's closest companion?"


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CSILLAG_LAKEHOUSE")},
        "PYTHONPATH": str(ROOT),
        "PYSPARK_PYTHON": sys.executable,
        "CSILLAG_NO_BOOTSTRAP": "1",
        "CSILLAG_VENV": str(Path(sys.executable).parent.parent),
    }
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)


def test_issue_16_hdfs_pipeline_writes_the_local_disk_tables_and_a_rerun_skips_every_stage(
    pipeline_runs: Callable[..., PipelineRun], hdfs_root: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    local = pipeline_runs(*EN_SAMPLE_FILES)
    corpus = local.restore_corpus()  # the very folder the local run read: the documents' sources are its files
    work = tmp_path / "cwd"
    work.mkdir()
    storage = Lakehouse.for_root(hdfs_root)

    first = _run([sys.executable, "-m", "jobs.pipeline", "--master", "local[2]", str(corpus), "--lakehouse",
                  hdfs_root, "--result-file", str(tmp_path / "first.json")], work)
    assert first.returncode == 0, first.stderr[-4000:]
    assert "starting Spark after an HDFS client" not in first.stderr  # the JVM came first (ingestion.tool)
    result = json.loads((tmp_path / "first.json").read_text())
    assert result["status"] == "succeeded", result
    assert {s["stage"]: s["status"] for s in result["stages"]} == {
        **{stage: "succeeded" for stage in STAGE_NAMES}, "neo4j": "skipped"}
    assert list(work.iterdir()) == []  # nothing written to a local folder named "hdfs:"

    # the same tables, row for row, as the local run of the same corpus
    for table in TABLES:
        assert comparable(read(storage, table)) == comparable(read(local.lake, table)), table
    assert len(read(storage, "mentions")) > 0 and len(read(storage, "graph_edges")) > 0

    # the small files: every stage's markers, the manifest naming every table and the index files; no lock, no temp
    assert storage.list_dirs("_markers") == sorted(s for s in STAGE_NAMES if s != "neo4j")
    for stage in storage.list_dirs("_markers"):
        # and no temp file; the documents stage keeps the files it read for its next run, the entities stage the
        # corpus's evidence (issue 16, item 4), the quotes and relations stages each document's input fingerprint
        state = ["_STATE"] if stage in ("documents", "entities", "quotes", "relations") else []
        assert storage.list_files("_markers", stage) == ["_STARTED", *state, "_SUCCESS"], stage
    manifest = json.loads(storage.read_text("_published.json") or "{}")
    assert manifest["run_id"] == result["run_id"] and set(TABLES) <= set(manifest["tables"])
    assert manifest["index_files"] and manifest["index_files"] == storage.list_files("_index")
    assert storage.read_text("_lock.json") is None
    assert [name for name in storage.list_files() if name != "_published.json"] == []

    # the issue's own command finds every stage up to date, answered by its check without a JVM
    started = time.monotonic()
    again = _run([str(ROOT / "spark-submit.sh"), "--master", "local[2]", "pipeline", str(corpus), "--lakehouse",
                  hdfs_root, "--result-file", str(tmp_path / "again.json")], work)
    assert again.returncode == 0, again.stderr[-4000:]
    rerun = json.loads((tmp_path / "again.json").read_text())
    assert rerun["status"] == "skipped" and {s["status"] for s in rerun["stages"]} == {"skipped"}, rerun
    assert "Spark not started" in again.stderr and time.monotonic() - started < 60

    # csillag status, summary and ask read HDFS as they read the folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the chat side's copies of an HDFS lakehouse
    capsys.readouterr()
    assert cli_main(["status", "--lakehouse", hdfs_root, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["lakehouse"] == hdfs_root and report["published"]["run_id"] == result["run_id"]
    assert report["tables"]["mentions"] == len(read(local.lake, "mentions"))
    assert cli_main(["summary", hdfs_root]) == 0
    summary = capsys.readouterr().out
    top = read(local.lake, "graph_nodes").sort_values("pagerank", ascending=False).iloc[0].canonical_name
    assert summary.startswith(f"lakehouse {hdfs_root}") and top in summary
    assert cli_main(["ask", QUESTION, "--lakehouse", hdfs_root]) == 0
    from_hdfs = capsys.readouterr().out
    assert cli_main(["ask", QUESTION, "--lakehouse", str(local.lake)]) == 0
    from_disk = capsys.readouterr().out
    assert "Ellen Pryor" in from_hdfs and from_hdfs == from_disk
