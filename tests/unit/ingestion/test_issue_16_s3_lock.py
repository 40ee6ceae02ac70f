"""The lakehouse lock in an S3 bucket: a conditional create, a conditional take-over, a conditional release."""

from __future__ import annotations

import os
import socket
from typing import Any

import pytest

from graph.lakehouse import Lakehouse
from graph.settings import S3Settings
from ingestion.lock import LOCK_FILE, LakehouseBusyError, LakehouseLock, LockHolder, read_holder

pytestmark = pytest.mark.s3


def _storage(s3_bucket: tuple[str, S3Settings]) -> Lakehouse:
    bucket, s3 = s3_bucket
    return Lakehouse.for_root(f"s3a://{bucket}/lake", s3)


def test_issue_16_s3_lock_refuses_a_second_holder_and_is_released(s3_bucket: Any) -> None:
    storage = _storage(s3_bucket)
    with LakehouseLock(storage, run_id="run-A", tool="t"):
        holder = read_holder(storage)
        assert holder is not None and (holder.run_id, holder.pid) == ("run-A", os.getpid())
        with pytest.raises(LakehouseBusyError, match=r"s3a://.*/lake is being written by run run-A") as caught:
            LakehouseLock(storage, run_id="run-B", tool="t").acquire()
        assert caught.value.holder is not None and caught.value.holder.run_id == "run-A"
    assert read_holder(storage) is None
    with LakehouseLock(storage, run_id="run-B", tool="t"):  # free again
        assert read_holder(storage).run_id == "run-B"  # type: ignore[union-attr]


def test_issue_16_s3_stale_lock_is_taken_over_once(s3_bucket: Any, caplog: pytest.LogCaptureFixture) -> None:
    storage = _storage(s3_bucket)
    # our pid, recorded with another process start time: the holder is gone and the pid reused
    dead = LockHolder(run_id="run-dead", tool="t", pid=os.getpid(), host=socket.gethostname(),
                      started_at="2026-01-01T00:00:00+00:00", process_start=-1)
    assert storage.create_text(LOCK_FILE, data=dead.model_dump_json()) is not None
    _, stale_tag = storage.read_tagged(LOCK_FILE)  # type: ignore[misc]
    with caplog.at_level("WARNING"), LakehouseLock(storage, run_id="run-new", tool="t") as lock:
        assert "took over the stale lock of run run-dead" in caplog.text
        assert read_holder(storage).run_id == "run-new"  # type: ignore[union-attr]
        # a second run that read the same stale lock cannot take it over too: its If-Match names the old ETag
        assert storage.replace_text(LOCK_FILE, data="run-late", tag=stale_tag) is None
        assert lock.held
    assert read_holder(storage) is None


def test_issue_16_s3_release_leaves_a_lock_that_is_no_longer_ours(s3_bucket: Any) -> None:
    storage = _storage(s3_bucket)
    lock = LakehouseLock(storage, run_id="run-1", tool="t")
    lock.acquire()
    _, tag = storage.read_tagged(LOCK_FILE)  # type: ignore[misc]
    other = LockHolder(run_id="run-2", tool="t", pid=os.getpid(), host=socket.gethostname(), started_at="now")
    assert storage.replace_text(LOCK_FILE, data=other.model_dump_json(), tag=tag) is not None
    lock.release()
    assert read_holder(storage).run_id == "run-2"  # type: ignore[union-attr]
