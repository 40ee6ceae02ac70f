"""``csillag serve``: the REST API under uvicorn. ``cli.app`` adds it to ``csillag``; ``python -m api`` runs it too."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import click

from api.server import check_serving_settings
from api.server import serve as run_server
from cli.base import Command, cli_settings, config_option, fail, run
from tools.errors import ConfigError

logger = logging.getLogger(__name__)


@click.command("serve", cls=Command)
@click.option("--host", help="Interface to listen on (default api.host, 127.0.0.1).")
@click.option("--port", type=click.IntRange(0, 65535), help="Port (default api.port, 8080).")
@config_option
@click.pass_context
def serve(ctx: click.Context, host: str | None, port: int | None, config: str | None) -> None:
    """Serve the REST API until interrupted (needs CSILLAG_API_API_KEY in the environment); see docs/api.md.

    Exit code 2 with one line for unusable settings (no API key, a bad value) or a missing FastAPI/uvicorn.
    """
    try:  # both are dependencies; a trimmed install gets one line, not a traceback from inside uvicorn
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        fail(f"the API needs FastAPI and uvicorn: pip install fastapi uvicorn ({exc.name} is missing)")
    settings = cli_settings(ctx, config)
    try:
        check_serving_settings(settings)
    except ConfigError as exc:
        fail(str(exc))
    run_server(settings, host=host, port=port)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m api``: the ``csillag serve`` command; returns the exit code."""
    return run(serve, argv, prog_name="csillag serve")

