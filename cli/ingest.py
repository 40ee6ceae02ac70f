"""``csillag pipeline`` (alias ``ingest``) and ``csillag stage``: run the ingestion tool in this process.

The same commands run under every name they have: the console script, ``python -m jobs.pipeline``/``jobs.stage``,
and ``jobs/pipeline.py``/``jobs/stage.py`` as spark-submit (and Airflow) applications (``pipeline_main``,
``stage_main``). ``spark-submit.sh`` runs the job with ``--check`` in a plain Python first, so bad settings or inputs
end before a JVM starts.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

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
    # spark-submit.sh's question before it starts a JVM: with --check, a run whose stages are all up to date is
    # answered here (result printed, exit ANSWERED); otherwise exit 0 and the script submits the job.
    click.option("--answer-if-up-to-date", "answer_if_up_to_date", is_flag=True, hidden=True),
    # spark-submit.sh on a local master: a run the check cannot answer is run by the check's own process, which starts
    # the JVM itself with the script's options (CSILLAG_SUBMIT_ARGS, ingestion.spark.get_spark); exit EXIT_SUBMIT
    # when the script must submit it after all (a lakehouse on HDFS).
    click.option("--run-here", "run_here", is_flag=True, hidden=True),
]
# The exit code of ``--check --answer-if-up-to-date`` when the run was answered without Spark (spark-submit.sh
# turns it into 0); never seen by a user.
EXIT_ANSWERED = 10
# The exit code of ``--check --answer-if-up-to-date --run-here`` when the run is left to ``spark-submit``: pyspark
# starts the JVM with Popen(preexec_fn=…), which may hang once an HDFS client's threads run in the process, and the
# check has made one (ingestion/tool.py). Never seen by a user.
EXIT_SUBMIT = 11


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
    answer_if_up_to_date: bool = False, run_here: bool = False,
) -> int:
    """Check settings and inputs, build the tool, run it, print the result; the exit code of its status."""
    from tools.ingestion import IngestionRequest

    overrides: dict[str, Any] = {}
    if lakehouse is not None:  # --lakehouse '' is refused as empty, not taken for no option
        overrides["lakehouse"] = {"root": lakehouse}  # the text: a URI must reach the check unfolded
    if master:
        overrides["spark"] = {"master": master}
    settings = cli_settings(ctx, config, **overrides)
    problem = input_problem(list(inputs), scan=check) or lakehouse_problem(settings)
    if problem:
        fail(problem)
    if check:
        _write_spark_submit_args(settings)
    if check and not answer_if_up_to_date:  # spark-submit.sh's check before the JVM: settings and inputs, no Spark
        return EXIT_OK
    try:
        ingestion_tool = build_tool(tool or settings.ingestion.tool or DEFAULT_TOOL, settings)
    except ToolError as exc:
        fail(str(exc))
    configure_logging(quiet)  # after the checks, so a usage error stays one line
    request = IngestionRequest(inputs=list(inputs), force=force, stages=stages, run_id=run_id,
                               wait_seconds=wait_seconds)
    if check:
        answer = getattr(ingestion_tool, "run_if_up_to_date", None)  # our NER tools; a plugin tool may lack it
        result = answer(request) if answer is not None else None
        if result is not None:
            _print_result(result, settings, as_json, result_file)
            return EXIT_ANSWERED
        if not run_here:
            return EXIT_OK
        if settings.lakehouse.storage().is_hdfs:
            return EXIT_SUBMIT
        # Not answered: this process goes on and runs the job (spark-submit.sh's local one-process run).
    _show_progress(ingestion_tool, quiet)
    result = ingestion_tool.execute_ingestion(request)
    _print_result(result, settings, as_json, result_file)
    return EXIT_CODES[result.status]


def _write_spark_submit_args(settings: Any) -> None:
    """For ``spark-submit.sh``, which names the file in ``CSILLAG_SPARK_ARGS_FILE``: the arguments this lakehouse
    needs at the JVM's start (an s3a:// root: the S3A connector and its settings), one per line."""
    target = os.environ.get("CSILLAG_SPARK_ARGS_FILE")
    if not target:
        return
    from ingestion.spark import spark_submit_args

    args = spark_submit_args(settings.spark, settings.lakehouse.storage())
    Path(target).write_text("".join(f"{arg}\n" for arg in args), encoding="utf-8")


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
