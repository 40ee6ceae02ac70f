"""Progress bars for ``csillag ingest`` on a terminal (rich); elsewhere the stages' log lines serve."""

from __future__ import annotations

import sys
from typing import Any

from ingestion.progress import LoggingProgress, ProgressReporter


class RichProgress:
    """One bar per long stage, with done/total in the stage's unit and the rate (e.g. words/s)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("{task.description:<10}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[unit]}"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._tasks: dict[str, Any] = {}

    def start(self, stage: str, total: int, unit: str) -> None:
        """Add the stage's bar (starting the display on first use)."""
        if not self._tasks:
            self._progress.start()
        self._tasks[stage] = self._progress.add_task(stage, total=total, unit=unit, rate="")

    def advance(self, stage: str, done: int) -> None:
        """Move the bar and show the rate."""
        task_id = self._tasks.get(stage)
        if task_id is None:
            return
        self._progress.advance(task_id, done)
        task = self._progress.tasks[task_id]
        speed = task.speed or (task.completed / task.elapsed if task.elapsed else 0)
        self._progress.update(task_id, rate=f"{speed:,.0f} {task.fields['unit']}/s")

    def finish(self, stage: str) -> None:
        """Complete the bar; stop the display when no bar is left running."""
        task_id = self._tasks.pop(stage, None)
        if task_id is not None:
            self._progress.update(task_id, completed=self._progress.tasks[task_id].total)
        if not self._tasks:
            self._progress.stop()


def progress_for_terminal(quiet: bool) -> ProgressReporter:
    """Bars when stderr is a terminal and the user did not ask for quiet; log lines otherwise."""
    if not quiet and sys.stderr.isatty():
        try:
            return RichProgress()
        except ImportError:  # rich is a dependency, but a trimmed install must still ingest
            pass
    return LoggingProgress()
