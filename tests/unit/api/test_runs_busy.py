"""Issue 11 item 3 over REST: a run whose lakehouse another run holds is reported failed, naming the holder."""

from __future__ import annotations

import asyncio
from pathlib import Path

from api.runs import RunManager, RunRequest
from api.security import resolve_roots
from api.state import StateStore
from graph.lakehouse import Lakehouse
from ingestion.lock import LakehouseLock


def test_issue_11_api_run_on_a_locked_lakehouse_is_failed_with_the_holder_as_reason(api_settings, tmp_path):
    settings = api_settings(runner="python")
    (tmp_path / "data" / "book.txt").write_text("Captain Ingrid Solberg sailed to Bergen.", encoding="utf-8")
    manager = RunManager(settings, StateStore(settings.api.state_dir / "state.sqlite3"),
                         resolve_roots(settings.api.allowed_roots))
    lake = Path(settings.lakehouse.root)

    async def go():
        record, _ = manager.start(RunRequest(inputs=["book.txt"]))
        return await manager.wait(record.run_id)

    # Held by this test process (alive): the real job (python -m jobs.pipeline) refuses before Spark starts.
    with LakehouseLock(Lakehouse.for_root(lake), run_id="run-holder", tool="ner_ingestion"):
        done = asyncio.run(go())
    assert done.status == "failed" and done.exit_code == 4, (done.reason, Path(done.log_file).read_text()[-2000:])
    assert done.reason.startswith(f"lakehouse {lake.resolve()} is being written by run run-holder (tool ner_ingestion")
    assert done.result is not None and done.result.status == "busy"
