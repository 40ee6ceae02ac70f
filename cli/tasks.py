"""``csillag tasks``: start, watch and cancel async tasks on a running API over HTTP.

The API's address is ``--url``, else ``$CSILLAG_API_URL``, else ``http://<api.host>:<api.port>`` from the settings;
the key is ``$CSILLAG_API_API_KEY`` (or ``--api-key``). Exit codes: 0 ok (``--wait``: the task succeeded), 1 the
task failed or was cancelled, 2 bad arguments, 4 the API could not be reached or refused the request.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import click
import httpx

from cli.base import EXIT_FAILED, EXIT_UNAVAILABLE, EXIT_USAGE, Group, fail

logger = logging.getLogger(__name__)

FINISHED = {"succeeded", "failed", "cancelled"}


class ApiClient:
    """A small client of the csillag API; any failure ends the command with one line and exit code 4."""

    def __init__(self, url: str, api_key: str, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, headers={"X-API-Key": api_key}, timeout=timeout)

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        """The JSON answer of ``method path``; an error answer's problem ``detail`` becomes the error line."""
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            fail(f"cannot reach the API at {self.url}: {exc} (is `csillag serve` running? see --url)", EXIT_UNAVAILABLE)
        if response.is_error:
            try:
                detail = response.json().get("detail") or response.reason_phrase
            except ValueError:
                detail = response.text[:200] or response.reason_phrase
            code = EXIT_USAGE if response.status_code == 422 else EXIT_UNAVAILABLE
            fail(f"the API answered {response.status_code}: {detail}", code)
        return response.json()


def _client(ctx: click.Context) -> ApiClient:
    return ctx.obj["client_factory"]()


@click.group(cls=Group)
@click.option("--url", envvar="CSILLAG_API_URL", help="The API's base URL (default from api.host and api.port).")
@click.option("--api-key", envvar="CSILLAG_API_API_KEY", show_envvar=True, help="The API key.")
@click.pass_context
def tasks(ctx: click.Context, url: str | None, api_key: str | None) -> None:
    """Start, follow and cancel async tasks on a running csillag API."""
    ctx.ensure_object(dict)

    def factory() -> ApiClient:
        if not api_key:
            fail("no API key: set CSILLAG_API_API_KEY or pass --api-key")
        base = url
        if not base:
            from settings.config import load_settings

            settings = load_settings(ctx.obj.get("config"))
            base = f"http://{settings.api.host}:{settings.api.port}"
        return ApiClient(base, api_key)

    ctx.obj["client_factory"] = factory


def _show(state: dict[str, Any]) -> None:
    click.echo(json.dumps(state, indent=2))


def _wait(client: ApiClient, task_id: str, timeout: float, interval: float = 0.5) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        state = client.call("GET", f"/tasks/{task_id}")
        if state["status"] in FINISHED or time.monotonic() >= deadline:
            return state
        time.sleep(interval)


def _exit_for(ctx: click.Context, state: dict[str, Any]) -> None:
    if state["status"] in {"failed", "cancelled"}:
        ctx.exit(EXIT_FAILED)


@tasks.command("types")
@click.pass_context
def task_types(ctx: click.Context) -> None:
    """List the task types with their input JSON schema."""
    click.echo(json.dumps(_client(ctx).call("GET", "/task-types"), indent=2))


@tasks.command("start")
@click.argument("task_type")
@click.option("--input", "input_json", default="{}", show_default=True, help="The input as JSON text.")
@click.option("--input-file", type=click.Path(exists=True, dir_okay=False), help="The input from a JSON file.")
@click.option("--wait", is_flag=True, help="Wait until the task finished; exit 1 if it failed or was cancelled.")
@click.option("--timeout", default=3600.0, show_default=True, help="Seconds --wait waits at most.")
@click.pass_context
def start(
    ctx: click.Context, task_type: str, input_json: str, input_file: str | None, wait: bool, timeout: float
) -> None:
    """Start a task of TASK_TYPE (see `csillag tasks types`) and print its state."""
    raw = Path(input_file).read_text(encoding="utf-8") if input_file else input_json
    try:
        task_input = json.loads(raw)
    except ValueError as exc:
        fail(f"the task input is not JSON: {exc}")
    if not isinstance(task_input, dict):
        fail(f"the task input must be a JSON object, got {type(task_input).__name__}")
    client = _client(ctx)
    state = client.call("POST", "/tasks", json={"task_type": task_type, "input": task_input})
    if wait:
        state = _wait(client, state["task_id"], timeout)
    _show(state)
    _exit_for(ctx, state)


@tasks.command("status")
@click.argument("task_id")
@click.option("--wait", is_flag=True, help="Wait until the task finished; exit 1 if it failed or was cancelled.")
@click.option("--timeout", default=3600.0, show_default=True, help="Seconds --wait waits at most.")
@click.pass_context
def task_status(ctx: click.Context, task_id: str, wait: bool, timeout: float) -> None:
    """Print a task's state (status, progress, result, error)."""
    client = _client(ctx)
    state = _wait(client, task_id, timeout) if wait else client.call("GET", f"/tasks/{task_id}")
    _show(state)
    if wait:
        _exit_for(ctx, state)


@tasks.command("cancel")
@click.argument("task_id")
@click.pass_context
def cancel(ctx: click.Context, task_id: str) -> None:
    """Cancel a queued or running task and print its state."""
    _show(_client(ctx).call("POST", f"/tasks/{task_id}/cancel"))
