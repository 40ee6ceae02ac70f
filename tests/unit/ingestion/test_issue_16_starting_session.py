"""Issue 16, items 4-5: the Spark session starts in the background while the driver-side stages run.

``ingestion.spark.StartingSession`` stands in for the session until it is there. These tests drive it with a
stand-in session whose start the test releases, to prove the timing rules; the real start is exercised by every
in-process run (``GenericNERIngestionTool`` without an injected session) in the integration tests.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest

from ingestion.spark import StartingSession, made_with_environment, python_worker_environment, real_session


class _Session:
    """What the code under test touches of a SparkSession: its context's worker environment, and a method."""

    def __init__(self) -> None:
        self.sparkContext = SimpleNamespace(environment={"KEPT": "1"})

    def range(self, n: int) -> list[int]:
        return list(range(n))


def _starting(release: threading.Event, session: Any = None, error: Exception | None = None) -> StartingSession:
    def start() -> Any:
        release.wait(5)
        if error is not None:
            raise error
        return session

    return StartingSession(start)


def test_issue_16_a_starting_session_is_waited_for_where_it_is_used() -> None:
    release, session = threading.Event(), _Session()
    starting = _starting(release, session)
    assert not starting.ready
    threading.Timer(0.2, release.set).start()
    assert starting.range(3) == [0, 1, 2]  # waits for the start, then forwards
    assert starting.ready and real_session(starting) is session and real_session(session) is session


def test_issue_16_worker_environment_entered_before_the_session_is_applied_when_it_comes() -> None:
    release, session = threading.Event(), _Session()
    starting = _starting(release, session)
    environment = session.sparkContext.environment
    with python_worker_environment(starting, {"A": "outer", "KEPT": "changed"}):
        with python_worker_environment(starting, {"B": "inner"}):
            release.set()
            starting.session()
            # both layers, applied in order, as if they had been entered on the session itself
            assert environment == {"KEPT": "changed", "A": "outer", "B": "inner"}
        assert environment == {"KEPT": "changed", "A": "outer"}
        with python_worker_environment(starting, {"C": "after"}):  # the session is there: applied at once
            assert environment["C"] == "after"
        assert "C" not in environment
    assert environment == {"KEPT": "1"}


def test_issue_16_worker_environment_left_before_the_session_comes_never_reaches_it() -> None:
    release, session = threading.Event(), _Session()
    starting = _starting(release, session)
    with python_worker_environment(starting, {"GONE": "x"}):
        pass
    release.set()
    assert starting.session().sparkContext.environment == {"KEPT": "1"}


def test_issue_16_a_failed_start_is_raised_where_the_session_is_first_needed() -> None:
    release = threading.Event()
    starting = _starting(release, error=RuntimeError("Java gateway process exited"))
    with python_worker_environment(starting, {"A": "1"}):  # not waited for: nothing fails yet
        release.set()
    with pytest.raises(RuntimeError, match="Java gateway process exited"):
        starting.range(1)
    assert starting.ready


def test_issue_16_a_job_made_from_another_thread_sees_its_environment_and_leaves_none() -> None:
    session = _Session()
    seen = made_with_environment(session, {"NLP": "en"}, lambda: dict(session.sparkContext.environment))
    assert seen == {"KEPT": "1", "NLP": "en"} and session.sparkContext.environment == {"KEPT": "1"}


def test_issue_16_the_pipeline_swaps_in_the_real_session_once_it_is_there() -> None:
    from ingestion.startup import SparkStartup

    release, session = threading.Event(), _Session()
    starting = _starting(release, session)
    ctx = SimpleNamespace(spark=starting, lakehouse=SimpleNamespace(spark=starting))
    SparkStartup(ctx, []).settle_session()  # type: ignore[arg-type]
    assert ctx.spark is starting  # not there yet: the stand-in stays, nobody waits
    release.set()
    starting.session()
    SparkStartup(ctx, []).settle_session()  # type: ignore[arg-type]
    assert ctx.spark is session and ctx.lakehouse.spark is session
