"""``csillag graph load|export|draw``: a lakehouse's knowledge graph into Neo4j, a GraphML/GEXF file or a picture."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import click

from cli.base import EXIT_FAILED, Group, cli_settings, fail, lakehouse_option

logger = logging.getLogger(__name__)


@click.group(cls=Group)
def graph() -> None:
    """The knowledge graph of a lakehouse: load it into Neo4j, export it as GraphML/GEXF, or draw it."""


def _graph_data(ctx: click.Context, lakehouse: str | None) -> Any:
    from graph.errors import GraphDataError, StorageError
    from graph.model import GraphData

    root = lakehouse_option(lakehouse, cli_settings(ctx))  # a folder or a bucket
    try:
        return GraphData.from_lakehouse(root)
    except (GraphDataError, StorageError) as exc:
        fail(str(exc), EXIT_FAILED)


@graph.command("export")
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--lakehouse", type=click.Path(file_okay=False), help="Lakehouse root (default lakehouse.root).")
@click.option("--format", "fmt", type=click.Choice(["graphml", "gexf"]), help="Default: from OUT's suffix.")
@click.pass_context
def graph_export(ctx: click.Context, out: str, lakehouse: str | None, fmt: str | None) -> None:
    """Write the graph to OUT as GraphML (.graphml) or GEXF (.gexf), e.g. for Gephi."""
    from graph.export import write_gexf, write_graphml

    path = Path(out)
    fmt = fmt or path.suffix.lstrip(".").lower()
    if fmt not in {"graphml", "gexf"}:
        fail(f"cannot tell the format of {out!r}; name it .graphml or .gexf, or pass --format graphml|gexf")
    writer = write_graphml if fmt == "graphml" else write_gexf
    data = _graph_data(ctx, lakehouse)
    try:
        written = writer(data, path)
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}", EXIT_FAILED)
    click.echo(f"wrote {written}")


@graph.command("draw")
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--lakehouse", type=click.Path(file_okay=False), help="Lakehouse root (default lakehouse.root).")
@click.option("--top", default=40, show_default=True, help="Entities drawn (by PageRank).")
@click.option("--title", default="", help="Title of the picture.")
@click.pass_context
def graph_draw(ctx: click.Context, out: str, lakehouse: str | None, top: int, title: str) -> None:
    """Draw the top entities to OUT: .html (self-contained SVG page) or .png (needs matplotlib)."""
    from graph.export import draw_png, write_html

    path = Path(out)
    if path.suffix.lower() not in {".html", ".png"}:
        fail(f"cannot draw to {out!r}; name it .html or .png")
    data = _graph_data(ctx, lakehouse)
    try:
        if path.suffix.lower() == ".html":
            written = write_html(data, path, top_n=top, title=title)
        else:
            written = draw_png(data, path, top_n=top, title=title)
    except ImportError:
        fail("drawing a PNG needs matplotlib: pip install matplotlib (or draw to a .html file)")
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}", EXIT_FAILED)
    click.echo(f"wrote {written}")


@graph.command("load")
@click.option("--lakehouse", type=click.Path(file_okay=False), help="Lakehouse root (default lakehouse.root).")
@click.pass_context
def graph_load(ctx: click.Context, lakehouse: str | None) -> None:
    """Load the lakehouse's published graph into the Neo4j server of the neo4j.* settings, by hand.

    The server ends up holding exactly that graph (what the pipeline's neo4j stage does): new and changed items
    are written, items the tables no longer have are removed. Prints one line of what changed; exit code 1 with
    one line naming the URI and the user when Neo4j is down or refuses the credentials.
    """
    from graph.errors import GraphStoreError
    from graph.loading import load_into_neo4j

    settings = cli_settings(ctx)
    root = lakehouse_option(lakehouse, settings)  # a folder or a bucket
    try:
        done = load_into_neo4j(root, settings.neo4j, published=True)
    except GraphStoreError as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(done.summary())
