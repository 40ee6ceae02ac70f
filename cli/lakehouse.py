"""The commands that read or tidy a lakehouse: ``csillag summary``, ``status`` and ``vacuum``.

What they report is built in ``jobs.status``; these commands only parse, resolve the lakehouse and print. The
library is imported when a command runs (it loads the stage modules), so ``csillag --help`` stays quick.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

import click

from cli.base import EXIT_BUSY, EXIT_FAILED, Command, cli_settings, fail, lakehouse_option, run
from graph.errors import GraphDataError, StorageError

logger = logging.getLogger(__name__)


@click.command("summary", cls=Command)
@click.argument("lakehouse")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True,
              help="Entities and relations listed.")
def summary(lakehouse: str, top: int) -> None:
    """What LAKEHOUSE holds as its last completed run published it: table sizes, the score against the gold list,
    the main entities and the strongest relations. Reads Delta with delta-rs (no Spark), so it answers at once.

    LAKEHOUSE is a folder, a file:// URI or an s3a:// URI (reached with the settings' lakehouse.s3). Exit code 2
    when LAKEHOUSE does not exist.
    """
    from jobs.status import summarize

    storage = lakehouse_option(lakehouse, None)
    try:
        if not storage.is_dir():
            fail(f"lakehouse {lakehouse} does not exist; run the pipeline first")
        text = summarize(storage, top)
    except StorageError as exc:  # a bucket that cannot be reached: one line naming it and the endpoint
        fail(str(exc), EXIT_FAILED)
    click.echo(text)


@click.command(cls=Command)
@click.option("--lakehouse", type=click.Path(file_okay=False), help="Lakehouse root (default lakehouse.root).")
@click.option("--json", "as_json", is_flag=True, help="Print stages and table sizes as JSON.")
@click.option("--top", default=10, show_default=True, help="Entities and relations listed in the summary.")
@click.pass_context
def status(ctx: click.Context, lakehouse: str | None, as_json: bool, top: int) -> None:
    """Show the lakehouse: each stage's marker (done, when, by which run, counts) and the tables' sizes."""
    from jobs.status import lakehouse_status, render_status

    settings = cli_settings(ctx)
    root = lakehouse_option(lakehouse, settings)
    try:
        if not root.is_dir():
            fail(f"lakehouse {root.uri()} does not exist; run `csillag pipeline` first or pass --lakehouse")
        report = lakehouse_status(root, graph_store=settings.graph.store)
    # a bucket that cannot be reached, an unreadable publish manifest: one line naming it
    except (StorageError, GraphDataError) as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(json.dumps(report, indent=2, default=str) if as_json else render_status(report, root, top))


@click.command(cls=Command)
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

    settings = cli_settings(ctx)
    storage = lakehouse_option(lakehouse, settings)  # a folder or a bucket
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


def summary_main(argv: Sequence[str] | None = None) -> int:
    """``python -m jobs.summary LAKEHOUSE [--top N]``: the ``csillag summary`` command; returns the exit code."""
    return run(summary, argv, prog_name="csillag summary")
