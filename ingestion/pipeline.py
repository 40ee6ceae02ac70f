"""The stage sequence and how a run walks it."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ingestion.context import RunContext
from ingestion.errors import UnknownStageError
from ingestion.relational import python_processes
from ingestion.routing import settle_corpus_language
from ingestion.stage import Stage
from ingestion.stages.chunks import ChunksStage
from ingestion.stages.cooccurrences import CooccurrencesStage
from ingestion.stages.documents import DocumentsStage
from ingestion.stages.entities import EntitiesStage
from ingestion.stages.graph import GraphStage
from ingestion.stages.index import IndexStage
from ingestion.stages.mentions import MentionsStage
from ingestion.stages.neo4j import Neo4jStage
from ingestion.stages.quotes import QuotesStage
from ingestion.stages.relations import RelationsStage
from ingestion.startup import SparkStartup
from tools.ingestion import STAGE_NAMES as CONTRACT_STAGE_NAMES
from tools.ingestion import StageReport

logger = logging.getLogger(__name__)

STAGES: tuple[type[Stage], ...] = (
    DocumentsStage,
    ChunksStage,
    IndexStage,
    MentionsStage,
    EntitiesStage,
    QuotesStage,
    RelationsStage,
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

    def stop(self, stage: Stage, error: Exception, later: Sequence[Stage]) -> None:
        """Record ``stage``'s failure and report the ``later`` stages not run."""
        self.failed_stage, self.error = stage.name, error
        self.reports.append(StageReport(stage=stage.name, status="failed", reason=_reason(error)))
        self.reports.extend(
            StageReport(stage=other.name, status="not_run", reason=f"stage {stage.name} failed") for other in later
        )


class CorpusLanguage:
    """Settles the corpus's language (``settle_corpus_language``) before the first stage after documents: once, as
    only the documents stage changes the documents table (a read of it costs ~60 ms)."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.settled = False

    def before(self, stage: Stage) -> None:
        """Settle it now if ``stage`` is the first that reads the documents' language."""
        if stage.name != "documents" and not self.settled:
            settle_corpus_language(self.ctx)
            self.settled = True


def up_to_date_reports(ctx: RunContext, stages: list[Stage]) -> list[StageReport] | None:
    """The skipped reports of ``stages`` when every one is up to date, else None — without Spark.

    A rerun with nothing to do (a schedule's next tick, a retried task) is then answered in about a second instead
    of after a JVM's start-up. Anything that cannot be told without Spark counts as not up to
    date: the run then starts Spark and decides stage by stage as always.
    """
    reports = []
    language = CorpusLanguage(ctx)
    try:
        for stage in stages:
            language.before(stage)
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

    When Spark starts, what the stages begin early and their workers' environment are the run's start-up
    strategy (``ingestion.startup.SparkStartup``), not the stages' concern.
    """
    outcome = PipelineOutcome()
    language = CorpusLanguage(ctx)
    with SparkStartup(ctx, stages) as startup:
        for index, stage in enumerate(stages):
            try:
                startup.settle_session()
                language.before(stage)
                with startup.stage(index), python_processes(ctx.ner_pool):
                    outcome.reports.append(stage.run(ctx))
            except Exception as exc:  # noqa: BLE001 - any failure must become a report (R-ING-3); logged with context
                logger.exception("stage %s failed (run %s): %s", stage.name, ctx.run_id, exc)
                outcome.stop(stage, exc, later=stages[index + 1 :])
                break
    return outcome


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
