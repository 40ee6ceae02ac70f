"""The DAG file read without Airflow (it lives in its own venv): its stage list and its keying."""

from __future__ import annotations

import ast
from pathlib import Path

from ingestion.pipeline import STAGE_NAMES

DAG_FILE = Path(__file__).resolve().parents[3] / "jobs" / "airflow" / "csillag_ingestion_dag.py"


def module_constant(name: str):
    tree = ast.parse(DAG_FILE.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{name} not found in {DAG_FILE}")


def test_airflow_dag_stages_are_the_pipeline_stages_in_order():
    assert module_constant("STAGES") == STAGE_NAMES


def test_airflow_dag_run_id_is_keyed_by_the_data_interval_never_now():
    run_id = module_constant("RUN_ID")
    assert run_id == "airflow-{{ data_interval_start | ts_nodash }}-{{ data_interval_end | ts_nodash }}"
    calls = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(ast.parse(DAG_FILE.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
    }
    assert not calls & {"now", "utcnow", "today", "time"}
    assert "datetime" in calls  # the fixed start_date is a call, so the walk does see calls
