"""The project's Neo4j test server, seen from Python: start it once per test session, hand out its credentials.

``ensure_neo4j()`` runs ``scripts/neo4j.sh start`` (a no-op when the server already runs) and returns the
connection the script reports with ``scripts/neo4j.sh env``. When ``CSILLAG_NEO4J_URI`` names another server
(the user's own), nothing is started and that server's settings are returned as they are.

A server that this module started is stopped when the Python process exits, unless ``CSILLAG_NEO4J_KEEP=1``
(handy while iterating: the next session then finds it running and starts in a second instead of ~10 s).
"""

from __future__ import annotations

import atexit
import logging
import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "neo4j.sh"
# The script's own start timeout is 180 s; the first start also downloads ~120 MB of jars with Maven.
START_TIMEOUT_S = 900.0
STOP_TIMEOUT_S = 180.0
NOT_RUNNING = 3  # exit code of `scripts/neo4j.sh pid` (and `status`) when no server runs

_started_here = False


class Neo4jServerError(RuntimeError):
    """Raised when ``scripts/neo4j.sh`` cannot start, stop or describe the project's Neo4j server."""


@dataclass(frozen=True)
class Neo4jConnection:
    """Where and as whom to connect to a running Neo4j server."""

    uri: str
    user: str
    password: str


def _run(command: str, timeout_s: float) -> subprocess.CompletedProcess[str]:
    """Run ``scripts/neo4j.sh <command>`` and return the finished process (whatever its exit code)."""
    try:
        return subprocess.run(
            ["bash", str(SCRIPT), command], capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise Neo4jServerError(f"'{SCRIPT} {command}' did not finish within {timeout_s:.0f}s") from exc


def _checked(command: str, timeout_s: float) -> str:
    """Run ``scripts/neo4j.sh <command>``; return its stdout, or raise with its stderr when it failed."""
    done = _run(command, timeout_s)
    if done.returncode != 0:
        raise Neo4jServerError(f"'{SCRIPT} {command}' failed with exit code {done.returncode}:\n{done.stderr.strip()}")
    return done.stdout


def script_connection() -> Neo4jConnection:
    """The connection of the project's own server, as ``scripts/neo4j.sh env`` prints it."""
    exports: dict[str, str] = {}
    for line in _checked("env", 60.0).splitlines():
        words = shlex.split(line)
        if len(words) == 2 and words[0] == "export" and "=" in words[1]:
            name, value = words[1].split("=", 1)
            exports[name] = value
    try:
        return Neo4jConnection(
            uri=exports["CSILLAG_NEO4J_URI"],
            user=exports["CSILLAG_NEO4J_USER"],
            password=exports["CSILLAG_NEO4J_PASSWORD"],
        )
    except KeyError as exc:
        raise Neo4jServerError(f"'{SCRIPT} env' printed no {exc.args[0]}; it printed: {exports}") from exc


def ensure_neo4j() -> Neo4jConnection:
    """Return a connection to a running Neo4j server, starting the project's own one if needed."""
    global _started_here
    ours = script_connection()
    external_uri = os.environ.get("CSILLAG_NEO4J_URI")
    if external_uri and external_uri != ours.uri:
        logger.info("using the Neo4j server named by CSILLAG_NEO4J_URI: %s", external_uri)
        return Neo4jConnection(
            uri=external_uri,
            user=os.environ.get("CSILLAG_NEO4J_USER", "neo4j"),
            password=os.environ.get("CSILLAG_NEO4J_PASSWORD", ""),
        )
    was_running = _run("pid", 60.0).returncode != NOT_RUNNING
    _checked("start", START_TIMEOUT_S)
    if not was_running and not _started_here and os.environ.get("CSILLAG_NEO4J_KEEP") != "1":
        _started_here = True
        atexit.register(stop_neo4j)
    # Read again: `start` may have moved to a free port when the default one was taken.
    return script_connection()


def stop_neo4j() -> None:
    """Stop the project's own Neo4j server (a no-op when it does not run)."""
    global _started_here
    _checked("stop", STOP_TIMEOUT_S)
    _started_here = False
