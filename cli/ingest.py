"""``csillag pipeline`` (alias ``ingest``) and ``csillag stage``: run the ingestion tool in this process.

The same commands run under every name they have: the console script, ``python -m jobs.pipeline``/``jobs.stage``,
and ``jobs/pipeline.py``/``jobs/stage.py`` as spark-submit (and Airflow) applications (``pipeline_main``,
``stage_main``). ``spark-submit.sh`` runs the job with ``--check`` in a plain Python first, so bad settings or inputs
end before a JVM starts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from cli import handshake
from cli.base import (
    EXIT_BUSY,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_PARTIAL,
    CliError,
    Command,
    cli_settings,
    config_option,
    configure_logging,
    fail,
    run,
)
from cli.handshake import Handshake
from jobs.common import DEFAULT_TOOL, build_tool, input_problem, lakehouse_problem, render_result
from tools.errors import ToolError
from tools.ingestion import STAGE_NAMES

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

EXIT_CODES = {  # the exit code of each IngestionResult.status (cli.base: what each code means)
    "succeeded": EXIT_OK, "skipped": EXIT_OK, "partial": EXIT_PARTIAL, "failed": EXIT_FAILED, "busy": EXIT_BUSY,
}


def unknown_stages_message(unknown: list[str]) -> str:
    """The one line for stage names the pipeline does not have, listing the valid ones."""
    names = ", ".join(repr(name) for name in unknown)
    return f"unknown stage{'s' if len(unknown) > 1 else ''} {names}; valid stages: {', '.join(STAGE_NAMES)}"


class StageNames(click.ParamType):
    """Stage names checked against ``tools.ingestion.STAGE_NAMES`` (the contract's list, equal to the pipeline's).

    ``several``: a comma-separated list (``--stages documents,chunks``; empty means every stage). An unknown name
    is the same one line wherever it is given (``stage``, ``pipeline --stages``, ``ingest --stages``).
    """

    name = "stage"

    def __init__(self, several: bool = False) -> None:
        self.several = several

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The stage name, or the list of names (None for an empty list)."""
        if isinstance(value, list):
            return value
        names = [s.strip() for s in str(value).split(",") if s.strip()] if self.several else [str(value)]
        unknown = [name for name in names if name not in STAGE_NAMES]
        if unknown:
            raise CliError(unknown_stages_message(unknown))  # not click's "Invalid value for …": same line everywhere
        if self.several:
            return names or None
        return names[0]


class Seconds(click.ParamType):
    """A number of seconds >= 0."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The value as a float; anything else is one line naming the option and the value."""
        if isinstance(value, float):
            return value
        option = param.opts[0] if param is not None and param.opts else "seconds"
        try:
            seconds = float(value)
        except ValueError:
            raise CliError(f"{option} {value!r}: expected a number of seconds >= 0") from None
        if seconds < 0:
            raise CliError(f"{option} {seconds:g}: expected a number of seconds >= 0")
        return seconds


STAGE = StageNames()
STAGES = StageNames(several=True)

_OPTIONS: list[Callable[[F], F]] = [
    click.argument("inputs", nargs=-1, metavar="[INPUT]..."),
    config_option,
    click.option("--lakehouse", type=click.Path(file_okay=False), help="Lakehouse root (overrides lakehouse.root)."),
    click.option("--master", help="Spark master, e.g. local[2] or spark://HOST:PORT (overrides spark.master)."),
    click.option("--tool", help=f"Ingestion tool name (default: the setting ingestion.tool, else {DEFAULT_TOOL})."),
    click.option("--force", is_flag=True, help="Redo every stage even if its marker says it is done."),
    click.option("--run-id", help="An id for this run (default: time-based)."),
    click.option("--wait", "wait_seconds", type=Seconds(), default=0.0, metavar="SECONDS",
                 help="If another run is writing the lakehouse, wait up to SECONDS for it (default: exit 4 at once)."),
    click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead of the summary table."),
    click.option("--result-file", type=click.Path(dir_okay=False, path_type=Path),
                 help="Also write the result as JSON to this file (under spark-submit, stdout mixes with logs)."),
    click.option("--quiet", is_flag=True, help="Log warnings only, and no progress bars."),
    click.option("--check", is_flag=True,
                 help="Only check the settings and that every input exists, then exit 0 (or 2 with one line)."),
    # spark-submit.sh's only: what runs before a JVM starts (cli.handshake)
    click.option(handshake.OPTION, "handshake_mode", type=click.Choice([mode.value for mode in Handshake]),
                 hidden=True),
]


def ingestion_options(function: F) -> F:
    """INPUT… and the options every ingestion command takes."""
    for option in reversed(_OPTIONS):
        function = option(function)
    return function


@click.command("pipeline", cls=Command)
@ingestion_options
@click.option("--stages", type=STAGES, metavar="a,b,…",
              help=f"Comma-separated subset of stages, run in pipeline order ({', '.join(STAGE_NAMES)}).")
@click.pass_context
def pipeline(ctx: click.Context, stages: list[str] | None, **options: Any) -> None:
    """Ingest INPUTs (files, folders of .txt/.md, JSONL files, Delta/Parquet tables): every stage that is not up to
    date, in this process with a local or the given Spark master. `csillag ingest` is the same command.

    Progress goes to stderr (bars on a terminal, else log lines); a summary table ends the run. Exit code 0 ok or
    up to date, 3 some documents rejected, 1 failed, 2 bad arguments or settings, 4 another run is writing the
    lakehouse (one line names it; --wait waits for it).
    """
    ctx.exit(run_ingestion(ctx, stages, **options))


@click.command("stage", cls=Command, help=(
    "Run one STAGE over INPUTs (its upstream stages must be done): what Airflow runs task by task.\n\n"
    f"STAGE is one of: {', '.join(STAGE_NAMES)}. Exit codes as for `csillag pipeline`."
))
@click.argument("stage_name", type=STAGE, metavar="STAGE")
@ingestion_options
@click.pass_context
def stage(ctx: click.Context, stage_name: str, **options: Any) -> None:
    """Run one stage (the help text is built from the stage list above)."""
    ctx.exit(run_ingestion(ctx, [stage_name], **options))


def run_ingestion(
    ctx: click.Context, stages: list[str] | None, *, inputs: tuple[str, ...], config: str | None,
    lakehouse: str | None, master: str | None, tool: str | None, force: bool, run_id: str | None,
    wait_seconds: float, as_json: bool, result_file: Path | None, quiet: bool, check: bool,
    handshake_mode: str | None = None,
) -> int:
    """Check settings and inputs, build the tool, run it, print the result; the exit code of its status.

    ``handshake_mode``: spark-submit.sh's handshake before it starts a JVM (``cli.handshake``).
    """
    from tools.ingestion import IngestionRequest

    overrides: dict[str, Any] = {}
    if lakehouse is not None:  # --lakehouse '' is refused as empty, not taken for no option
        overrides["lakehouse"] = {"root": lakehouse}  # the text: a URI must reach the check unfolded
    if master:
        overrides["spark"] = {"master": master}
    settings = cli_settings(ctx, config, **overrides)
    mode = Handshake(handshake_mode) if handshake_mode else None
    problem = input_problem(list(inputs), scan=check or mode is not None) or lakehouse_problem(settings)
    if problem:
        fail(problem)
    if mode is not None:
        handshake.write_spark_submit_args(settings)
    elif check:  # settings and inputs only, no Spark
        return EXIT_OK
    try:
        ingestion_tool = build_tool(tool or settings.ingestion.tool or DEFAULT_TOOL, settings)
    except ToolError as exc:
        fail(str(exc))
    configure_logging(quiet)  # after the checks, so a usage error stays one line
    request = IngestionRequest(inputs=list(inputs), force=force, stages=stages, run_id=run_id,
                               wait_seconds=wait_seconds)
    if mode is not None:
        code = handshake.shake(mode, ingestion_tool, request, settings,
                               lambda answer: _print_result(answer, settings, as_json, result_file))
        if code is not None:
            return code
    _show_progress(ingestion_tool, quiet)
    result = ingestion_tool.execute_ingestion(request)
    _print_result(result, settings, as_json, result_file)
    return EXIT_CODES[result.status]


def _print_result(result: Any, settings: Any, as_json: bool, result_file: Path | None) -> None:
    """The summary table (or JSON) on stdout, the JSON also to ``result_file``, and a busy run's line on stderr."""
    if result_file:
        result_file.parent.mkdir(parents=True, exist_ok=True)
        result_file.write_text(result.model_dump_json(indent=2), encoding="utf-8")
    click.echo(result.model_dump_json(indent=2) if as_json else render_result(result, settings))
    if result.status == "busy":
        click.echo(f"csillag: {result.reason}", err=True)


def _show_progress(ingestion_tool: object, quiet: bool) -> None:
    """Bars on a terminal, log lines elsewhere — for our NER tools; a plugin tool reports as it likes."""
    from cli.progress import progress_for_terminal
    from ingestion.tool import AbstractNERIngestionTool

    if isinstance(ingestion_tool, AbstractNERIngestionTool):
        ingestion_tool.set_progress(progress_for_terminal(quiet))


def pipeline_main(argv: Sequence[str] | None = None) -> int:
    """Run ``csillag pipeline`` with ``argv`` (default ``sys.argv[1:]``); the exit codes are the command's."""
    return run(pipeline, argv, prog_name="csillag pipeline")


def stage_main(argv: Sequence[str] | None = None) -> int:
    """Run ``csillag stage`` with ``argv`` (default ``sys.argv[1:]``); an unknown stage fails listing the valid ones."""
    return run(stage, argv, prog_name="csillag stage")
