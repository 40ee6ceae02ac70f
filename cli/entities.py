"""``csillag entities explain NAME``: why an entity is what it is — which resolution rule joined which of its forms.

The trace is recomputed from the lakehouse's mentions (``ingestion.explain``); the library is imported when the
command runs, so ``csillag --help`` stays quick.
"""

from __future__ import annotations

import click

from cli.base import EXIT_FAILED, Group, cli_settings, fail, lakehouse_storage


@click.group(cls=Group)
def entities() -> None:
    """Look into the entities stage's resolution."""


@entities.command("explain")
@click.argument("name")
@click.option("--lakehouse", type=click.Path(file_okay=False), help="Lakehouse root (default lakehouse.root).")
@click.option("--tool", help="Ingestion tool whose domain (language, alias table) it is (default ingestion.tool).")
@click.pass_context
def explain(ctx: click.Context, name: str, lakehouse: str | None, tool: str | None) -> None:
    """Which resolution rule joined which forms of the entity NAME names (a form or its name, in any case),
    recomputed from the mentions table with the current settings. Exit 1 when NAME names no entity, 2 when the
    lakehouse has no mentions table or the tool resolves no entities."""
    from graph.errors import StorageError
    from ingestion.explain import render_explanation
    from jobs.common import DEFAULT_TOOL, build_tool
    from tools.errors import ToolError

    settings = cli_settings(ctx)
    root = lakehouse_storage(lakehouse, settings)
    try:
        if not root.is_table("mentions"):
            fail(f"lakehouse {root.uri()} has no mentions table; run `csillag pipeline` first or pass --lakehouse")
        found = build_tool(tool or settings.ingestion.tool or DEFAULT_TOOL, settings).explain_entity(name, root)
    except ToolError as exc:  # an unknown tool, one that resolves no entities, or an unknown rule: nothing was read
        fail(str(exc))
    except StorageError as exc:  # a bucket that cannot be reached: one line naming it
        fail(str(exc), EXIT_FAILED)
    if not found:
        fail(f"{name!r} names no entity of {root.uri()}", EXIT_FAILED)
    click.echo("\n\n".join(render_explanation(explanation) for explanation in found))
