"""Issue 38 item 9: a lakehouse whose ``_lock.json`` is a dangling symbolic link, through the real commands.

Before, ``link(2)`` found the name taken while every read of it found nothing, and the run retried at once for ever
(95 % CPU, ``--wait`` ignored). Now ``csillag pipeline … --wait 3`` and ``csillag vacuum`` each end in seconds with
one ``csillag:`` line naming the link, and nothing is written through it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES

pytestmark = [pytest.mark.integration]

COMMANDS = {
    "pipeline": ["jobs.pipeline", str(SAMPLES / "en"), "--master", "local[1]", "--quiet", "--wait", "3"],
    "vacuum": ["cli", "vacuum"],
}


def _message(command: str, done: subprocess.CompletedProcess[str]) -> str:
    """The command's one line of error: a failed run's status line (stdout), or vacuum's ``csillag:`` line."""
    output, start = (done.stdout, "status: failed — ") if command == "pipeline" else (done.stderr, "csillag: ")
    lines = [line for line in output.splitlines() if line.startswith(start)]
    assert len(lines) == 1, output[-2000:] + done.stderr[-2000:]
    return lines[0]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_issue_38_a_dangling_lock_link_ends_the_command_with_one_line(tmp_path: Path, command: str) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    target = tmp_path / "elsewhere" / "target.json"
    target.parent.mkdir()
    (lake / "_lock.json").symlink_to(target)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", *COMMANDS[command], "--lakehouse", str(lake)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
    )
    assert time.monotonic() - started < 60
    assert done.returncode == 1, done.stderr[-2000:]
    message = _message(command, done)
    assert f"the lock file {lake / '_lock.json'} is a symbolic link (to {target}" in message
    assert f"remove {lake / '_lock.json'} if no run is writing the lakehouse" in message
    # nothing was written through the link, and the link itself is left for the user to look at
    assert not target.exists() and list(target.parent.iterdir()) == []
    assert (lake / "_lock.json").is_symlink() and os.readlink(lake / "_lock.json") == str(target)
    assert sorted(p.name for p in lake.iterdir()) == ["_lock.json"]
