"""The csillag REST API: ingestion runs, async tasks, chat (server-sent events) and health.

``create_app(settings)`` builds the FastAPI application with its services: the SQLite ``StateStore``, the
``RunManager`` (ingestion as job subprocesses), the ``PersistentTaskRunner`` over every ``AsyncTaskTool`` of the
chat platform's container, the entities' resolution traces (the ingestion tool's ``explain_entity``), and the chat
platform (``api.chat.ChatService``: the books of ``lakehouse.root``; ``/chat``
answers 503 until that lakehouse is built). ``create_app_from_env`` is the uvicorn factory
(``uvicorn api.app:create_app_from_env --factory``); ``csillag serve`` runs it. Every route but ``/health``
requires the API key; see docs/api.md.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import metadata
from typing import Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from api.chat import ChatService, ChatTurn, stream_turn
from api.problems import (
    PROBLEM_JSON,
    PROBLEM_RESPONSES,
    Problem,
    ProblemError,
    install_problem_handlers,
    problem_responses,
)
from api.runs import RunManager, RunRecord, RunRequest
from api.security import AccessLogRedaction, BodySizeLimit, require_api_key, require_json, resolve_roots
from api.server import check_serving_settings
from api.state import StateStore
from api.tasks import PersistentTaskRunner
from graph.storage import LakehouseStorage, StorageError
from settings.config import CsillagSettings, lakehouse_root, load_settings
from tools.contracts import AsyncTaskTool
from tools.errors import TaskError, ToolError
from tools.ingestion import DEFAULT_TOOL, EntityExplanation, build_ingestion_tool
from tools.platform import ChatPlatform
from tools.plugins import ToolRegistry, default_registry

logger = logging.getLogger(__name__)

SSE_EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "One event; `data` is a JSON document (see api.chat for each event's fields).",
    "properties": {
        "event": {"type": "string", "enum": ["progress", "delta", "clarification", "final", "error"]},
        "data": {"type": "string", "contentMediaType": "application/json"},
    },
    "required": ["event", "data"],
}

TaskStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
RunStatus = Literal["queued", "running", "succeeded", "partial", "failed", "skipped", "cancelled"]


class Health(BaseModel):
    """The service answers."""

    status: Literal["ok"] = "ok"
    version: str


class TaskStart(BaseModel):
    """Start an async task: its type id and its input (validated against the type's JSON schema)."""

    model_config = ConfigDict(extra="forbid")

    task_type: str = Field(min_length=1, max_length=200, description="A type id from GET /task-types.")
    input: dict[str, Any] = Field(default_factory=dict, description="The task's input.")


class TaskView(BaseModel):
    """One async task's state (R-ASYNC-2)."""

    task_id: str
    task_type: str
    status: TaskStatus
    progress: float
    message: str | None = None
    result: Any = None
    error: str | None = None
    created_at: float
    started_at: float | None = None
    finished_at: float | None = None


def _version() -> str:
    try:
        return metadata.version("csillag")
    except metadata.PackageNotFoundError:
        return "unknown"


def create_app(settings: CsillagSettings | None = None, *, registry: ToolRegistry | None = None) -> FastAPI:
    """The application; ``registry`` replaces the default tool registry (tests register their own tools)."""
    settings = settings or load_settings()
    api = settings.api
    store = StateStore(api.state_dir / "state.sqlite3")
    roots = resolve_roots(api.allowed_roots)
    chat = ChatService(settings, registry)
    # Tasks run in the chat platform's container; while the lakehouse is not ready, in one of the task tools alone.
    platform = chat.load() or ChatPlatform.from_settings(settings, _task_registry(registry))
    task_tools = [t for t in platform.container.tools() if isinstance(t, AsyncTaskTool)]
    tasks = PersistentTaskRunner(store, task_tools, max_concurrent=api.max_concurrent_tasks)
    runs = RunManager(settings, store, roots)

    redaction = AccessLogRedaction([api.api_key.get_secret_value()])

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # installed here, after the server configured logging, so that every way of serving the app gets it
        access_log = logging.getLogger("uvicorn.access")
        access_log.addFilter(redaction)
        logger.info("csillag API up: state in %s, allowed roots %s, runner %s", api.state_dir, roots, api.runner)
        try:
            yield
        finally:
            access_log.removeFilter(redaction)
            await runs.shutdown()
            tasks.shutdown()
            store.close()

    app = FastAPI(
        title="csillag API",
        version=_version(),
        description="Ingestion runs, async tasks and chat over csillag's knowledge graph. Every endpoint but "
        "/health needs the API key (X-API-Key header or Authorization: Bearer). Errors are RFC 7807 problem details.",
        lifespan=lifespan,
    )
    app.state.api_key = api.api_key.get_secret_value()
    app.state.store = store
    app.state.settings, app.state.runs, app.state.tasks, app.state.chat = settings, runs, tasks, chat
    app.add_middleware(BodySizeLimit, max_bytes=api.max_body_bytes)
    install_problem_handlers(app)

    @app.get("/health", tags=["service"])
    async def health() -> Health:
        """Liveness; needs no key."""
        return Health(version=app.version)

    app.include_router(_runs_router(runs))
    app.include_router(_tasks_router(tasks))
    app.include_router(_chat_router(chat))
    app.include_router(_entities_router(settings, registry))
    return app


def _task_registry(registry: ToolRegistry | None) -> ToolRegistry:
    """The async task tools of ``registry`` (default: the installed plugins) alone."""
    tasks_only = ToolRegistry(entry_point_group=None)
    for cls in (registry or default_registry).classes().values():
        if issubclass(cls, AsyncTaskTool):
            tasks_only.register(cls)
    return tasks_only


def _protected(tag: str) -> APIRouter:
    return APIRouter(tags=[tag], dependencies=[Depends(require_api_key)], responses=PROBLEM_RESPONSES)


def _runs_router(runs: RunManager) -> APIRouter:
    router = _protected("ingestion")

    @router.post(
        "/runs", status_code=202, dependencies=[Depends(require_json)],
        responses={200: {"model": RunRecord, "description": "The identical run"}, **problem_responses(415, 429)},
    )
    async def start_run(body: RunRequest, request: Request, response: Response) -> RunRecord:
        """Start an ingestion run in the background (202); an identical queued/running run is returned instead (200)."""
        record, created = runs.start(body)
        response.status_code = 202 if created else 200
        response.headers["Location"] = str(request.url_for("get_run", run_id=record.run_id))
        return record

    @router.get("/runs")
    async def list_runs(
        limit: int = Query(100, ge=1, le=1000), status: RunStatus | None = None
    ) -> list[RunRecord]:
        """The newest runs first."""
        return runs.list(limit=limit, status=status)

    @router.get("/runs/{run_id}", name="get_run")
    async def get_run(run_id: str) -> RunRecord:
        """A run's status, per-stage results and counts, and the lakehouse's stage markers."""
        return runs.view(run_id)

    @router.post("/runs/{run_id}/cancel")
    async def cancel_run(run_id: str) -> RunRecord:
        """Stop a queued or running run; a finished run is returned unchanged."""
        return runs.cancel(run_id)

    return router


def _task_view(state: Any) -> TaskView:
    return TaskView.model_validate(state.to_dict())


def _tasks_router(tasks: PersistentTaskRunner) -> APIRouter:
    router = _protected("tasks")

    @router.get("/task-types")
    async def task_types() -> dict[str, dict[str, Any]]:
        """Every task type id with the JSON schema of its input (R-ASYNC-1)."""
        return tasks.task_types()

    @router.post("/tasks", status_code=202, dependencies=[Depends(require_json)], responses=problem_responses(415))
    async def start_task(body: TaskStart, request: Request, response: Response) -> TaskView:
        """Start a task by type id; invalid input is a 422 naming the field (R-ASYNC-1)."""
        known = tasks.task_types()
        if body.task_type not in known:
            raise ProblemError(
                422, f"task_type: unknown task type {body.task_type!r}; known: {', '.join(sorted(known)) or 'none'}",
                errors=[{"loc": ["body", "task_type"], "msg": "unknown task type"}],
            )
        try:
            task_id = tasks.start(body.task_type, body.input)
        except TaskError as exc:
            raise ProblemError(422, f"input: {exc}", errors=[{"loc": ["body", "input"], "msg": str(exc)}]) from None
        response.headers["Location"] = str(request.url_for("get_task", task_id=task_id))
        return _task_view(tasks.get(task_id))

    @router.get("/tasks")
    async def list_tasks(
        limit: int = Query(100, ge=1, le=1000), status: TaskStatus | None = None
    ) -> list[TaskView]:
        """The newest tasks first."""
        return [_task_view(s) for s in tasks.list(limit=limit, status=status)]

    @router.get("/tasks/{task_id}", name="get_task")
    async def get_task(task_id: str) -> TaskView:
        """A task's state: status, progress, result, error (R-ASYNC-2)."""
        try:
            return _task_view(tasks.get(task_id))
        except TaskError:
            raise ProblemError(404, f"no task with id {task_id!r}") from None

    @router.post("/tasks/{task_id}/cancel")
    async def cancel_task(task_id: str) -> TaskView:
        """Cancel a queued or running task; a finished task is returned unchanged."""
        try:
            return _task_view(tasks.cancel(task_id))
        except TaskError:
            raise ProblemError(404, f"no task with id {task_id!r}") from None

    return router


def _entities_router(settings: CsillagSettings, registry: ToolRegistry | None) -> APIRouter:
    router = _protected("entities")

    @router.get(
        "/entities/{name}/explain",
        responses={409: {"model": Problem, "description": "The lakehouse has no mentions table yet",
                         "content": {PROBLEM_JSON: {}}}, **problem_responses(500)},
    )
    def explain_entity(name: str = Path(min_length=1, max_length=300)) -> list[EntityExplanation]:
        """Why an entity is what it is: the entities NAME names in lakehouse.root (a form or a name, in any case; one
        per scope) and which resolution rule joined which of their forms, in order — recomputed from the mentions
        with the served settings. 404 when NAME names no entity."""
        storage = LakehouseStorage.for_root(lakehouse_root(settings.lakehouse.root), settings.lakehouse.s3)
        try:
            if not storage.is_table("mentions"):
                # the lakehouse's state, not the service, is what is missing: a conflict, not an outage
                raise ProblemError(409, f"lakehouse {storage.uri()} has no mentions table; run the pipeline first")
            tool = build_ingestion_tool(settings.ingestion.tool or DEFAULT_TOOL, settings, registry)
            found = tool.explain_entity(name, storage)
        except (ToolError, StorageError) as exc:  # settings the server runs with that name no ingestion tool or rule
            raise ProblemError(500, str(exc)) from None
        if not found:
            raise ProblemError(404, f"{name!r} names no entity of {storage.uri()}")
        return found

    return router


def _chat_router(service: ChatService) -> APIRouter:
    router = _protected("chat")

    @router.post(
        "/chat",
        response_class=StreamingResponse,
        dependencies=[Depends(require_json)],
        responses={200: {"description": "Server-sent events: progress, delta, clarification, final | error",
                         "content": {"text/event-stream": {"schema": SSE_EVENT_SCHEMA}}},
                   503: {"model": Problem, "description": "The lakehouse is not ready (missing, empty or half-built)",
                         "content": {PROBLEM_JSON: {}}}, **problem_responses(415)},
    )
    async def chat(turn: ChatTurn) -> StreamingResponse:
        """Answer one chat turn as a stream of server-sent events (see api.chat); 503 until the lakehouse is built."""
        platform = await service.platform()
        return StreamingResponse(
            stream_turn(platform, turn), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
        )

    return router


def create_app_from_env() -> FastAPI:
    """The uvicorn factory: settings from ``$CSILLAG_CONFIG`` / conf/csillag.toml and the environment.

    Raises:
        ConfigError: settings the service must not run with (``api.server.check_serving_settings``: no API key or a
            short one); uvicorn then does not start.
    """
    settings = load_settings()
    check_serving_settings(settings)
    return create_app(settings)
