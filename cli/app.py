"""The ``csillag`` application: the click group that gathers every command of the package.

``pipeline`` (alias ``ingest``) and ``stage`` (``cli.ingest``), ``summary``, ``status`` and ``vacuum``
(``cli.lakehouse``), ``graph load|export|draw`` (``cli.graph``), ``tasks types|start|status|cancel`` (``cli.tasks``),
``entities explain`` (``cli.entities``), ``ask`` (``cli.ask``) and ``serve`` (``cli.serve``). ``python -m cli`` runs
this group; ``python -m jobs.pipeline``/``jobs.stage``/``jobs.summary``, ``python -m tools.ask`` and ``python -m api``
run one command each.

Exit codes (``cli.base``; scripts may rely on them): 0 success (or every stage already up to date), 1 the work
failed (a failed run, a failed or cancelled task), 2 usage or settings error — nothing was done, 3 ingestion
finished but rejected some documents, 4 another run is writing the lakehouse (``pipeline``, ``stage``, ``vacuum``)
or the API could not be reached or answered with an error (``tasks``). Every error is one line on stderr, starting
with ``csillag:``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import click

from cli.ask import ask_command
from cli.base import Group, run
from cli.entities import entities
from cli.graph import graph
from cli.ingest import pipeline, stage
from cli.lakehouse import status, summary, vacuum
from cli.serve import serve
from cli.tasks import tasks

logger = logging.getLogger(__name__)


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
cli.add_command(status)
cli.add_command(vacuum)
cli.add_command(ask_command)
cli.add_command(serve)
cli.add_command(graph)
cli.add_command(tasks)
cli.add_command(entities)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``csillag`` console script and ``python -m cli``; returns the exit code."""
    return run(cli, argv, prog_name="csillag")
