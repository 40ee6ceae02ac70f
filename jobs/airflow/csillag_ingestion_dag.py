"""Airflow DAG ``csillag_ingestion``: the ingestion pipeline stage by stage, each stage one ``spark-submit``.

Runs in Airflow's own environment (``scripts/airflow.sh``), so it imports nothing of csillag: every task is a
``SparkSubmitOperator`` submitting ``jobs/stage.py STAGE INPUT…`` with the settings ``spark-submit.sh`` uses — the
properties file ``conf/spark-defaults.conf``, the project's packages as ``--py-files`` zip, the Ivy cache, the
log4j config, csillag's virtualenv Python for driver and executors, and ``spark-submit`` from that virtualenv. The
master comes from the Airflow connection ``csillag_spark`` (``scripts/airflow.sh`` defines it from
``CSILLAG_SPARK_MASTER``, default ``local[2]``).

Idempotent and keyed by the data interval, never by ``now()``: the run id is built from the interval's bounds,
and a stage whose ``_SUCCESS`` marker matches its inputs and settings is skipped, so a retry or a re-run of an
interval redoes only what did not finish. A stage exiting non-zero fails its task (exit 3 — documents rejected —
too; the retry then finds the stage done and goes on). Settings, from the environment of the Airflow process:

* ``CSILLAG_ROOT`` — the csillag checkout (default: two folders up from this file);
* ``CSILLAG_VENV`` — csillag's virtualenv (default ``$CSILLAG_ROOT/.venv``);
* ``CSILLAG_AIRFLOW_INPUTS`` — inputs, ``os.pathsep``-separated, each a Jinja template (e.g. ``/data/in/{{ ds }}``);
  default the English samples;
* ``CSILLAG_AIRFLOW_LAKEHOUSE`` — the lakehouse (default ``$CSILLAG_ROOT/lakehouse``);
* ``CSILLAG_AIRFLOW_TOOL`` — the ingestion tool (default ``ner_ingestion``);
* ``CSILLAG_AIRFLOW_SCHEDULE`` — the schedule (default ``@daily``).
"""

from __future__ import annotations

import logging
import os
import zipfile
from datetime import timedelta
from pathlib import Path

import pendulum
from airflow import DAG
from airflow.decorators import task
from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

logger = logging.getLogger(__name__)

ROOT = Path(os.environ.get("CSILLAG_ROOT", Path(__file__).resolve().parents[2]))
VENV = Path(os.environ.get("CSILLAG_VENV", ROOT / ".venv"))
PYTHON = str(VENV / "bin" / "python")
# = ingestion.pipeline.STAGE_NAMES, run as a chain: index (after chunks) needs no Spark, and on two cores a parallel
# branch would only take them from the NER of mentions.
STAGES = ("documents", "chunks", "index", "mentions", "entities", "quotes", "relations", "cooccurrences", "graph",
          "neo4j")
INPUTS = [p for p in os.environ.get("CSILLAG_AIRFLOW_INPUTS", str(ROOT / "ingestion" / "samples" / "en")).split(
    os.pathsep) if p]
LAKEHOUSE = os.environ.get("CSILLAG_AIRFLOW_LAKEHOUSE", str(ROOT / "lakehouse"))
TOOL = os.environ.get("CSILLAG_AIRFLOW_TOOL", "ner_ingestion")
SCHEDULE = os.environ.get("CSILLAG_AIRFLOW_SCHEDULE", "@daily")
CONN_ID = "csillag_spark"
ZIP = ROOT / ".cache" / "dist" / "csillag.zip"
PACKAGES = ("cli", "jobs", "ingestion", "graph", "tools", "settings")
# One id per data interval: the same interval always gets the same run id, whenever and however often it runs.
RUN_ID = "airflow-{{ data_interval_start | ts_nodash }}-{{ data_interval_end | ts_nodash }}"


# spark-submit.sh's driver flags for a local master (= ingestion.jvm_archive.LOCAL_JVM_OPTIONS and its archive): a
# C1-only JIT and the serial GC leave the cores to spaCy, and the class archive saves ~5 s of each task's start.
LOCAL_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
ARCHIVE = ROOT / ".cache" / "jvm" / "driver.jsa"


def local_jvm_options() -> str:
    """The local driver's flags, with the class archive when bootstrap built it."""
    archive = f" -XX:SharedArchiveFile={ARCHIVE} -Xlog:disable -Xlog:all=warning:stderr" if ARCHIVE.is_file() else ""
    return LOCAL_JVM_OPTIONS + archive


def spark_conf() -> dict[str, str]:
    """The ``--conf`` settings spark-submit.sh passes (the rest comes from conf/spark-defaults.conf).

    The master is the connection's, known when the task runs: the local flags are a template on its host (``conf``
    is a templated field of SparkSubmitOperator).
    """
    local = "{{ ' " + local_jvm_options() + "' if conn." + CONN_ID + ".host.startswith('local') else '' }}"
    return {
        "spark.jars.ivy": os.environ.get("CSILLAG_IVY_DIR", str(ROOT / ".cache" / "ivy")),
        "spark.pyspark.python": PYTHON,
        "spark.pyspark.driver.python": PYTHON,
        "spark.executorEnv.PYSPARK_PYTHON": PYTHON,
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{ROOT / 'conf' / 'log4j2.properties'}"
        + local,
    }


def spark_env() -> dict[str, str]:
    """The environment spark-submit.sh exports; PATH puts csillag's ``spark-submit`` first."""
    return {
        "PATH": f"{VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "SPARK_LOCAL_IP": os.environ.get("SPARK_LOCAL_IP", "127.0.0.1"),
        "PYSPARK_PYTHON": PYTHON,
        "PYSPARK_DRIVER_PYTHON": PYTHON,
        "CSILLAG_CONFIG": os.environ.get("CSILLAG_CONFIG", str(ROOT / "conf" / "csillag.toml")),
    }


def build_zip(root: Path = ROOT, target: Path = ZIP) -> str:
    """The project's packages as one zip for ``--py-files`` (what spark-submit.sh builds), written atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for package in PACKAGES:
            for path in sorted((root / package).rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    archive.write(path, path.relative_to(root))
    os.replace(partial, target)
    return str(target)


def stage_args(stage: str) -> list[str]:
    """``jobs/stage.py``'s arguments for one stage of this interval's run."""
    return [stage, *INPUTS, "--lakehouse", LAKEHOUSE, "--tool", TOOL, "--run-id", RUN_ID, "--json"]


with DAG(
    dag_id="csillag_ingestion",
    description="csillag ingestion: documents → chunks → index → mentions → entities → co-occurrences → graph",
    schedule=SCHEDULE,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,  # the stages of two intervals must not write the same lakehouse at once
    default_args={
        "owner": "csillag",
        "retries": 2,
        "retry_delay": timedelta(minutes=2),
        "retry_exponential_backoff": True,
        "execution_timeout": timedelta(hours=6),
    },
    tags=["csillag", "ingestion", "spark"],
    doc_md=__doc__,
) as dag:

    @task(task_id="package")
    def package() -> str:
        """Zip the project's packages for the executors."""
        return build_zip()

    previous = package()
    for stage_name in STAGES:
        submit = SparkSubmitOperator(
            task_id=stage_name,
            conn_id=CONN_ID,
            application=str(ROOT / "jobs" / "stage.py"),
            application_args=stage_args(stage_name),
            properties_file=str(ROOT / "conf" / "spark-defaults.conf"),
            py_files=str(ZIP),
            conf=spark_conf(),
            env_vars=spark_env(),
            name=f"csillag-{stage_name}",
            spark_binary="spark-submit",
        )
        previous >> submit
        previous = submit
