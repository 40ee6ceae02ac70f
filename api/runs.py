"""Ingestion runs started over REST: each one a job subprocess, its result and status kept in SQLite.

A run executes ``./spark-submit.sh pipeline …`` (``api.runner = "spark-submit"``, the default) or
``python -m jobs.pipeline …`` (``"python"``) — a subprocess either way, so the API process never imports pyspark.
The job writes its ``IngestionResult`` to ``<state_dir>/runs/<run_id>.json`` (``--result-file``; the JSON at the end
of its stdout, ``--json``, is the fallback); its log goes to ``<state_dir>/runs/<run_id>.log``. The exit code
(cli.base: 0 ok/skipped, 3 partial, 1 failed, 2 usage, 4 busy) decides the status when the job left no result.
A job that found its lakehouse locked by another run (result ``busy``, exit 4) is reported ``failed`` with the
job's reason, which names the run holding the lakehouse.
At most ``api.max_concurrent_runs`` execute at once; the rest queue.
Starting a request identical to a queued or running one returns that run instead of a duplicate.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import signal
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from api.problems import ProblemError
from api.security import confine_path, confine_uri, folder_roots
from api.state import INTERRUPTED, StateStore
from graph.errors import StorageError
from graph.lakehouse import Lakehouse
from settings.config import PROJECT_ROOT, CsillagSettings, lakehouse_root
from tools.ingestion import IngestionResult, StageReport

logger = logging.getLogger(__name__)

RunStatus = Literal["queued", "running", "succeeded", "partial", "failed", "skipped", "cancelled"]
ACTIVE = frozenset({"queued", "running"})
_EXIT_STATUS = {0: "succeeded", 3: "partial", 1: "failed", 2: "failed", 4: "failed"}


class RunRequest(BaseModel):
    """Start an ingestion run: the tool, what to ingest, and how."""

    model_config = ConfigDict(extra="forbid")

    tool: str = Field(default="ner_ingestion", min_length=1, max_length=200, description="An ingestion tool name.")
    inputs: list[str] = Field(min_length=1, max_length=1000, description="Files or folders inside the allowed roots.")
    force: bool = Field(default=False, description="Redo every stage even if its marker says it is done.")
    stages: list[str] | None = Field(default=None, max_length=20, description="A subset of stages; None = all.")
    lakehouse: str | None = Field(default=None, max_length=4096, description="Lakehouse root; default lakehouse.root.")


class RunRecord(BaseModel):
    """An ingestion run as the API reports it; ``result`` is the job's own IngestionResult once it finished."""

    run_id: str
    tool: str
    inputs: list[str]
    lakehouse: str
    force: bool
    stages: list[str] | None
    status: RunStatus
    created_at: float
    started_at: float | None = None
    finished_at: float | None = None
    exit_code: int | None = None
    reason: str | None = None
    result: IngestionResult | None = None
    stage_reports: list[StageReport] = []
    markers: dict[str, dict[str, Any]] = Field(default_factory=dict, description="The lakehouse's stage markers.")
    log_file: str | None = None
    key: str = Field(default="", description="Identifies identical requests.")


def read_markers(storage: Lakehouse) -> dict[str, dict[str, Any]]:
    """Every ``<lakehouse>/_markers/<stage>/_SUCCESS`` as JSON, by stage (a folder or a bucket); unreadable ones,
    and a store that cannot be listed, are logged and skipped: the run's own record is still answered."""
    out: dict[str, dict[str, Any]] = {}
    try:
        stages = storage.list_dirs("_markers")
    except (OSError, StorageError) as exc:
        logger.warning("cannot list the markers of %s: %s", storage.uri(), exc)
        return out
    for stage in stages:
        try:
            text = storage.read_text("_markers", stage, "_SUCCESS")
            if text is not None:
                out[stage] = json.loads(text)
        except (OSError, StorageError, ValueError) as exc:
            logger.warning("skipping unreadable marker of %s in %s: %s", stage, storage.uri(), exc)
    return out


def parse_job_output(stdout: str) -> IngestionResult | None:
    """The last JSON object of the job's stdout (it prints the result indented, starting with a lone ``{``)."""
    lines = stdout.splitlines()
    for start in range(len(lines) - 1, -1, -1):
        if lines[start] != "{":
            continue
        try:
            return IngestionResult.model_validate_json("\n".join(lines[start:]))
        except ValueError:
            continue
    return None


class RunManager:
    """Starts, deduplicates, tracks and cancels ingestion runs; one per API process, used from its event loop."""

    def __init__(self, settings: CsillagSettings, store: StateStore, roots: list[Path | str]) -> None:
        self.settings = settings
        self.store = store
        self.roots = roots
        self.log_dir = settings.api.state_dir / "runs"
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._processes: dict[str, asyncio.subprocess.Process] = {}
        self._semaphore: asyncio.Semaphore | None = None
        self._tool_names: list[str] | None = None
        store.interrupt("runs", error_field="reason")

    def ingestion_tools(self) -> list[str]:
        """Names of the registered ingestion tools (read once; loading them does not import pyspark)."""
        if self._tool_names is None:
            from tools.ingestion import IngestionTool
            from tools.plugins import ToolRegistry

            classes = ToolRegistry().classes()
            self._tool_names = sorted(n for n, c in classes.items() if issubclass(c, IngestionTool))
        return self._tool_names

    @staticmethod
    def stage_names() -> tuple[str, ...]:
        """The pipeline's stages, in order (the ingestion contract's list)."""
        from tools.ingestion import STAGE_NAMES

        return STAGE_NAMES

    def _validate(self, request: RunRequest) -> tuple[list[str], str, list[str] | None]:
        tools = self.ingestion_tools()
        if request.tool not in tools:
            raise ProblemError(
                422, f"tool: unknown ingestion tool {request.tool!r}; ingestion tools: {', '.join(tools)}",
                errors=[{"loc": ["body", "tool"], "msg": "unknown ingestion tool"}],
            )
        stages = None
        if request.stages:
            valid = self.stage_names()
            unknown = [s for s in request.stages if s not in valid]
            if unknown:
                raise ProblemError(
                    422, f"stages: unknown stage(s) {unknown}; valid stages: {', '.join(valid)}",
                    errors=[{"loc": ["body", "stages"], "msg": "unknown stage"}],
                )
            stages = [s for s in valid if s in request.stages]  # pipeline order
        folders = folder_roots(self.roots)
        inputs = [str(confine_path(raw, folders, field=f"inputs.{i}")) for i, raw in enumerate(request.inputs)]
        lake_raw = request.lakehouse if request.lakehouse is not None else str(self.settings.lakehouse.root)
        try:  # an s3a:// or hdfs:// root would otherwise pass as a relative folder named "s3a:"; gs:// & co.: refused
            root = lakehouse_root(lake_raw)
        except ValueError as exc:
            raise ProblemError(
                422, f"lakehouse {lake_raw!r}: {exc}",
                errors=[{"loc": ["body", "lakehouse"], "msg": "not an accepted lakehouse root"}],
            ) from None
        if isinstance(root, str):  # a bucket or HDFS: under such a root, or the server's own configured lakehouse
            own = self.settings.lakehouse.root
            lakehouse = confine_uri(root, [*self.roots, *([own] if isinstance(own, str) else [])], field="lakehouse")
        else:  # the operator's lakehouse.root may be an allowed folder itself; a lakehouse the client names may not
            lakehouse = str(confine_path(str(root), folders, field="lakehouse", must_exist=False,
                                         whole_root=request.lakehouse is None))
        return inputs, lakehouse, stages

    def start(self, request: RunRequest) -> tuple[RunRecord, bool]:
        """Queue a run, or return the queued/running identical one; ``(record, created)``.

        Raises:
            ProblemError: 422 unknown tool or stage, or missing input; 403 a path outside the allowed roots; 429 when
                ``api.max_queued_runs`` runs already wait beyond the ``api.max_concurrent_runs`` executing.
        """
        inputs, lakehouse, stages = self._validate(request)
        identity = {"tool": request.tool, "inputs": sorted(inputs), "lakehouse": str(lakehouse), "force": request.force,
                    "stages": stages}
        key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()[:32]
        self._tasks = {run_id: task for run_id, task in self._tasks.items() if not task.done()}
        active = 0
        for run_id in self._tasks:  # no await until the new run is registered: no race in the loop
            record = self.get(run_id)
            if record.key == key and record.status in ACTIVE:
                return record, False
            active += record.status in ACTIVE
        # queued + running, not queued alone: a run counts as queued until its task first runs, which a burst of
        # requests does not wait for
        limit = self.settings.api.max_queued_runs + self.settings.api.max_concurrent_runs
        if active >= limit:
            raise ProblemError(
                429, f"{active} ingestion runs are already queued or running, the limit (api.max_concurrent_runs + "
                f"api.max_queued_runs = {limit}); try again when one has finished",
            )
        run_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
        record = RunRecord(
            run_id=run_id, tool=request.tool, inputs=inputs, lakehouse=str(lakehouse), force=request.force,
            stages=stages, status="queued", created_at=time.time(), key=key,
            log_file=str(self.log_dir / f"{run_id}.log"),
        )
        self._save(record)
        self._tasks[run_id] = asyncio.get_running_loop().create_task(self._execute(record), name=f"run-{run_id}")
        logger.info("run %s queued: %s over %s into %s", run_id, request.tool, inputs, lakehouse)
        return record, True

    def command(self, record: RunRecord) -> list[str]:
        """The job's command line for this run and runner."""
        job_args = [*record.inputs, "--lakehouse", record.lakehouse, "--tool", record.tool, "--run-id", record.run_id,
                    "--json", "--result-file", str(self.result_file(record.run_id))]
        if record.force:
            job_args.append("--force")
        if record.stages:
            job_args += ["--stages", ",".join(record.stages)]
        master = self.settings.spark.master
        if self.settings.api.runner == "python":
            return [sys.executable, "-m", "jobs.pipeline", *job_args, "--master", master]
        return [str(PROJECT_ROOT / "spark-submit.sh"), "--master", master, "pipeline", *job_args]

    def job_environment(self) -> dict[str, str]:
        """The job's environment: ours without the API secret, confined to the API's allowed roots.

        ``CSILLAG_INGESTION_ALLOWED_ROOTS`` makes the job's own scan reject every file that resolves outside the
        roots (a symlink inside an allowed folder), which the API's check of the named inputs cannot see.
        """
        env = {k: v for k, v in os.environ.items() if k != "CSILLAG_API_API_KEY"}  # the job needs no API secret
        env["CSILLAG_INGESTION_ALLOWED_ROOTS"] = json.dumps([str(root) for root in folder_roots(self.roots)])
        return env

    def result_file(self, run_id: str) -> Path:
        """Where the job writes its IngestionResult (``--result-file``)."""
        return self.log_dir / f"{run_id}.json"

    def read_result(self, run_id: str, stdout: str) -> IngestionResult | None:
        """The job's result: its ``--result-file``, else the JSON at the end of its stdout, else None."""
        try:
            return IngestionResult.model_validate_json(self.result_file(run_id).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return parse_job_output(stdout)
        except (OSError, ValueError) as exc:
            logger.warning("run %s: unreadable result file (%s); reading stdout instead", run_id, exc)
            return parse_job_output(stdout)

    async def _execute(self, record: RunRecord) -> None:
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.settings.api.max_concurrent_runs)
        async with self._semaphore:
            record = self.get(record.run_id)
            if record.status != "queued":  # cancelled while it waited
                return
            record.status, record.started_at = "running", time.time()
            self._save(record)
            env = self.job_environment()
            self.log_dir.mkdir(parents=True, exist_ok=True)
            try:
                with open(record.log_file or os.devnull, "ab") as log:
                    process = await asyncio.create_subprocess_exec(
                        *self.command(record), cwd=str(PROJECT_ROOT), env=env, stdout=asyncio.subprocess.PIPE,
                        stderr=log, stdin=asyncio.subprocess.DEVNULL, start_new_session=True,
                    )
                    self._processes[record.run_id] = process
                    stdout, _ = await process.communicate()
            except OSError as exc:
                self._finish(record.run_id, None, None, f"cannot start the job: {exc}")
                return
            finally:
                self._processes.pop(record.run_id, None)
            result = self.read_result(record.run_id, stdout.decode("utf-8", "replace"))
            self._finish(record.run_id, process.returncode, result, None)

    def _finish(self, run_id: str, code: int | None, result: IngestionResult | None, reason: str | None) -> None:
        record = self.get(run_id)
        if record.status not in ACTIVE:  # cancelled meanwhile: keep that
            return
        record.exit_code, record.finished_at, record.result = code, time.time(), result
        if result is not None:
            # "busy" (another run holds the lakehouse) is not a run status: this run did not happen
            status = "failed" if result.status == "busy" else result.status
            record.status, record.reason, record.stage_reports = status, result.reason, list(result.stages)
        else:
            record.status = "failed"
            record.reason = reason or f"the job exited with code {code} and printed no result; see {record.log_file}"
        self._save(record)
        logger.info("run %s finished: %s (exit code %s)", run_id, record.status, code)

    def _save(self, record: RunRecord) -> None:
        self.store.put("runs", record.model_dump(mode="json"), id_field="run_id")

    def get(self, run_id: str) -> RunRecord:
        """The run's record.

        Raises:
            ProblemError: 404 for an unknown run id.
        """
        doc = self.store.get("runs", run_id)
        if doc is None:
            raise ProblemError(404, f"no ingestion run with id {run_id!r}")
        return RunRecord.model_validate(doc)

    def view(self, run_id: str) -> RunRecord:
        """The run's record with the lakehouse's current stage markers."""
        record = self.get(run_id)
        record.markers = read_markers(Lakehouse.for_root(record.lakehouse, self.settings.lakehouse.s3))
        return record

    def list(self, *, limit: int = 100, status: str | None = None) -> list[RunRecord]:
        """The newest runs, newest first."""
        return [RunRecord.model_validate(doc) for doc in self.store.recent("runs", limit=limit, status=status)]

    def cancel(self, run_id: str, reason: str = "cancelled") -> RunRecord:
        """Stop a queued or running run (its whole process group); a finished run is returned unchanged."""
        record = self.get(run_id)
        if record.status not in ACTIVE:
            return record
        process = self._processes.get(run_id)
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        record.status, record.reason, record.finished_at = "cancelled", reason, time.time()
        self._save(record)
        return record

    async def wait(self, run_id: str) -> RunRecord:
        """Until the run finished (for tests and the CLI)."""
        task = self._tasks.get(run_id)
        if task is not None:
            await asyncio.shield(task)
        return self.get(run_id)

    async def shutdown(self) -> None:
        """Stop every active run: recorded as failed, ``interrupted by restart`` — nobody cancelled them."""
        for run_id, process in list(self._processes.items()):
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
            record = self.get(run_id)
            record.status, record.reason, record.finished_at = "failed", INTERRUPTED, time.time()
            self._save(record)
        self.store.interrupt("runs", error_field="reason")
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
