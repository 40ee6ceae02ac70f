"""What an ingestion job needs around its tool: the tool itself, the input and lakehouse checks, and the result table.

``csillag pipeline``/``ingest``/``stage`` (``cli.ingest``) are reached from the console script, from
``python -m jobs.pipeline``/``jobs.stage`` and from ``spark-submit.sh``/Airflow running ``jobs/pipeline.py`` or
``jobs/stage.py`` as scripts: one code path, so the same input gives the same output and exit code every way.
"""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path

from settings.config import CsillagSettings
from tools.ingestion import DEFAULT_TOOL, IngestionResult, IngestionTool, build_ingestion_tool

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_TOOL", "build_tool", "input_problem", "lakehouse_problem", "render_result"]



def build_tool(name: str, settings: CsillagSettings) -> IngestionTool:
    """The named ingestion tool from the installed plugins, injected with the settings (R-PLUG-1/2)."""
    return build_ingestion_tool(name, settings)


def input_problem(inputs: list[str], *, scan: bool = False) -> str | None:
    """Why these inputs cannot be ingested (none given, or one does not exist), or None: checked before any table.

    ``scan``: also scan them as the documents stage will (``ingestion.scan``), so a folder holding no document is
    refused too — ``--check``'s question, which spark-submit.sh asks before it starts a JVM; a run's own tool reports
    it otherwise."""
    from ingestion.errors import InputNotFoundError
    from ingestion.scan import scan_inputs

    if not inputs:
        return "no inputs given; name files, folders, JSONL files or tables to ingest"
    for raw in inputs:
        problem = _missing(raw)
        if problem:
            return f"input {raw!r} {problem}"
    if not scan:
        return None
    try:
        scan_inputs(inputs)
    except InputNotFoundError as exc:
        return str(exc)
    return None


def _missing(raw: str) -> str | None:
    """What is wrong with one named input (it is not there, or leads nowhere), or None when it exists."""
    if not raw.strip():
        return "does not exist; name files, folders, JSONL files or tables to ingest"
    try:
        os.stat(Path(raw).expanduser())
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"is a symbolic link loop (ELOOP: {os.strerror(errno.ELOOP).lower()}); it leads to no file"
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return "does not exist; name files, folders, JSONL files or tables to ingest"
        return f"cannot be reached: {exc.strerror}"
    return None


def lakehouse_problem(settings: CsillagSettings) -> str | None:
    """Why the lakehouse cannot be written safely (a link under its root leads outside it), or None: checked with the
    inputs, before any table."""
    from ingestion.errors import LakehouseError
    from ingestion.lock import check_confined

    try:
        check_confined(settings.lakehouse.storage())
    except LakehouseError as exc:
        return str(exc)
    return None


def render_result(result: IngestionResult, settings: CsillagSettings) -> str:
    """A plain-text summary: one line per stage, then the outcome."""
    from jobs.status import gold_line  # with the stage modules: not for a check that ends before any run

    lines = [f"run {result.run_id} → {settings.lakehouse.storage().uri()}", ""]
    lines.append(f"{'stage':<15}{'status':<11}{'seconds':>8}  counts")
    for report in result.stages:
        counts = ", ".join(f"{k}={v}" for k, v in report.counts.items())
        extra = f"  ({report.reason})" if report.reason and report.status not in {"succeeded"} else ""
        lines.append(f"{report.stage:<15}{report.status:<11}{report.seconds:>8.1f}  {counts}{extra}")
    lines.append("")
    for report in result.stages:
        gold = report.details.get("gold")
        if gold:
            lines.append(gold_line(gold))
    lines.append(f"status: {result.status}" + (f" — {result.reason}" if result.reason else ""))
    return "\n".join(lines)
