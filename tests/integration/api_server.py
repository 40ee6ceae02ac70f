"""A real API server process for the integration tests: uvicorn on 127.0.0.1, a free port, our test factory."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ApiServer:
    """One uvicorn process; ``start()`` waits for /health, ``kill()`` is a crash, ``stop()`` a graceful stop."""

    env: dict[str, str]
    log: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    factory: str = "tests.integration.api_testapp:create"  # api.app:create_app_from_env serves the real tools

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> ApiServer:
        command = [sys.executable, "-m", "uvicorn", self.factory, "--factory",
                   "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "info"]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=os.environ | self.env, stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log.read_text()[-3000:]
                raise RuntimeError(f"the API server exited with {self.process.returncode}: {tail}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1.0).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.2)
        self.kill()
        raise RuntimeError(f"the API server did not answer /health within {timeout} s: {self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
