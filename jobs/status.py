"""What ``csillag status`` reports about a lakehouse: every stage's ``_SUCCESS`` marker and every table's size.

Reads the marker files and the Delta logs only (delta-rs, no Spark), so it answers at once, even mid-run.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ingestion.markers import MarkerStore
from ingestion.pipeline import STAGE_NAMES
from jobs.summary import TABLES, summarize

logger = logging.getLogger(__name__)


def table_rows(root: Path) -> dict[str, int | None]:
    """Rows per table of ``jobs.summary.TABLES``; None for a table not written yet."""
    from deltalake import DeltaTable
    from deltalake.exceptions import TableNotFoundError

    rows: dict[str, int | None] = {}
    for table in TABLES:
        try:
            rows[table] = DeltaTable(str(root / table)).to_pyarrow_dataset().count_rows()
        except TableNotFoundError:
            rows[table] = None
    return rows


def lakehouse_status(root: Path) -> dict[str, Any]:
    """``{"lakehouse", "stages": {stage: marker dict | None}, "tables": {table: rows | None}}``, stages in order."""
    markers = MarkerStore(root)
    stages: dict[str, Any] = {}
    for stage in STAGE_NAMES:
        marker = markers.read(stage)
        stages[stage] = marker.model_dump() if marker is not None else None
    return {"lakehouse": str(root.resolve()), "stages": stages, "tables": table_rows(root)}


def render_status(report: dict[str, Any], root: Path, top: int = 10) -> str:
    """The stage table, then ``jobs.summary``'s table sizes, top entities and strongest relations."""
    lines = [f"{'stage':<15}{'state':<9}{'finished':<27}{'run':<26}counts"]
    for stage, marker in report["stages"].items():
        if marker is None:
            lines.append(f"{stage:<15}{'pending':<9}{'—':<27}{'—':<26}")
            continue
        counts = ", ".join(f"{k}={v}" for k, v in marker["counts"].items())
        lines.append(f"{stage:<15}{'done':<9}{marker['finished_at']:<27}{marker['run_id']:<26}{counts}")
    done = sum(marker is not None for marker in report["stages"].values())
    lines += [f"{done}/{len(report['stages'])} stages done", "", summarize(root, top)]
    return "\n".join(lines)
