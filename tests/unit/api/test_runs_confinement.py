"""Issue 11 item 1: a run started over REST is confined to ``api.allowed_roots`` inside the job too."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from api.runs import RunManager, RunRequest
from api.security import resolve_roots
from api.state import StateStore

# What the job process sees: the settings it loads (from the environment the API gave it).
JOB = (
    "import json, sys; from settings.config import load_settings; "
    "roots = load_settings().ingestion.allowed_roots; "
    "open(sys.argv[1], 'w').write(json.dumps([str(r) for r in roots] if roots is not None else None))"
)


def test_issue_11_api_runs_pass_their_allowed_roots_to_the_job(
    api_settings: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.delenv("CSILLAG_INGESTION_ALLOWED_ROOTS", raising=False)
    settings = api_settings()
    (tmp_path / "data" / "corp").mkdir()
    manager = RunManager(settings, StateStore(settings.api.state_dir / "state.sqlite3"),
                         resolve_roots(settings.api.allowed_roots))
    seen = tmp_path / "seen.json"
    manager.command = lambda record: [sys.executable, "-c", JOB, str(seen)]  # type: ignore[method-assign]

    async def go() -> Any:
        record, _ = manager.start(RunRequest(inputs=["corp"]))
        return await manager.wait(record.run_id)

    asyncio.run(go())
    assert json.loads(seen.read_text()) == [str((tmp_path / "data").resolve())]
