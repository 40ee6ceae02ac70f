"""The ``csillag`` command line: ingest, status, serve, ask, graph export|draw, tasks start|status|cancel|types.

Exit codes (scripts may rely on them): 0 success (or every stage already up to date), 1 the work failed (a failed
run, a failed or cancelled task), 2 usage or settings error — nothing was done, 3 ingestion finished but rejected
some documents, 4 the API could not be reached or answered with an error. Every error is one line on stderr,
starting with ``csillag:``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Any

import click

from jobs.cli_support import Group, fail
from jobs.cli_tasks import tasks
from jobs.common import DEFAULT_TOOL, EXIT_CODES, EXIT_FAILED, build_tool, configure_logging, render_result
from settings.config import CsillagSettings, load_settings
from tools.errors import ConfigError, ToolError

logger = logging.getLogger(__name__)


def settings_from(ctx: click.Context, **overrides: Any) -> CsillagSettings:
    """The settings of this invocation: ``--config`` (or the default file), the environment, ``overrides``."""
    try:
        return load_settings(ctx.obj.get("config") if ctx.obj else None, **overrides)
    except ConfigError as exc:
        fail(str(exc))


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.option("--config", type=click.Path(dir_okay=False), help="Settings file (TOML/YAML); default conf/csillag.toml.")
@click.version_option(package_name="csillag", prog_name="csillag")
@click.pass_context
def cli(ctx: click.Context, config: str | None) -> None:
    """csillag: ingest novels into a lakehouse and a knowledge graph, and serve them.

    Exit codes: 0 ok, 1 failed, 2 usage/settings error, 3 ingestion partial (documents rejected), 4 API unreachable
    or API error.
    """
    ctx.ensure_object(dict)
    ctx.obj["config"] = config


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--tool", help="Ingestion tool name (default: the setting ingestion.tool, else ner_ingestion).")
@click.option("--lakehouse", type=click.Path(file_okay=False), help="Lakehouse root (overrides lakehouse.root).")
@click.option("--master", help="Spark master, e.g. local[2] (overrides spark.master).")
@click.option("--force", is_flag=True, help="Redo every stage even if its marker says it is done.")
@click.option("--stages", help="Comma-separated subset of stages, e.g. documents,chunks.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead of the summary table.")
@click.option("--quiet", is_flag=True, help="Log warnings only (progress is logged at INFO).")
@click.pass_context
def ingest(
    ctx: click.Context, paths: tuple[str, ...], tool: str | None, lakehouse: str | None, master: str | None,
    force: bool, stages: str | None, as_json: bool, quiet: bool,
) -> None:
    """Ingest PATHS (files, folders, JSONL files, Delta/Parquet tables) in this process, with a local Spark.

    Progress (documents, chunks, words/s) is logged to stderr; a summary table ends the run. Exit code 0 ok or
    up to date, 3 some documents rejected, 1 failed, 2 bad arguments.
    """
    from ingestion.tool import AbstractNERIngestionTool
    from tools.ingestion import IngestionRequest

    overrides: dict[str, Any] = {}
    if lakehouse:
        overrides["lakehouse"] = {"root": Path(lakehouse)}
    if master:
        overrides["spark"] = {"master": master}
    settings = settings_from(ctx, **overrides)
    try:
        ingestion_tool = build_tool(tool or settings.ingestion.tool or DEFAULT_TOOL, settings)
    except ToolError as exc:
        fail(str(exc))
    chosen = [s.strip() for s in stages.split(",") if s.strip()] if stages else None
    if chosen:
        from ingestion.pipeline import STAGE_NAMES

        unknown = [s for s in chosen if s not in STAGE_NAMES]
        if unknown:
            fail(f"unknown stage(s) {', '.join(unknown)}; valid stages: {', '.join(STAGE_NAMES)}")
    configure_logging(quiet)  # after the checks, so a usage error stays one line
    if isinstance(ingestion_tool, AbstractNERIngestionTool):
        from jobs.progress import progress_for_terminal

        ingestion_tool.set_progress(progress_for_terminal(quiet))
    result = ingestion_tool.execute_ingestion(IngestionRequest(inputs=list(paths), force=force, stages=chosen))
    click.echo(result.model_dump_json(indent=2) if as_json else render_result(result, settings))
    ctx.exit(EXIT_CODES[result.status])


@cli.command()
@click.option("--lakehouse", type=click.Path(file_okay=False), help="Lakehouse root (default lakehouse.root).")
@click.option("--json", "as_json", is_flag=True, help="Print stages and table sizes as JSON.")
@click.option("--top", default=10, show_default=True, help="Entities and relations listed in the summary.")
@click.pass_context
def status(ctx: click.Context, lakehouse: str | None, as_json: bool, top: int) -> None:
    """Show the lakehouse: each stage's marker (done, when, by which run, counts) and the tables' sizes."""
    from jobs.status import lakehouse_status, render_status

    root = Path(lakehouse) if lakehouse else settings_from(ctx).lakehouse.root
    if not root.exists():
        fail(f"lakehouse {root} does not exist; run `csillag ingest` first or pass --lakehouse")
    report = lakehouse_status(root)
    click.echo(json.dumps(report, indent=2, default=str) if as_json else render_status(report, root, top))


@cli.command()
@click.option("--host", help="Interface to listen on (default api.host, 127.0.0.1).")
@click.option("--port", type=int, help="Port (default api.port, 8080).")
@click.pass_context
def serve(ctx: click.Context, host: str | None, port: int | None) -> None:
    """Serve the REST API (needs CSILLAG_API_API_KEY in the environment); see docs/api.md."""
    try:
        from api.server import check_serving_settings
        from api.server import serve as run_server
    except ImportError as exc:
        fail(f"the API needs FastAPI and uvicorn: pip install fastapi uvicorn ({exc.name} is missing)")
    settings = settings_from(ctx)
    try:
        check_serving_settings(settings)
    except ConfigError as exc:
        fail(str(exc))
    run_server(settings, host=host, port=port)


@cli.command()
@click.argument("prompt")
@click.option("--domain", help="The request's domain, e.g. egri_csillagok.")
@click.option("--lang", default="en", show_default=True, help="The user's language.")
@click.option("--session", "session_id", help="Answer the clarification question of this session.")
@click.pass_context
def ask(ctx: click.Context, prompt: str, domain: str | None, lang: str, session_id: str | None) -> None:
    """Ask the chat platform one question in this process and print the answer (progress goes to stderr)."""
    from tools.platform import ChatPlatform
    from tools.request import ChatRequest
    from tools.streaming import ResponseEmitter

    platform = ChatPlatform.from_settings(settings_from(ctx))
    emitter = ResponseEmitter(
        sink=lambda e: click.echo(f"… {e.text}", err=True) if e.kind == "progress" else None
    )
    request = ChatRequest(prompt, user_id="cli", domain=domain, user_lang=lang, session_id=session_id)
    try:
        response = asyncio.run(platform.handle(request, emitter))
    except ToolError as exc:
        fail(str(exc), EXIT_FAILED)
    click.echo(response.content)
    if response.clarification:
        click.echo(f"(answer with: csillag ask --session {response.clarification['session_id']} \"…\")", err=True)


@cli.group()
def graph() -> None:
    """Look at the knowledge graph of a lakehouse: GraphML/GEXF files or a picture."""


def _graph_data(ctx: click.Context, lakehouse: str | None) -> Any:
    from graph.errors import GraphDataError
    from graph.model import GraphData

    root = Path(lakehouse) if lakehouse else settings_from(ctx).lakehouse.root
    try:
        return GraphData.from_lakehouse(root)
    except GraphDataError as exc:
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
    click.echo(f"wrote {writer(_graph_data(ctx, lakehouse), path)}")


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
    if path.suffix.lower() == ".html":
        written = write_html(data, path, top_n=top, title=title)
    else:
        try:
            written = draw_png(data, path, top_n=top, title=title)
        except ImportError:
            fail("drawing a PNG needs matplotlib: pip install matplotlib (or draw to a .html file)")
    click.echo(f"wrote {written}")


cli.add_command(tasks)


def main(argv: list[str] | None = None) -> int:
    """The ``csillag`` console script; returns the exit code."""
    try:
        code = cli.main(args=argv, prog_name="csillag", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("csillag: aborted", err=True)
        return 130
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
