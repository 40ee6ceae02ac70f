"""The Airflow DAG against a real Airflow (its own virtualenv, installed by ``scripts/airflow.sh install``).

The DagBag test imports the DAG the way the scheduler does; the ``dags test`` test runs one data interval end to
end on the English samples with a local Spark and checks the lakehouse's stage markers.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "airflow.sh"
VENV = Path(os.environ.get("CSILLAG_AIRFLOW_VENV", ROOT / ".cache" / "airflow-venv"))
STAGES = ["documents", "chunks", "index", "mentions", "entities", "quotes", "relations", "cooccurrences", "graph",
         "neo4j"]

DAGBAG_PROBE = """
import json, sys
from airflow.models import DagBag
bag = DagBag(dag_folder=sys.argv[1], include_examples=False)
dag = bag.get_dag("csillag_ingestion")
tasks = {}
for t in dag.tasks:
    tasks[t.task_id] = {
        "type": type(t).__name__, "upstream": sorted(t.upstream_task_ids), "retries": t.retries,
        "conn_id": getattr(t, "_conn_id", None), "args": getattr(t, "application_args", None),
        "application": getattr(t, "application", None), "properties_file": getattr(t, "properties_file", None),
        "py_files": getattr(t, "py_files", None), "conf": getattr(t, "conf", None),
    }
print(json.dumps({"errors": {k: str(v) for k, v in bag.import_errors.items()}, "dag_ids": bag.dag_ids,
                  "max_active_runs": dag.max_active_runs, "catchup": dag.catchup, "tasks": tasks}))
"""


@pytest.fixture(scope="module")
def airflow_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    if not (VENV / ".csillag-installed").exists():
        subprocess.run([str(SCRIPT), "install"], check=True, timeout=1500)
    home = tmp_path_factory.mktemp("airflow-home")
    env = os.environ | {"AIRFLOW_HOME": str(home), "CSILLAG_SPARK_MASTER": "local[2]"}
    subprocess.run([str(SCRIPT), "version"], check=True, timeout=600, env=env, capture_output=True)  # db migrate
    return env


def test_airflow_dagbag_imports_the_dag_without_errors(airflow_env):
    probe = subprocess.run(
        [str(VENV / "bin" / "python"), "-c", DAGBAG_PROBE, str(ROOT / "jobs" / "airflow")],
        capture_output=True, text=True, timeout=300,
        env=airflow_env | {"CSILLAG_ROOT": str(ROOT), "AIRFLOW__CORE__LOAD_EXAMPLES": "False"},
    )
    assert probe.returncode == 0, probe.stderr[-3000:]
    report = json.loads(probe.stdout.strip().splitlines()[-1])
    assert report["errors"] == {}
    assert report["dag_ids"] == ["csillag_ingestion"]
    assert report["max_active_runs"] == 1 and report["catchup"] is False
    tasks = report["tasks"]
    assert sorted(tasks) == sorted(["package", *STAGES])
    order = ["package", *STAGES]
    for before, after in zip(order, order[1:], strict=False):
        assert tasks[after]["upstream"] == [before]  # strictly one after the other
    for stage in STAGES:
        submit = tasks[stage]
        assert submit["type"] == "SparkSubmitOperator"
        assert submit["retries"] == 2 and submit["conn_id"] == "csillag_spark"
        assert submit["application"] == str(ROOT / "jobs" / "stage.py")
        assert submit["properties_file"] == str(ROOT / "conf" / "spark-defaults.conf")
        assert submit["py_files"] == str(ROOT / ".cache" / "dist" / "csillag.zip")
        # the DAG runs the executors on CSILLAG_VENV when it is set, as its docstring says (a worktree's run)
        venv = Path(os.environ.get("CSILLAG_VENV", ROOT / ".venv"))
        assert submit["conf"]["spark.pyspark.python"] == str(venv / "bin" / "python")
        args = submit["args"]
        assert args[0] == stage
        run_id = args[args.index("--run-id") + 1]
        assert "data_interval_start" in run_id and "data_interval_end" in run_id and "now" not in run_id


@pytest.mark.spark
def test_airflow_dags_test_runs_every_stage_on_the_samples(airflow_env, tmp_path):
    lake = tmp_path / "lake"
    finished = subprocess.run(
        [str(SCRIPT), "dags", "test", "csillag_ingestion", "2026-11-29"],
        capture_output=True, text=True, timeout=1500, cwd=ROOT,
        env=airflow_env | {"CSILLAG_AIRFLOW_LAKEHOUSE": str(lake)},
    )
    log = finished.stdout + finished.stderr
    assert finished.returncode == 0, log[-5000:]
    # The connection's master is local[2]: the templated conf gave the driver spark-submit.sh's local flags.
    assert "-XX:TieredStopAtLevel=1" in log, log[-3000:]
    # A manual run (what `dags test` makes) of a @daily DAG at 2026-11-29 00:00 covers the interval that ended
    # then: [2026-11-28 00:00, 2026-11-29 00:00) UTC.
    expected_run = "airflow-20261128T000000-20261129T000000"
    for stage in STAGES[:-1]:  # neo4j is skipped without a marker: the DAG's settings use the embedded store
        marker = lake / "_markers" / stage / "_SUCCESS"
        assert marker.exists(), f"no marker for {stage}: {log[-3000:]}"
        assert json.loads(marker.read_text())["run_id"] == expected_run
    documents = json.loads((lake / "_markers" / "documents" / "_SUCCESS").read_text())
    samples = sorted(p.name for p in (ROOT / "ingestion" / "samples" / "en").iterdir() if p.suffix in {".txt", ".md"})
    assert documents["counts"]["documents"] == len(samples)
