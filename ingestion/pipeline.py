"""The stage sequence and how a run walks it."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from ingestion.context import RunContext
from ingestion.errors import UnknownStageError
from ingestion.routing import settle_corpus_language
from ingestion.spark import StartingSession, python_worker_environment
from ingestion.stage import Stage, Started
from ingestion.stages.chunks import ChunksStage
from ingestion.stages.cooccurrences import CooccurrencesStage
from ingestion.stages.documents import DocumentsStage
from ingestion.stages.entities import EntitiesStage
from ingestion.stages.graph import GraphStage
from ingestion.stages.index import IndexStage
from ingestion.stages.mentions import MentionsStage
from ingestion.stages.neo4j import Neo4jStage
from tools.ingestion import STAGE_NAMES as CONTRACT_STAGE_NAMES
from tools.ingestion import StageReport

logger = logging.getLogger(__name__)

STAGES: tuple[type[Stage], ...] = (
    DocumentsStage,
    ChunksStage,
    IndexStage,
    MentionsStage,
    EntitiesStage,
    CooccurrencesStage,
    GraphStage,
    Neo4jStage,
)
STAGE_NAMES: tuple[str, ...] = tuple(stage.name for stage in STAGES)
if STAGE_NAMES != CONTRACT_STAGE_NAMES:  # the contract's list is what the API validates against
    raise RuntimeError(f"pipeline stages {STAGE_NAMES} differ from tools.ingestion.STAGE_NAMES {CONTRACT_STAGE_NAMES}")


def select_stages(names: list[str] | None) -> list[Stage]:
    """The stages to run, in pipeline order; an unknown name is an error listing the valid ones."""
    if not names:
        return [stage() for stage in STAGES]
    unknown = [name for name in names if name not in STAGE_NAMES]
    if unknown:
        raise UnknownStageError(
            f"unknown stage(s) {', '.join(map(repr, unknown))}; valid stages: {', '.join(STAGE_NAMES)}"
        )
    return [stage() for stage in STAGES if stage.name in names]


@dataclass
class PipelineOutcome:
    """Per-stage reports, and the failure that stopped the run (if any)."""

    reports: list[StageReport] = field(default_factory=list)
    failed_stage: str | None = None
    error: Exception | None = None


def up_to_date_reports(ctx: RunContext, stages: list[Stage]) -> list[StageReport] | None:
    """The skipped reports of ``stages`` when every one is up to date, else None — without Spark.

    A rerun with nothing to do (a schedule's next tick, a retried task) is then answered in about a second instead
    of after a JVM's start-up. Anything that cannot be told without Spark counts as not up to
    date: the run then starts Spark and decides stage by stage as always.
    """
    reports = []
    settled = False
    try:
        for stage in stages:
            if stage.name != "documents" and not settled:
                settle_corpus_language(ctx)  # once: only the documents stage changes the documents table
                settled = True
            report = stage.up_to_date(ctx)
            if report is None:
                logger.debug("stage %s is not up to date: the run needs Spark", stage.name)
                return None
            reports.append(report)
    except Exception as exc:  # noqa: BLE001 - the check is an optimisation: the run itself reports real problems
        logger.debug("up-to-date check without Spark gave up (%s: %s); the run starts Spark", type(exc).__name__, exc)
        return None
    return reports


def run_stages(ctx: RunContext, stages: list[Stage]) -> PipelineOutcome:
    """Run the stages in order; the first failure stops the run and the later stages are reported not run.

    Each stage's Python workers get the environment every stage still to come asks for (``worker_environment``),
    so the mentions stage's pipeline is loaded by the daemon the run's first Python task starts, and not by the
    daemons of the stages after it — unless this run started that daemon (``RunContext.started_worker_environment``):
    the later stages' tasks then fork from it rather than wait for a daemon of their own.
    """
    outcome = PipelineOutcome()
    foresee(ctx, stages)
    early = _start_early(ctx, stages)
    try:
        _run_each(ctx, stages, outcome)
    finally:
        for thread in early:
            thread.join()
    return outcome


def foresee(ctx: RunContext, stages: list[Stage]) -> None:
    """Plan the run from what it will read (``RunContext.foreseen_bytes``), and start Spark now unless it is
    foreseen to need none: a corpus within ``ingestion.driver_max_chars`` on a local master whose NER runs in
    processes of the driver (``ingestion.stages.mentions.driver_processes``) has every stage in the driver, and a
    JVM starting beside them would only take a core from them (~3 s of CPU). A wrong guess costs only time: a
    stage that needs Spark starts it then (``StartingSession.session``)."""
    from ingestion.stages.mentions import driver_processes

    documents = next((stage for stage in stages if stage.name == "documents"), None)
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


def _start_early(ctx: RunContext, stages: list[Stage]) -> list[Started]:
    """What the stages begin at the run's start (``Stage.start_early``), for those that will have work: a stage
    with something to do, or with a stage before it that has (and so may give it some)."""
    started: list[Started] = []
    pending = False
    # only as far as the last stage that begins anything: the checks cost a listing or a query each
    hooked = [i for i, stage in enumerate(stages)
              if getattr(type(stage), "start_early", Stage.start_early) is not Stage.start_early]
    for stage in stages[: hooked[-1] + 1] if hooked else []:
        try:
            pending = pending or ctx.force or stage.up_to_date(ctx) is None
            thread = stage.start_early(ctx) if pending else None
        except Exception:  # noqa: BLE001 - only a head start; the stage's own run reports real problems
            logger.debug("stage %s: early start skipped", stage.name, exc_info=True)
            thread = None
        if thread is not None:
            started.append(thread)
    return started


def _run_each(ctx: RunContext, stages: list[Stage], outcome: PipelineOutcome) -> None:
    settled = False
    for index, stage in enumerate(stages):
        try:
            _settle_session(ctx)
            if stage.name != "documents" and not settled:
                # Documents in: with detected languages, the corpus's language is the run's from here on;
                # once, as only the documents stage changes the documents table (a read of it costs ~60 ms).
                settle_corpus_language(ctx)
                settled = True
            environment = dict(ctx.started_worker_environment)
            for coming in stages[index:]:
                environment.update(coming.worker_environment(ctx))
            with python_worker_environment(ctx.spark, environment):
                outcome.reports.append(stage.run(ctx))
        except Exception as exc:  # noqa: BLE001 - any failure must become a report (R-ING-3); logged with context
            logger.exception("stage %s failed (run %s): %s", stage.name, ctx.run_id, exc)
            outcome.failed_stage, outcome.error = stage.name, exc
            outcome.reports.append(StageReport(stage=stage.name, status="failed", reason=_reason(exc)))
            outcome.reports.extend(
                StageReport(stage=later.name, status="not_run", reason=f"stage {stage.name} failed")
                for later in stages[index + 1 :]
            )
            break


def _settle_session(ctx: RunContext) -> None:
    """The real session in the run's context once a session started in the background is there (its start's error
    raised, for the stage about to run to report): pyspark and Delta get a SparkSession, not its stand-in."""
    if isinstance(ctx.spark, StartingSession) and ctx.spark.ready:
        ctx.spark = ctx.spark.session()
        ctx.lakehouse.spark = ctx.spark


def _reason(exc: Exception) -> str:
    """One line for the result: our errors carry their message; foreign ones their type too."""
    from ingestion.errors import IngestionError

    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    if isinstance(exc, IngestionError):
        return lines[0] if lines else type(exc).__name__
    # A Python worker's failure arrives wrapped in a JVM trace: its last "SomeError: …" line is the cause.
    causes = [
        line for line in lines if re.match(r"^[\w.]+(Error|Exception): ", line) and "Driver stacktrace" not in line
    ]
    text = causes[-1] if causes else (lines[0] if lines else "")
    return f"{type(exc).__name__}: {text}"[:500]
