"""The ``Stage`` base: marker, skip, clear-then-commit logic written once (template method, R-ING-2).

A stage declares its name, the table it writes and the stages it reads. ``Stage.run`` decides from the marker whether
the work is already done for these inputs and settings; if not, it clears the marker, lets the subclass ``compute``
(which commits its Delta table atomically) and only then writes the new marker. A crash anywhere leaves either the old
state with no marker, or the committed table with no marker: both make the rerun redo the stage, and incremental
stages are written so that redoing them cannot duplicate rows.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from ingestion.markers import Marker, fingerprint
from tools.ingestion import StageReport

if TYPE_CHECKING:
    from ingestion.context import RunContext

logger = logging.getLogger(__name__)


class Started(Protocol):
    """What a stage begins early (``Stage.start_early``): the run joins it at its end."""

    def join(self) -> None:
        """Wait for it to end (a thread), or end it (processes)."""


@dataclass
class StageOutput:
    """What ``compute`` returns: row counts, the fingerprint of what was produced, and free-form details."""

    counts: dict[str, int]
    output_fingerprint: str
    details: dict[str, Any] = field(default_factory=dict)


class Stage(ABC):
    """One pipeline stage writing one or more Delta tables (or, overriding ``outputs_exist``, other files); see the
    module docstring for the contract."""

    name: ClassVar[str]
    # Bumped when the stage's output changes for the same inputs and settings, so existing markers stop matching
    # (spaCy versions its registered names the same way): part of the config fingerprint.
    version: ClassVar[int]
    tables: ClassVar[tuple[str, ...]]
    requires: ClassVar[tuple[str, ...]] = ()
    # The marker of the stage's last complete run, as ``run`` found it before clearing it (None: none, or a crashed
    # run cleared it): what an incremental ``compute`` may extend.
    previous: Marker | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Checked when the class is defined, not when it first runs (neo4j-graphrag's habit).
        if getattr(cls, "__abstractmethods__", None):
            return
        if not isinstance(getattr(cls, "name", None), str):
            raise TypeError(f"stage class {cls.__name__} must set the class attribute 'name' to a string")
        version = getattr(cls, "version", None)
        if type(version) is not int or version < 1:  # not isinstance: True is an int
            raise TypeError(
                f"stage class {cls.__name__} must set the class attribute 'version' to a positive int, "
                f"not {version!r} (bump it when the stage's output changes for the same settings)"
            )
        tables = getattr(cls, "tables", None)
        # A stage without tables must say how its output is found, or the skip check would find it always there.
        own_check = cls.outputs_exist is not Stage.outputs_exist
        if not isinstance(tables, tuple) or not all(isinstance(t, str) for t in tables) or not (tables or own_check):
            raise TypeError(
                f"stage class {cls.__name__} must set 'tables' to a non-empty tuple of table names "
                "(or to () and override outputs_exist)"
            )

    def config(self, ctx: RunContext) -> dict[str, Any]:
        """The stage's own settings its output depends on (JSON-serialisable); default none. Override to add them.

        ``config_fingerprint`` adds the stage's name and version, so the dict must not use the keys ``stage`` and
        ``version``.
        """
        return {}

    def config_fingerprint(self, ctx: RunContext) -> str:
        """Name, version and ``config``: a change of any of them redoes the stage."""
        return self.versioned_fingerprint(self.config(ctx))

    def versioned_fingerprint(self, config: dict[str, Any]) -> str:
        """The fingerprint of ``config`` with the stage's name and version, as ``config_fingerprint`` makes it."""
        taken = sorted({"stage", "version"} & set(config))
        if taken:
            raise TypeError(f"stage {self.name}: its config must not set {', '.join(taken)} (the base adds them)")
        return fingerprint({"stage": self.name, "version": self.version, **config})

    def input_fingerprint(self, ctx: RunContext) -> str:
        """By default: what the upstream stages produced, as their markers say."""
        upstream = {}
        for stage in self.requires:
            marker = ctx.lakehouse.markers.read(stage)
            upstream[stage] = marker.output_fingerprint if marker else None
        return fingerprint(upstream)

    def outputs_exist(self, ctx: RunContext) -> bool:
        """Whether what the stage wrote is still there: by default its tables. A stage writing files overrides it."""
        return all(ctx.lakehouse.exists(table) for table in self.tables)

    def worker_environment(self, ctx: RunContext) -> dict[str, str]:
        """Variables for the Python workers (e.g. a pipeline for the daemon to preload); default none.

        The pipeline sets them for this stage and every stage before it in the run, not only for this stage's jobs:
        Spark starts one daemon per worker environment, so those stages' workers come from the same daemon, started
        by the run's first Python task (``ingestion.startup.SparkStartup.stage``). A stage that starts its daemon
        records the environment in ``RunContext.started_worker_environment``, and the stages after it reuse that
        daemon.
        """
        return {}

    def start_early(self, ctx: RunContext) -> Started | None:
        """Work the stage may begin when the run starts, beside the stages before it (the mentions stage: its Python
        workers' start), as a started thread the run joins at its end; default none. Called only when the stage or
        one before it has work to do; a job it makes carries the environment it gives itself (the session may still
        be starting: ``ingestion.spark.made_with_environment``). Anything the run can ``join`` at its end: a thread,
        or the mentions stage's NER processes (joining them ends them)."""
        return None

    @abstractmethod
    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Do the work and commit the tables.

        ``incremental`` is True when the tables on disk were written (completely or, after a crash, partly) with the
        same settings, so a stage may update them instead of rewriting them; False means start from nothing.
        """

    def derived_fingerprint(self, ctx: RunContext) -> str:
        """Output fingerprint of a deterministic stage: a function of its inputs and settings only."""
        return fingerprint([self.input_fingerprint(ctx), self.config_fingerprint(ctx)])

    def up_to_date(self, ctx: RunContext) -> StageReport | None:
        """The skipped report when the stage is done for these inputs and settings and its output is there, else None.

        Reads markers, the inputs' listing and table metadata only, never through Spark: a run whose stages are all
        up to date is answered before a JVM starts (``ingestion.pipeline.up_to_date_reports``).
        """
        marker = self._done(ctx, self.config_fingerprint(ctx), self.input_fingerprint(ctx))
        return self.skipped(marker) if marker is not None else None

    def _done(self, ctx: RunContext, config_fp: str, input_fp: str) -> Marker | None:
        previous = ctx.lakehouse.markers.read(self.name)
        if (
            previous is not None
            and previous.config_fingerprint == config_fp
            and previous.input_fingerprint == input_fp
            and self.outputs_exist(ctx)
        ):
            return previous
        return None

    def skipped(self, marker: Marker) -> StageReport:
        """The report of a stage found up to date: its marker's counts and details."""
        logger.info("stage %s: up to date (marker of run %s), skipped", self.name, marker.run_id)
        return StageReport(
            stage=self.name, status="skipped", reason="up to date", counts=marker.counts, details=marker.details
        )

    def run(self, ctx: RunContext) -> StageReport:
        """Skip when done for these inputs and settings, else compute and mark; errors propagate to the tool."""
        store = ctx.lakehouse.markers
        config_fp = self.config_fingerprint(ctx)
        input_fp = self.input_fingerprint(ctx)
        if not ctx.force:
            previous = self._done(ctx, config_fp, input_fp)
            if previous is not None:
                return self.skipped(previous)
        ctx.lakehouse.check_confined()  # before the first write: the marker's clear
        # Tables written with other settings must be rebuilt: updating them would mix two configurations.
        incremental = not ctx.force and store.started_config(self.name) == config_fp and self.outputs_exist(ctx)
        self.previous = store.read(self.name) if incremental else None
        store.clear(self.name)
        store.state_digests.pop(self.name, None)
        store.mark_started(self.name, run_id=ctx.run_id, config_fingerprint=config_fp)
        started = time.perf_counter()
        logger.info("stage %s: running (%s)", self.name, "incremental" if incremental else "from scratch")
        output = self.compute(ctx, incremental)
        seconds = round(time.perf_counter() - started, 3)
        store.write(
            Marker(
                stage=self.name,
                run_id=ctx.run_id,
                config_fingerprint=config_fp,
                input_fingerprint=input_fp,
                output_fingerprint=output.output_fingerprint,
                counts=output.counts,
                seconds=seconds,
                details=output.details,
                state_sha256=store.state_digests.pop(self.name, None),
            )
        )
        logger.info("stage %s: done in %.1fs %s", self.name, seconds, output.counts)
        return StageReport(
            stage=self.name, status="succeeded", counts=output.counts, seconds=seconds, details=output.details
        )
