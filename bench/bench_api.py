"""REST API throughput and latency: a real uvicorn process on loopback and 50 concurrent HTTP clients.

Starts the API (``api.app.create_app`` with one no-op ``AsyncTaskTool`` as its tool, served as ``csillag serve``
would: one uvicorn process, access log on) on 127.0.0.1 with a free port, a throw-away state directory and a random
API key, warms up, then runs one fixed-duration phase per endpoint with N concurrent clients
(asyncio, one ``httpx.AsyncClient`` and keep-alive connection each):

* ``GET /health`` — the baseline: no key check, no state;
* ``GET /tasks/{id}`` — status queries of finished tasks the runner still holds in memory;
* ``POST /tasks`` — starting the no-op task (input validation, one SQLite write before the 202);
* ``GET /tasks/{id}`` again, for the seed tasks the runner has trimmed by then (read back from SQLite).

Each phase stops at its duration or its request cap, whichever comes first; the server is stopped at the end, on
errors and on Ctrl-C. Measures and prints; it is not a test. Run:

    .venv/bin/python bench/bench_api.py [--clients 50] [--duration 20] [--max-requests 200000]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import importlib.util
import json
import logging
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, Field

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.contracts import AsyncTaskTool  # noqa: E402

logger = logging.getLogger(__name__)

HOST = "127.0.0.1"  # loopback only, by design: this benchmark never targets another machine
NOOP_TASK_TYPE = "bench.noop.v1"
SEED_TASKS = 200
REQUEST_TIMEOUT_S = 10.0
MAX_DURATION_S = 120.0
MAX_CLIENTS = 200


class NoopInput(BaseModel):
    """The no-op task's input: one optional short label, so validation has a field to check."""

    label: str = Field(default="", max_length=100)


class NoopTask(AsyncTaskTool):
    """An async task that finishes at once: what is measured is the API and the runner, not the work."""

    name = "bench_noop_task"
    task_type = NOOP_TASK_TYPE
    input_model = NoopInput

    async def run(self, task_input: NoopInput, context: Any) -> dict[str, str]:
        """Return the label."""
        return {"label": task_input.label}


def create_bench_app() -> Any:
    """The uvicorn factory: the real app (settings from the environment) with :class:`NoopTask` as its only tool.

    The installed plugins are left out: none is an AsyncTaskTool, so the measured endpoints (health, tasks) do
    exactly the same work without them, and the benchmark does not depend on their services starting.
    """
    from api.app import create_app
    from api.server import check_serving_settings
    from settings.config import load_settings
    from tools.plugins import ToolRegistry

    settings = load_settings()
    check_serving_settings(settings)
    registry = ToolRegistry(entry_point_group=None)
    registry.register(NoopTask)
    return create_app(settings, registry=registry)


def free_port() -> int:
    """A TCP port free on the loopback interface right now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    """The uvicorn process under test."""

    process: subprocess.Popen[bytes]
    url: str
    key: str
    log: Path


@contextmanager
def running_server(tmp: Path, *, access_log: bool, timeout: float = 60.0) -> Iterator[Server]:
    """Start uvicorn on 127.0.0.1 with a free port and wait for /health; always stopped on exit."""
    port, key = free_port(), secrets.token_hex(24)
    (tmp / "lake").mkdir()
    env = os.environ | {
        "CSILLAG_API_API_KEY": key,
        "CSILLAG_API_STATE_DIR": str(tmp / "state"),
        "CSILLAG_API_ALLOWED_ROOTS": json.dumps([str(tmp)]),
        "CSILLAG_API_RUNNER": "python",
        "CSILLAG_LAKEHOUSE_ROOT": str(tmp / "lake"),
    }
    command = [sys.executable, "-m", "uvicorn", "bench_api:create_bench_app", "--factory",
               "--app-dir", str(Path(__file__).resolve().parent), "--host", HOST, "--port", str(port),
               "--workers", "1", "--log-level", "info"]
    if not access_log:
        command.append("--no-access-log")
    log = tmp / "server.log"
    with open(log, "ab") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True)
    server = Server(process, f"http://{HOST}:{port}", key, log)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the API server exited with {process.returncode}: {log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{server.url}/health", timeout=1.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"no answer from /health within {timeout} s: {log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield server
    finally:
        stop_server(process)


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (uvicorn's graceful stop), SIGKILL after 20 s; only this process, which we started."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@dataclass
class PhaseResult:
    """What one phase measured: latencies of the answered requests (seconds), error count and a sample."""

    name: str
    wall_s: float
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    error_sample: str = ""
    server_cpu_s: float | None = None
    client_cpu_s: float = 0.0

    def quantile(self, q: float) -> float:
        """Nearest-rank quantile in milliseconds (NaN without samples)."""
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] * 1000

    @property
    def rate(self) -> float:
        """Successful requests per second."""
        return len(self.latencies) / self.wall_s if self.wall_s else 0.0


Call = tuple[str, str, bytes | None]  # method, path, JSON body
MakeCall = Callable[[random.Random], Call]


class RawConnection:
    """One keep-alive HTTP/1.1 connection with a minimal client (the default load generator).

    A few microseconds of client work per request instead of httpx's hundreds, so that on a small machine the
    numbers are the server's and not the load generator's. It reads exactly one ``Content-Length`` body per
    request, which is what uvicorn sends for every endpoint measured here.
    """

    def __init__(self, port: int, key: str) -> None:
        self.port = port
        self.key = key
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def send(self, method: str, path: str, body: bytes | None) -> tuple[int, bytes]:
        """Send one request and read its response: (status, body)."""
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(HOST, self.port)
        assert self._reader is not None
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nX-API-Key: {self.key}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self._writer.write(head.encode("ascii") + b"\r\n" + (body or b""))
        try:
            response = await self._reader.readuntil(b"\r\n\r\n")
            status, length = int(response[9:12]), None
            for line in response.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if length is None:
                raise ValueError(f"no Content-Length in the response to {method} {path}: {response[:200]!r}")
            return status, await self._reader.readexactly(length)
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            await self.aclose()  # the connection's state is unknown now: the next request opens a new one
            raise

    async def aclose(self) -> None:
        """Close the connection."""
        if self._writer is not None:
            self._writer.close()
            self._writer, self._reader = None, None


class HttpxConnection:
    """One ``httpx.AsyncClient`` with a single keep-alive connection (``--client httpx``)."""

    def __init__(self, port: int, key: str) -> None:
        self._http = httpx.AsyncClient(base_url=f"http://{HOST}:{port}", headers={"X-API-Key": key},
                                       limits=httpx.Limits(max_connections=1), timeout=REQUEST_TIMEOUT_S)

    async def send(self, method: str, path: str, body: bytes | None) -> tuple[int, bytes]:
        """Send one request and read its response: (status, body)."""
        headers = {"Content-Type": "application/json"} if body is not None else None
        response = await self._http.request(method, path, content=body, headers=headers)
        return response.status_code, response.content

    async def aclose(self) -> None:
        """Close the client."""
        await self._http.aclose()


CLIENTS = {"raw": RawConnection, "httpx": HttpxConnection}
CLIENT_ERRORS = (OSError, ValueError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                 httpx.HTTPError)


async def run_phase(
    name: str, server: Server, make_call: MakeCall, expected: int, *, client: str, clients: int, duration: float,
    cap: int, on_body: Callable[[bytes], None] | None = None,
) -> PhaseResult:
    """``clients`` concurrent loops sending calls until ``duration`` seconds or ``cap`` requests in total.

    Every connection is opened (and used once, for /health) before the clock starts, so connection set-up is
    not in the latencies.
    """
    result = PhaseResult(name, 0.0)
    port = int(server.url.rsplit(":", 1)[1])
    connections = [CLIENTS[client](port, server.key) for _ in range(clients)]
    sent = 0
    try:
        await asyncio.gather(*(c.send("GET", "/health", None) for c in connections))
        cpu, client_cpu = _server_cpu(server.process.pid), time.process_time()
        began = time.perf_counter()
        deadline = began + duration

        async def loop(connection: RawConnection | HttpxConnection, seed: int) -> None:
            nonlocal sent
            rng = random.Random(seed)
            while time.perf_counter() < deadline and sent < cap:
                sent += 1
                method, path, body = make_call(rng)
                started = time.perf_counter()
                try:
                    async with asyncio.timeout(REQUEST_TIMEOUT_S):
                        status, answer = await connection.send(method, path, body)
                except CLIENT_ERRORS as exc:
                    result.errors += 1
                    result.error_sample = result.error_sample or f"{type(exc).__name__}: {exc}"
                    await connection.aclose()
                    continue
                elapsed = time.perf_counter() - started
                if status == expected:
                    result.latencies.append(elapsed)
                    if on_body is not None:
                        on_body(answer)
                else:
                    result.errors += 1
                    result.error_sample = result.error_sample or f"HTTP {status}: {answer[:200]!r}"

        # The hard stop: the deadline plus one request timeout; whatever still hangs then is cancelled.
        await asyncio.wait_for(asyncio.gather(*(loop(c, i) for i, c in enumerate(connections))),
                               duration + REQUEST_TIMEOUT_S + 5)
        result.wall_s = time.perf_counter() - began
        result.client_cpu_s = time.process_time() - client_cpu
        after = _server_cpu(server.process.pid)
        if cpu is not None and after is not None:
            result.server_cpu_s = after - cpu
    finally:
        await asyncio.gather(*(c.aclose() for c in connections))
    return result


def _server_cpu(pid: int | None) -> float | None:
    """The server process's user+system CPU seconds (psutil, a dev dependency), or None without it."""
    if pid is None or importlib.util.find_spec("psutil") is None:
        return None
    import psutil

    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


async def start_tasks(server: Server, count: int) -> list[str]:
    """Start ``count`` no-op tasks (20 at a time) and wait until every one has succeeded; returns their ids."""
    semaphore = asyncio.Semaphore(20)
    async with httpx.AsyncClient(base_url=server.url, headers={"X-API-Key": server.key},
                                 timeout=REQUEST_TIMEOUT_S) as http:

        async def one(i: int) -> str:
            async with semaphore:
                response = await http.post("/tasks", json={"task_type": NOOP_TASK_TYPE, "input": {"label": f"s{i}"}})
                response.raise_for_status()
                return response.json()["task_id"]

        ids = list(await asyncio.gather(*(one(i) for i in range(count))))
        await wait_finished(http, ids[-20:], timeout=30.0)
    return ids


async def wait_finished(http: httpx.AsyncClient, ids: list[str], *, timeout: float) -> float:
    """Poll until every task in ``ids`` succeeded; returns the seconds it took.

    Raises:
        RuntimeError: one failed, or not all succeeded within ``timeout``.
    """
    began = time.perf_counter()
    pending = set(ids)
    while pending:
        for task_id in list(pending):
            state = (await http.get(f"/tasks/{task_id}")).json()
            if state["status"] == "succeeded":
                pending.discard(task_id)
            elif state["status"] in ("failed", "cancelled"):
                raise RuntimeError(f"no-op task {task_id} ended {state['status']}: {state.get('error')}")
        if pending and time.perf_counter() - began > timeout:
            raise RuntimeError(f"{len(pending)} no-op tasks still unfinished after {timeout} s")
        if pending:
            await asyncio.sleep(0.05)
    return time.perf_counter() - began


def print_table(results: list[PhaseResult], clients: int) -> None:
    """One row per phase."""
    head = (f"{'phase':<34} {'ok':>8} {'err':>5} {'wall s':>7} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} "
            f"{'p99 ms':>8} {'max ms':>8} {'srv cpu':>8} {'cli cpu':>8}")
    print(head)
    print("-" * len(head))
    for r in results:
        srv = f"{r.server_cpu_s / r.wall_s:.0%}" if r.server_cpu_s is not None else "n/a"
        print(f"{r.name:<34} {len(r.latencies):>8} {r.errors:>5} {r.wall_s:>7.1f} {r.rate:>8.0f} "
              f"{r.quantile(0.50):>8.1f} {r.quantile(0.95):>8.1f} {r.quantile(0.99):>8.1f} "
              f"{max(r.latencies, default=float('nan')) * 1000:>8.1f} {srv:>8} {r.client_cpu_s / r.wall_s:>8.0%}")
    print(f"({clients} concurrent clients; latency = request sent to response read, client side; "
          "cpu = share of one core over the phase)")
    for r in results:
        if r.errors:
            print(f"first error in {r.name}: {r.error_sample}")


def print_environment(access_log: bool, client: str) -> None:
    """Versions and what uvicorn runs on."""
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}"
                         for p in ("fastapi", "starlette", "uvicorn", "pydantic", "httpx"))
    print(f"python {sys.version.split()[0]}, {versions}")
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    log = "on" if access_log else "off"
    print(f"uvicorn: 1 worker process, event loop {loop}, HTTP parser {http}, access log {log}; "
          f"CPUs {os.cpu_count()}; client: this process, asyncio + {client}")


async def benchmark(server: Server, args: argparse.Namespace) -> list[PhaseResult]:
    """Warm up, then the four phases."""
    phase = {"client": args.client, "clients": args.clients, "duration": args.duration, "cap": args.max_requests}
    seeds = await start_tasks(server, SEED_TASKS)
    start_body = json.dumps({"task_type": NOOP_TASK_TYPE, "input": {"label": "bench"}}).encode()
    started: list[str] = []

    def health(rng: random.Random) -> Call:
        return "GET", "/health", None

    def status_of(ids: list[str]) -> MakeCall:
        return lambda rng: ("GET", f"/tasks/{rng.choice(ids)}", None)

    def start(rng: random.Random) -> Call:
        return "POST", "/tasks", start_body

    def record_start(body: bytes) -> None:
        started.append(json.loads(body)["task_id"])

    warm_up = phase | {"duration": min(3.0, args.duration)}
    await run_phase("warm-up", server, health, 200, **warm_up)
    await run_phase("warm-up", server, status_of(seeds), 200, **warm_up)
    results = [
        await run_phase("GET /health", server, health, 200, **phase),
        await run_phase("GET /tasks/{id} (in memory)", server, status_of(seeds), 200, **phase),
        await run_phase("POST /tasks (no-op task)", server, start, 202, **phase, on_body=record_start),
    ]
    async with httpx.AsyncClient(base_url=server.url, headers={"X-API-Key": server.key},
                                 timeout=REQUEST_TIMEOUT_S) as http:
        lag = await wait_finished(http, started[-50:], timeout=60.0)
    print(f"POST phase: {len(started)} tasks started; the last 50 had all succeeded {lag:.2f} s after the phase")
    if len(started) > 1000:  # TaskRunner.max_kept: the seed tasks have been trimmed from memory by now
        results.append(await run_phase("GET /tasks/{id} (from SQLite)", server, status_of(seeds), 200, **phase))
    return results


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the benchmark against a fresh server, print the table; 0 when no request failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (default 50)")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per phase (default 20)")
    parser.add_argument("--max-requests", type=int, default=200_000, help="request cap per phase (default 200000)")
    parser.add_argument("--client", choices=sorted(CLIENTS), default="raw",
                        help="load generator: a minimal HTTP/1.1 client (default) or httpx.AsyncClient")
    parser.add_argument("--no-access-log", action="store_true", help="run uvicorn without its access log")
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= MAX_CLIENTS:
        parser.error(f"--clients must be 1..{MAX_CLIENTS}, got {args.clients}")
    if not 1 <= args.duration <= MAX_DURATION_S:
        parser.error(f"--duration must be 1..{MAX_DURATION_S:g} seconds, got {args.duration:g}")
    if args.max_requests < 1:
        parser.error(f"--max-requests must be at least 1, got {args.max_requests}")

    print_environment(not args.no_access_log, args.client)
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with tempfile.TemporaryDirectory(prefix="csillag-bench-api-") as tmp:
        with running_server(Path(tmp), access_log=not args.no_access_log) as server:
            try:
                results = asyncio.run(benchmark(server, args))
            except RuntimeError:
                print(f"server log tail:\n{server.log.read_text()[-3000:]}", file=sys.stderr)
                raise
    print_table(results, args.clients)
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return 1 if any(r.errors for r in results) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # the server and the temporary folder are gone already (context managers)
        print("interrupted; the API server was stopped", file=sys.stderr)
        sys.exit(130)
