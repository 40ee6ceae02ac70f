"""The ``csillag`` command line: one click application for every command, wherever the command is defined.

``pipeline`` (alias ``ingest``) and ``stage`` (``jobs.cli_ingest``), ``summary`` and ``status``, ``vacuum``,
``graph load|export|draw`` (``jobs.cli_graph``), ``tasks types|start|status|cancel`` (``jobs.cli_tasks``), ``ask``
(``tools.ask``) and ``serve`` (``api.cli``). ``python -m jobs.pipeline``/``jobs.stage``/``jobs.summary``,
``python -m tools.ask`` and ``python -m api`` run the same commands.

Exit codes (``tools.cli``; scripts may rely on them): 0 success (or every stage already up to date), 1 the work
failed (a failed run, a failed or cancelled task), 2 usage or settings error — nothing was done, 3 ingestion
finished but rejected some documents, 4 another run is writing the lakehouse (``pipeline``, ``stage``, ``vacuum``)
or the API could not be reached or answered with an error (``tasks``). Every error is one line on stderr, starting
with ``csillag:``.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from typing import Any

import click

from api.cli import serve
from graph.errors import GraphDataError, StorageError
from jobs.cli_graph import graph
from jobs.cli_ingest import pipeline, stage
from jobs.cli_tasks import tasks
from jobs.summary import summary
from settings.config import CsillagSettings
from tools.ask import ask_command
from tools.cli import EXIT_FAILED, Group, cli_settings, fail, lakehouse_storage, run

logger = logging.getLogger(__name__)


def settings_from(ctx: click.Context, **overrides: Any) -> CsillagSettings:
    """The settings of this invocation: ``csillag --config`` (or the default file), the environment, ``overrides``."""
    return cli_settings(ctx, None, **overrides)


@click.group(cls=Group)
@click.option("--config", type=click.Path(dir_okay=False),
              help="Settings file (TOML/YAML) for every command; default $CSILLAG_CONFIG, else conf/csillag.toml.")
@click.version_option(package_name="csillag", prog_name="csillag")
@click.pass_context
def cli(ctx: click.Context, config: str | None) -> None:
    """csillag: ingest novels into a lakehouse and a knowledge graph, and serve them.

    Exit codes: 0 ok, 1 failed, 2 usage/settings error, 3 ingestion partial (documents rejected), 4 the lakehouse
    is being written by another run (pipeline, stage, vacuum), or the API is unreachable or answered an error (tasks).
    """
    ctx.ensure_object(dict)
    ctx.obj["config"] = config


cli.add_command(pipeline)
cli.add_command(pipeline, name="ingest")  # the documented alias: the same command, flags and exit codes
cli.add_command(stage)
cli.add_command(summary)


@cli.command()
@click.option("--lakehouse", type=click.Path(file_okay=False), help="Lakehouse root (default lakehouse.root).")
@click.option("--json", "as_json", is_flag=True, help="Print stages and table sizes as JSON.")
@click.option("--top", default=10, show_default=True, help="Entities and relations listed in the summary.")
@click.pass_context
def status(ctx: click.Context, lakehouse: str | None, as_json: bool, top: int) -> None:
    """Show the lakehouse: each stage's marker (done, when, by which run, counts) and the tables' sizes."""
    from jobs.status import lakehouse_status, render_status

    settings = settings_from(ctx)
    root = lakehouse_storage(lakehouse, settings)
    try:
        if not root.is_dir():
            fail(f"lakehouse {root.uri()} does not exist; run `csillag pipeline` first or pass --lakehouse")
        report = lakehouse_status(root, graph_store=settings.graph.store)
    # a bucket that cannot be reached, an unreadable publish manifest: one line naming it
    except (StorageError, GraphDataError) as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(json.dumps(report, indent=2, default=str) if as_json else render_status(report, root, top))


@cli.command()
@click.option("--lakehouse", type=click.Path(file_okay=False), help="Lakehouse root (default lakehouse.root).")
@click.option("--retention-hours", type=click.IntRange(min=0), metavar="N",
              help="Keep what the versions of the last N hours need (default lakehouse.retention_hours, 168).")
@click.option("--dry-run", is_flag=True, help="List the files that would be removed; remove nothing.")
@click.option("--wait", "wait_seconds", type=click.FloatRange(min=0), default=0, metavar="SECONDS",
              help="If a run is writing the lakehouse, wait up to SECONDS for it (default: exit 4 at once).")
@click.option("--json", "as_json", is_flag=True, help="Print the removed files per table as JSON.")
@click.pass_context
def vacuum(
    ctx: click.Context, lakehouse: str | None, retention_hours: int | None, dry_run: bool, wait_seconds: float,
    as_json: bool,
) -> None:
    """Delta VACUUM on every table: delete data files older versions needed (docs/ingestion.md).

    Versions older than the retention can no longer be read (time travel), so removed or edited documents' text
    is gone for good; the published versions and the current one stay readable. Exit 4 when a run holds the
    lakehouse.
    """
    from ingestion.errors import LakehouseError
    from ingestion.lock import LakehouseBusyError
    from ingestion.vacuum import vacuum_lakehouse
    from jobs.common import EXIT_BUSY

    settings = settings_from(ctx)
    storage = lakehouse_storage(lakehouse, settings)  # a folder or a bucket
    hours = retention_hours if retention_hours is not None else settings.lakehouse.retention_hours
    try:
        report = vacuum_lakehouse(storage, retention_hours=hours, dry_run=dry_run, wait_seconds=wait_seconds)
    except LakehouseBusyError as exc:
        fail(str(exc), EXIT_BUSY)
    except (LakehouseError, StorageError) as exc:  # StorageError: the bucket cannot be listed or read
        fail(str(exc), EXIT_FAILED)
    if as_json:
        click.echo(json.dumps({t.table: t.files for t in report.tables}, indent=2))
        return
    verb = "would remove" if dry_run else "removed"
    for table in report.tables:
        click.echo(f"{table.table}: {verb} {len(table.files)} file(s)")
    click.echo(f"{verb} {report.files} file(s) in {len(report.tables)} table(s) of {report.root} "
               f"(retention {hours} h)")


cli.add_command(ask_command)
cli.add_command(serve)
cli.add_command(graph)
cli.add_command(tasks)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``csillag`` console script; returns the exit code."""
    return run(cli, argv, prog_name="csillag")


if __name__ == "__main__":
    sys.exit(main())
