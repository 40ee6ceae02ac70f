"""What every job entry point shares: arguments, settings, the tool, the summary and the exit code.

A job is ``main(argv) -> int`` (dqx's workflow runner): parse arguments, build settings, call the ingestion tool,
print a summary, map the outcome to an exit code that scripts (and Airflow) can rely on.
"""

from __future__ import annotations

import argparse
import logging
import logging.config
import sys
from pathlib import Path
from typing import Any

from jobs.summary import gold_line
from settings.config import PROJECT_ROOT, CsillagSettings, load_settings
from tools.errors import ConfigError, ToolError
from tools.ingestion import IngestionRequest, IngestionResult, IngestionTool

logger = logging.getLogger(__name__)

EXIT_OK = 0  # succeeded, or every stage already up to date
EXIT_FAILED = 1  # the run failed; the result names the stage and the cause
EXIT_USAGE = 2  # bad arguments or settings: nothing was run
EXIT_PARTIAL = 3  # finished, but some documents were rejected
EXIT_CODES = {"succeeded": EXIT_OK, "skipped": EXIT_OK, "partial": EXIT_PARTIAL, "failed": EXIT_FAILED}
DEFAULT_TOOL = "ner_ingestion"
LOGGING_CONF = PROJECT_ROOT / "conf" / "logging.conf"


def base_parser(description: str, *, with_stage: bool = False) -> argparse.ArgumentParser:
    """Arguments common to the pipeline and the single-stage jobs (``with_stage``: a leading STAGE argument)."""
    parser = argparse.ArgumentParser(description=description)
    if with_stage:
        from ingestion.pipeline import STAGE_NAMES

        parser.add_argument("stage", help=f"one of: {', '.join(STAGE_NAMES)}")
    parser.add_argument("inputs", nargs="*", help="files, folders of .txt/.md, JSONL files, or Delta/Parquet tables")
    parser.add_argument("--config", help="settings file (TOML/YAML); default conf/csillag.toml or $CSILLAG_CONFIG")
    parser.add_argument("--lakehouse", help="lakehouse root (overrides lakehouse.root)")
    parser.add_argument("--master", help="Spark master (overrides spark.master)")
    parser.add_argument(
        "--tool", help=f"ingestion tool name (default: the setting ingestion.tool, else {DEFAULT_TOOL})"
    )
    parser.add_argument("--force", action="store_true", help="redo every stage even if its marker says it is done")
    parser.add_argument("--run-id", help="an id for this run (default: time-based)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
    parser.add_argument(
        "--result-file",
        type=Path,
        help="also write the result as JSON to this file (under spark-submit, stdout mixes with the driver's logs)",
    )
    parser.add_argument("--quiet", action="store_true", help="log warnings only")
    return parser


def configure_logging(quiet: bool = False) -> None:
    """Our logging config (conf/logging.conf); quiet keeps warnings only."""
    if LOGGING_CONF.exists():
        logging.config.fileConfig(LOGGING_CONF, disable_existing_loggers=False)
    else:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if quiet:
        logging.getLogger().setLevel(logging.WARNING)


def build_settings(args: argparse.Namespace) -> CsillagSettings:
    """Settings from the file, the environment and the command line (highest)."""
    overrides: dict[str, Any] = {}
    if args.lakehouse:
        overrides["lakehouse"] = {"root": Path(args.lakehouse)}
    if args.master:
        overrides["spark"] = {"master": args.master}
    return load_settings(args.config, **overrides)


def build_tool(name: str, settings: CsillagSettings) -> IngestionTool:
    """The named ingestion tool from the plugin registry, injected with the settings (R-PLUG-1/2)."""
    from tools.plugins import ToolContainer, ToolRegistry

    registry = ToolRegistry()
    cls = registry.get_class(name)
    if not issubclass(cls, IngestionTool):
        ingestion = sorted(n for n, c in registry.classes().items() if issubclass(c, IngestionTool))
        raise ToolError(
            f"tool {name!r} is not an ingestion tool; ingestion tools: {', '.join(ingestion)}", tool_name=name
        )
    container = ToolContainer(registry, services=[settings])
    return container.inject(cls())


def run_job(args: argparse.Namespace, stages: list[str] | None) -> int:
    """Build everything, run, print the summary, return the exit code."""
    configure_logging(args.quiet)
    try:
        settings = build_settings(args)
        tool = build_tool(args.tool or settings.ingestion.tool or DEFAULT_TOOL, settings)
    except (ConfigError, ToolError) as exc:
        print(f"csillag: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not args.inputs:
        print("csillag: no inputs given; name files, folders, JSONL files or tables to ingest", file=sys.stderr)
        return EXIT_USAGE
    request = IngestionRequest(inputs=args.inputs, force=args.force, stages=stages, run_id=args.run_id)
    result = tool.execute_ingestion(request)
    if args.result_file:
        args.result_file.parent.mkdir(parents=True, exist_ok=True)
        args.result_file.write_text(result.model_dump_json(indent=2), encoding="utf-8")
    print(result.model_dump_json(indent=2) if args.json else render_result(result, settings))
    return EXIT_CODES[result.status]


def render_result(result: IngestionResult, settings: CsillagSettings) -> str:
    """A plain-text summary: one line per stage, then the outcome."""
    lines = [f"run {result.run_id} → {settings.lakehouse.root.resolve()}", ""]
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
