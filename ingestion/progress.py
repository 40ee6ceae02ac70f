"""Progress of long stages: how much of the work is done, in the stage's own unit (documents, chunks, words).

Stages report through the run's ``ProgressReporter``; the default writes log lines with the rate, the command line
shows bars (``cli/progress.py``). Reporters must be cheap: they are called once per committed batch, not per row.
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

logger = logging.getLogger(__name__)


class ProgressReporter(Protocol):
    """Receives a stage's progress: ``start`` once, ``advance`` per step, ``finish`` once."""

    def start(self, stage: str, total: int, unit: str) -> None:
        """The stage begins ``total`` units of work."""

    def advance(self, stage: str, done: int) -> None:
        """``done`` more units are finished (committed)."""

    def finish(self, stage: str) -> None:
        """The stage's work is over (also after a failure)."""


class LoggingProgress:
    """The default: one log line per step with the share done and the rate (e.g. words/s)."""

    def __init__(self) -> None:
        self._state: dict[str, tuple[int, int, str, float]] = {}

    def start(self, stage: str, total: int, unit: str) -> None:
        """Remember the total and the clock."""
        self._state[stage] = (total, 0, unit, time.perf_counter())
        logger.info("%s: %d %s to process", stage, total, unit)

    def advance(self, stage: str, done: int) -> None:
        """Log the share done and the rate so far."""
        total, previous, unit, started = self._state.get(stage, (0, 0, "items", time.perf_counter()))
        current = previous + done
        self._state[stage] = (total, current, unit, started)
        elapsed = time.perf_counter() - started
        rate = current / elapsed if elapsed > 0 else 0.0
        logger.info("%s: %d/%d %s, %.0f %s/s", stage, current, total, unit, rate, unit)

    def finish(self, stage: str) -> None:
        """Forget the stage."""
        self._state.pop(stage, None)
