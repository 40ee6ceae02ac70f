from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from pathlib import Path

import pytest

from api.problems import ProblemError
from api.runs import RunManager, RunRequest, parse_job_output, read_markers
from api.security import resolve_roots
from api.state import StateStore
from graph.lakehouse import Lakehouse

RESULT = {
    "run_id": "r1",
    "status": "partial",
    "reason": "1 document rejected",
    "stages": [
        {"stage": "documents", "status": "succeeded", "counts": {"documents": 2}, "seconds": 1.5},
        {"stage": "chunks", "status": "skipped", "reason": "up to date"},
    ],
    "counts": {"documents": 2},
    "rejects": 1,
}


def fake_job(tmp_path: Path, *, stdout: str, code: int, sleep: float = 0.0) -> list[str]:
    script = tmp_path / f"job_{code}.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys, time
            print("INFO some chatter on stdout")
            sys.stderr.write("a log line\\n")
            time.sleep({sleep})
            sys.stdout.write({stdout!r})
            sys.exit({code})
            """
        ),
        encoding="utf-8",
    )
    return [sys.executable, str(script)]


@pytest.fixture
def manager(api_settings, tmp_path):
    settings = api_settings()
    (tmp_path / "data" / "book.txt").write_text("Dobó István", encoding="utf-8")
    store = StateStore(settings.api.state_dir / "state.sqlite3")
    return RunManager(settings, store, resolve_roots(settings.api.allowed_roots))


def test_parse_job_output_takes_the_indented_json_after_log_lines():
    out = "INFO starting\n{not json\n" + json.dumps(RESULT, indent=2) + "\n"
    result = parse_job_output(out)
    assert result is not None
    assert result.status == "partial" and result.rejects == 1
    assert [s.stage for s in result.stages] == ["documents", "chunks"]


def test_parse_job_output_none_without_a_result():
    assert parse_job_output("Traceback (most recent call last):\n  boom\n") is None


def test_read_markers_by_stage_skipping_unreadable(tmp_path):
    (tmp_path / "_markers" / "documents").mkdir(parents=True)
    (tmp_path / "_markers" / "documents" / "_SUCCESS").write_text('{"stage": "documents", "counts": {"documents": 3}}')
    (tmp_path / "_markers" / "chunks").mkdir(parents=True)
    (tmp_path / "_markers" / "chunks" / "_SUCCESS").write_text("{broken")
    assert read_markers(Lakehouse.for_root(tmp_path)) == {
        "documents": {"stage": "documents", "counts": {"documents": 3}}
    }


def test_run_manager_command_python_runner(manager, tmp_path):
    manager.settings.api.runner = "python"
    manager.settings.spark.master = "local[2]"
    request = RunRequest(inputs=["book.txt"], force=True, stages=["chunks", "documents"])
    record, _ = asyncio.run(_start_only(manager, request))
    command = manager.command(record)
    book = str((tmp_path / "data" / "book.txt").resolve())
    assert command[:4] == [sys.executable, "-m", "jobs.pipeline", book]
    assert command[command.index("--lakehouse") + 1] == str((tmp_path / "data" / "lake").resolve())
    assert command[command.index("--stages") + 1] == "documents,chunks"  # pipeline order
    assert command[command.index("--master") + 1] == "local[2]"
    assert "--force" in command and "--json" in command
    assert command[command.index("--run-id") + 1] == record.run_id


def test_run_manager_command_spark_submit_runner(manager):
    manager.settings.spark.master = "local[2]"
    record, _ = asyncio.run(_start_only(manager, RunRequest(inputs=["book.txt"])))
    command = manager.command(record)
    assert command[0].endswith("spark-submit.sh")
    assert command[1:4] == ["--master", "local[2]", "pipeline"]
    assert "--force" not in command


async def _start_only(manager: RunManager, request: RunRequest):
    manager.command = lambda record: [sys.executable, "-c", "pass"]  # type: ignore[method-assign]
    record, created = manager.start(request)
    await manager.wait(record.run_id)
    del manager.command
    return record, created


def test_run_manager_status_and_stages_come_from_the_job_json(manager, tmp_path):
    command = fake_job(tmp_path, stdout=json.dumps(RESULT, indent=2) + "\n", code=3)

    async def go():
        manager.command = lambda record: command
        record, created = manager.start(RunRequest(inputs=["book.txt"]))
        assert created and record.status == "queued"
        return await manager.wait(record.run_id)

    done = asyncio.run(go())
    assert done.status == "partial" and done.exit_code == 3
    assert done.reason == "1 document rejected"
    assert [(s.stage, s.status, s.counts) for s in done.stage_reports] == [
        ("documents", "succeeded", {"documents": 2}),
        ("chunks", "skipped", {}),
    ]
    assert "a log line" in Path(done.log_file).read_text()


def test_run_manager_job_without_result_is_failed_naming_the_log(manager, tmp_path):
    command = fake_job(tmp_path, stdout="", code=1)

    async def go():
        manager.command = lambda record: command
        record, _ = manager.start(RunRequest(inputs=["book.txt"]))
        return await manager.wait(record.run_id)

    done = asyncio.run(go())
    assert done.status == "failed" and done.exit_code == 1
    assert "exited with code 1" in done.reason and done.log_file in done.reason


def test_run_manager_identical_request_returns_the_running_run(manager, tmp_path):
    command = fake_job(tmp_path, stdout=json.dumps(RESULT | {"status": "succeeded"}, indent=2), code=0, sleep=1.0)

    async def go():
        manager.command = lambda record: command
        first, created_first = manager.start(RunRequest(inputs=["book.txt"]))
        again, created_again = manager.start(RunRequest(inputs=[str(tmp_path / "data" / "book.txt")]))
        forced, created_forced = manager.start(RunRequest(inputs=["book.txt"], force=True))
        await manager.wait(first.run_id)
        await manager.wait(forced.run_id)
        after, created_after = manager.start(RunRequest(inputs=["book.txt"]))
        await manager.wait(after.run_id)
        return first, created_first, again, created_again, forced, created_forced, after, created_after

    first, c1, again, c2, forced, c3, after, c4 = asyncio.run(go())
    assert c1 and not c2 and again.run_id == first.run_id
    assert c3 and forced.run_id != first.run_id  # force makes it a different request
    assert c4 and after.run_id != first.run_id  # the first one finished: a new run
    assert manager.get(first.run_id).status == "succeeded"


def test_run_manager_cancel_kills_the_job(manager, tmp_path):
    command = fake_job(tmp_path, stdout="", code=0, sleep=30)

    async def go():
        manager.command = lambda record: command
        record, _ = manager.start(RunRequest(inputs=["book.txt"]))
        for _ in range(200):
            if manager.get(record.run_id).status == "running" and record.run_id in manager._processes:
                break
            await asyncio.sleep(0.02)
        cancelled = manager.cancel(record.run_id)
        final = await asyncio.wait_for(manager.wait(record.run_id), timeout=10)
        return cancelled, final

    cancelled, final = asyncio.run(go())
    assert cancelled.status == "cancelled" and final.status == "cancelled"


def test_run_manager_refuses_unknown_tool_and_stage(manager):
    with pytest.raises(ProblemError) as tool:
        manager.start(RunRequest(tool="nope", inputs=["book.txt"]))
    assert tool.value.status == 422 and "ner_ingestion" in tool.value.detail and "'nope'" in tool.value.detail
    with pytest.raises(ProblemError) as stage:
        manager.start(RunRequest(inputs=["book.txt"], stages=["chunks", "parsing"]))
    assert "parsing" in stage.value.detail and "documents, chunks, index, mentions" in stage.value.detail


def test_run_manager_restart_marks_active_runs_interrupted(api_settings):
    settings = api_settings()
    store = StateStore(settings.api.state_dir / "state.sqlite3")
    store.put("runs", {"run_id": "old", "status": "running", "created_at": 1.0, "tool": "ner_ingestion",
                       "inputs": [], "lakehouse": "/x", "force": False, "stages": None}, id_field="run_id")
    manager = RunManager(settings, store, resolve_roots(settings.api.allowed_roots))
    record = manager.get("old")
    assert record.status == "failed" and record.reason == "interrupted by restart"


def test_run_manager_reads_the_result_file_before_stdout(manager, tmp_path):
    script = tmp_path / "job_with_file.py"
    result = RESULT | {"status": "succeeded", "reason": None}
    script.write_text(
        "import json, sys\n"
        "print('{ driver log line that looks like json')\n"
        f"open(sys.argv[1], 'w').write(json.dumps({result!r}))\n"
    )

    async def go():
        manager.command = lambda record: [sys.executable, str(script), str(manager.result_file(record.run_id))]
        record, _ = manager.start(RunRequest(inputs=["book.txt"]))
        return await manager.wait(record.run_id)

    done = asyncio.run(go())
    assert done.status == "succeeded" and done.reason is None
    assert [s.stage for s in done.stage_reports] == ["documents", "chunks"]


def test_run_manager_command_asks_for_the_result_file(manager):
    record, _ = asyncio.run(_start_only(manager, RunRequest(inputs=["book.txt"])))
    command = manager.command(record)
    assert command[command.index("--result-file") + 1] == str(manager.log_dir / f"{record.run_id}.json")
