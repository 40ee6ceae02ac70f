"""A run's start-up strategy: when its Spark starts, what its stages begin early, and the environment their Python
workers start with. The pipeline (``ingestion.pipeline.run_stages``) only runs the stages inside it.

A local run's JVM takes ~3 s to start, and a small corpus's first stages (documents, chunks, index) work in the
driver without it; so the session is a stand-in (``ingestion.spark.StartingSession``) started beside them, or not
at all when every stage is foreseen to work in the driver (docs/ingestion.md). Under spark-submit the JVM is up
before the job starts, and the session is there at once.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import TYPE_CHECKING

from ingestion import spark
from ingestion.spark import StartingSession, python_worker_environment
from ingestion.stage import Stage, Started

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from graph.lakehouse import Lakehouse
    from ingestion.context import RunContext
    from settings.config import SparkSettings

logger = logging.getLogger(__name__)


class SparkStartup:
    """The start-up of one run over ``stages``: ``with SparkStartup(ctx, stages) as startup:`` plans when Spark
    starts (``foresee``) and begins what the stages start early (``start_early``); before each stage
    ``settle_session`` swaps in the real session once it is there, and ``startup.stage(index)`` is the context the
    stage runs in; leaving joins what was begun early. The run's session itself comes from ``before_the_lock``
    (a lakehouse on HDFS) or ``session``."""

    @staticmethod
    def before_the_lock(settings: SparkSettings, storage: Lakehouse) -> SparkSession | None:
        """The session a run into HDFS starts before it takes the lock, else None (the run starts its own later).

        Spark's JVM must come before the first hdfs-native client (the lock's): pyspark starts the JVM with
        Popen(preexec_fn=…), which can hang in a process that already runs the client's Rust threads. So an
        in-process run into HDFS starts Spark even when every stage proves up to date (spark-submit.sh's check, in
        its own process, still answers that case without a JVM: ``cli.handshake``).
        """
        return spark.get_spark(settings, storage) if storage.is_hdfs else None

    @staticmethod
    def session(settings: SparkSettings, storage: Lakehouse) -> StartingSession:
        """The session of a run that builds its own: started in the background, beside the first stages — or only
        when a stage needs it, if the run is foreseen to need none (``foresee``). Under spark-submit the JVM is up
        already: its session (and the master it really has) at once."""
        eager = bool(os.environ.get("PYSPARK_GATEWAY_PORT"))
        # Looked up when called, so that a test (or an embedding) replacing ingestion.spark.get_spark is obeyed.
        return StartingSession(lambda: spark.get_spark(settings, storage), eager=eager)

    def __init__(self, ctx: RunContext, stages: Sequence[Stage]) -> None:
        self.ctx = ctx
        self.stages = list(stages)
        self._started: list[Started] = []

    def __enter__(self) -> SparkStartup:
        self.ctx.keeps_processes = True
        self.foresee()
        self._started = self.start_early()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        for started in self._started:
            started.join()
        if self.ctx.ner_pool is not None:  # kept by the mentions stage for the later stages
            self.ctx.ner_pool.close()
            self.ctx.ner_pool = None

    def foresee(self) -> None:
        """Plan the run from what it will read (``RunContext.foreseen_bytes``), and start Spark now unless it is
        foreseen to need none: a corpus within ``ingestion.driver_max_chars`` on a local master whose NER runs in
        processes of the driver (``ingestion.stages.mentions.driver_processes``) has every stage in the driver, and
        a JVM starting beside them would only take a core from them (~3 s of CPU). A wrong guess costs only time: a
        stage that needs Spark starts it then (``StartingSession.session``)."""
        from ingestion.stages.mentions import driver_processes

        ctx = self.ctx
        documents = next((stage for stage in self.stages if stage.name == "documents"), None)
        bytes_to_read = getattr(documents, "bytes_to_read", None)  # a stand-in documents stage may not foresee
        ctx.foreseen_bytes = bytes_to_read(ctx) if bytes_to_read is not None else None
        if not isinstance(ctx.spark, StartingSession) or ctx.spark.started:
            return
        if driver_processes(ctx) == 0 or ctx.foreseen_bytes is None:
            ctx.spark.begin()
            return
        existing = ctx.lakehouse.text_chars()
        if existing + ctx.foreseen_bytes > ctx.settings.ingestion.driver_max_chars:
            ctx.spark.begin()
        else:
            logger.info("Spark not started: every stage of this run is foreseen in the driver (%d + %d characters)",
                        existing, ctx.foreseen_bytes)

    def start_early(self) -> list[Started]:
        """What the stages begin at the run's start (``Stage.start_early``), for those that will have work: a stage
        with something to do, or with a stage before it that has (and so may give it some)."""
        started: list[Started] = []
        pending = False
        # only as far as the last stage that begins anything: the checks cost a listing or a query each
        hooked = [i for i, stage in enumerate(self.stages)
                  if getattr(type(stage), "start_early", Stage.start_early) is not Stage.start_early]
        for stage in self.stages[: hooked[-1] + 1] if hooked else []:
            try:
                pending = pending or self.ctx.force or stage.up_to_date(self.ctx) is None
                thread = stage.start_early(self.ctx) if pending else None
            except Exception:  # noqa: BLE001 - only a head start; the stage's own run reports real problems
                logger.debug("stage %s: early start skipped", stage.name, exc_info=True)
                thread = None
            if thread is not None:
                started.append(thread)
        return started

    def settle_session(self) -> None:
        """The real session in the run's context once a session started in the background is there (its start's
        error raised, for the stage about to run to report): pyspark and Delta get a SparkSession, not its
        stand-in. Called before each stage; it never waits."""
        ctx = self.ctx
        if isinstance(ctx.spark, StartingSession) and ctx.spark.ready:
            ctx.spark = ctx.spark.session()
            ctx.lakehouse.spark = ctx.spark

    @contextmanager
    def stage(self, index: int) -> Iterator[None]:
        """The environment the Python workers of ``stages[index]`` start with: what every stage still to come asks
        for (``Stage.worker_environment``), so the mentions stage's pipeline is loaded by the daemon the run's first
        Python task starts, and not by the daemons of the stages after it — unless this run started that daemon
        (``RunContext.started_worker_environment``): the later stages' tasks then fork from it rather than wait for
        a daemon of their own."""
        environment = dict(self.ctx.started_worker_environment)
        for coming in self.stages[index:]:
            environment.update(coming.worker_environment(self.ctx))
        with python_worker_environment(self.ctx.spark, environment):
            yield
