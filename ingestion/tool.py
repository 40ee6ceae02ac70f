"""``AbstractNERIngestionTool``: the whole Spark NER pipeline; a domain supplies only its domain part (R-NER-1).

A domain subclass sets class attributes (``name``, ``language``, ``spacy_model``, ``entity_labels``) and may override
``entity_patterns()``, ``alias_table()`` and ``unit_patterns()``. Like every plugin it has a no-argument constructor
(R-PLUG-1); its collaborators (settings, a Spark session) arrive through injected fields and are wired in ``init()``
through the protected setters (R-PLUG-2). ``execute_ingestion`` is idempotent through the stage markers (R-ING-2) and
never raises: every failure is logged with its stage and cause and returned as a ``failed``/``partial`` result
(R-ING-3). The chat methods are the contract's stubs (R-ING-4).

A run owns the lakehouse it writes: it takes ``ingestion.lock.LakehouseLock`` before its first stage (a lakehouse
held by another run gives a ``busy`` result naming the holder, after waiting ``request.wait_seconds``) and releases
it at the end, failed or not. A run that completed publishes its table versions (``ingestion.publish``): readers see
the tables only as the last completed run left them.
"""

from __future__ import annotations

import logging
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from graph.storage import LakehouseStorage
from ingestion.context import DomainSpec, RunContext
from ingestion.errors import IngestionError
from ingestion.language_models import default_pipeline
from ingestion.lock import LakehouseBusyError, LakehouseLock
from ingestion.nlp import NlpSpec
from ingestion.progress import LoggingProgress, ProgressReporter
from settings.config import CsillagSettings, load_settings
from tools.errors import ToolError
from tools.ingestion import EntityExplanation, IngestionRequest, IngestionResult, IngestionTool, StageReport
from tools.plugins import Injected

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from graph.storage import LakehouseStorage
    from ingestion.chunking import UnitPatterns
    from ingestion.pipeline import PipelineOutcome
    from ingestion.stage import Stage

logger = logging.getLogger(__name__)


class AbstractNERIngestionTool(IngestionTool, abstract=True):
    """Spark NER ingestion (platform ``AbstractNERIngestionTool``; R-NER-1, R-ING-1..4, R-PLUG-1/2)."""

    language: ClassVar[str] = "en"
    # None: the language's default pipeline and labels (ingestion/language_models.py); "": rules only.
    spacy_model: ClassVar[str | None] = None
    entity_labels: ClassVar[tuple[str, ...] | None] = None
    phrase_matcher_attr: ClassVar[str | None] = None
    # True: each document's language is detected (documents stage) and NER routes by it; unless ner.language pins
    # one, when every document is that language (and others are rejected as wrong_language).
    detects_language: ClassVar[bool] = False

    settings: Injected[CsillagSettings | None]

    def __init__(self) -> None:
        self._settings: CsillagSettings | None = None
        self._spark: SparkSession | None = None
        self._progress: ProgressReporter | None = None

    # -- wiring (R-PLUG-2) -------------------------------------------------------------------------------------------
    def init(self) -> None:
        """Wire the injected settings; without a container, load them from conf/ and the environment."""
        injected = getattr(self, "settings", None)
        self.set_settings(injected if injected is not None else load_settings())

    def set_settings(self, settings: CsillagSettings) -> None:
        """Protected setter: the settings every run uses."""
        self._settings = settings

    def set_spark_session(self, spark: SparkSession) -> None:
        """Protected setter: use this session instead of building one from the settings."""
        self._spark = spark

    def set_progress(self, reporter: ProgressReporter) -> None:
        """Protected setter: where long stages report progress (default: log lines with the rate)."""
        self._progress = reporter

    # -- the domain part (override) ----------------------------------------------------------------------------------
    def entity_patterns(self) -> list[dict[str, Any]]:
        """EntityRuler patterns (spaCy format) for the domain's names; an ``id`` names the canonical entity."""
        return []

    def alias_table(self) -> dict[str, list[str]]:
        """Canonical name → aliases, applied before any merging heuristic."""
        return {}

    def unit_patterns(self) -> UnitPatterns | None:
        """How a document splits into parts and chapters; None = the language's default headings."""
        return None

    def domain_spec(self) -> DomainSpec:
        """The domain part, with ``ner.*`` settings overriding the class defaults.

        Raises:
            AliasTableError, GoldListError: ``ner.alias_table`` or ``ner.gold_list`` is unreadable or malformed.
        """
        ner = self._require_settings().ner
        language = ner.language or self.language
        own = language == self.language  # the class's model and labels are for its own language only
        default = default_pipeline(language)
        if ner.model is not None:
            model: str | None = ner.model
        elif self.spacy_model is not None and own:
            model = self.spacy_model
        else:
            model = default.model if default is not None else None
        if ner.labels is not None:
            labels: tuple[str, ...] = tuple(ner.labels)
        elif self.entity_labels is not None and own:
            labels = self.entity_labels
        else:
            labels = default.labels if default is not None else ()
        nlp = NlpSpec(
            language=language,
            model=model or None,
            patterns=tuple(self.entity_patterns()),
            labels=labels,
            batch_size=ner.batch_size,
            cached_words=ner.cached_words,
            phrase_matcher_attr=self.phrase_matcher_attr,
        )
        gold = None
        if ner.gold_list is not None:
            from ingestion.resolution_eval import load_gold

            gold = tuple(load_gold(ner.gold_list))
        return DomainSpec(
            name=self.get_name(),
            language=language,
            nlp=nlp,
            alias_table=self._merged_alias_table(ner.alias_table),
            unit_patterns=self.unit_patterns(),
            gold=gold,
            gold_path=str(ner.gold_list) if ner.gold_list is not None else None,
            detect_language=ner.language is None and self.detects_language,
        )

    # -- the contract ------------------------------------------------------------------------------------------------
    def explain_entity(self, name: str, lakehouse: LakehouseStorage) -> list[EntityExplanation]:
        """The entities ``name`` names and their resolution traces, recomputed from the lakehouse's mentions under
        these settings (``ingestion.explain``); ``ToolError`` for a resolution rule the settings name wrongly."""
        from ingestion.explain import explain_name
        from ingestion.resolution import UnknownRuleError

        settings, domain = self._require_settings(), self.domain_spec()
        try:
            return explain_name(
                lakehouse, name, language=domain.language, alias_table=domain.alias_table,
                disabled_rules=settings.ingestion.disabled_resolution_rules,
                by_document=(settings.ingestion.entity_scope or domain.entity_scope) == "document",
            )
        except UnknownRuleError as exc:
            raise ToolError(str(exc), tool_name=self.get_name()) from None

    def execute_ingestion(self, request: IngestionRequest) -> IngestionResult:
        """Run the pipeline for the request; never raises (R-ING-3)."""
        run_id = request.run_id or new_run_id()
        try:
            return self._execute(request, run_id)
        except LakehouseBusyError as exc:  # not a failure of this run: it did not start
            logger.warning("ingestion run %s not started: %s", run_id, exc)
            return IngestionResult(run_id=run_id, status="busy", reason=str(exc))
        except Exception as exc:  # noqa: BLE001 - R-ING-3: nothing may escape to the ingestion pipeline
            stage = exc.stage if isinstance(exc, IngestionError) else None
            # Our own errors explain themselves; anything else gets its traceback in the log.
            logger.error(
                "ingestion run %s failed%s: %s",
                run_id,
                f" in stage {stage}" if stage else "",
                exc,
                exc_info=not isinstance(exc, IngestionError),
            )
            reason = str(exc) if isinstance(exc, IngestionError) else f"{type(exc).__name__}: {exc}"
            reports = [StageReport(stage=stage, status="failed", reason=reason)] if stage else []
            return IngestionResult(run_id=run_id, status="failed", reason=reason, stages=reports)

    def _execute(self, request: IngestionRequest, run_id: str) -> IngestionResult:
        from ingestion.pipeline import select_stages
        from ingestion.startup import SparkStartup

        settings = self._require_settings()
        stages = select_stages(request.stages)
        domain = self.domain_spec()
        if domain.nlp.model:  # an unknown model fails before Spark starts, not in a worker
            from ingestion.nlp import resolve_model_name

            resolve_model_name(domain.nlp.model)
        # Locked before Spark starts: a busy lakehouse is reported in a second, not after the JVM's start-up.
        lock = LakehouseLock(
            settings.lakehouse.storage(), run_id=run_id, tool=self.get_name(), wait_seconds=request.wait_seconds
        )
        spark = self._spark
        if spark is None:
            spark = SparkStartup.before_the_lock(settings.spark, lock.storage)
        with lock:
            try:
                return self._run_or_answer(request, run_id, stages, domain, spark, lock.storage)
            finally:
                lock.storage.remove_delta_twins()

    def _run_or_answer(
        self, request: IngestionRequest, run_id: str, stages: list[Stage], domain: DomainSpec,
        spark: SparkSession | None, storage: LakehouseStorage,
    ) -> IngestionResult:
        """Under the lock: the answer of a run whose every stage is up to date, else the run."""
        from ingestion.publish import ensure_baseline
        from ingestion.startup import SparkStartup

        settings = self._require_settings()
        ensure_baseline(storage)
        if not request.force:
            answered = self._run_up_to_date(request, run_id, stages, domain)
            if answered is not None:
                return answered
        if spark is None:
            spark = SparkStartup.session(settings.spark, storage)  # type: ignore[assignment]
        return self._run_locked(request, run_id, stages, domain, spark)  # type: ignore[arg-type]

    def run_if_up_to_date(self, request: IngestionRequest) -> IngestionResult | None:
        """The run's result when every requested stage is up to date and published, found without Spark; else None.

        What ``spark-submit.sh`` asks before it starts a JVM. It only reads — markers, inputs,
        table metadata, the publish manifest — so it takes no lock and can make no other run "busy"; anything left to
        do, publishing included, is the run proper's (which locks). Never raises: a problem means "ask the run".
        """
        from ingestion.pipeline import PipelineOutcome, select_stages, up_to_date_reports
        from ingestion.publish import is_published

        settings = self._require_settings()
        if request.force or not _has_markers(settings):
            return None  # nothing can be up to date in a lakehouse without markers: leave it untouched
        run_id = request.run_id or new_run_id()
        try:
            stages = select_stages(request.stages)
            ctx = self._context(request, run_id, self.domain_spec(), spark=None)
            reports = up_to_date_reports(ctx, stages)
            if reports is None or not is_published(ctx.lakehouse.storage):
                return None
        except Exception as exc:  # noqa: BLE001 - any problem is the run proper's to report, with Spark or without
            logger.debug("up-to-date check of run %s gave up: %s", run_id, exc)
            return None
        logger.info("ingestion run %s: every stage is up to date; Spark not started", run_id)
        return self._finish(ctx, stages, PipelineOutcome(reports=reports), publishing=False)

    def _run_up_to_date(
        self, request: IngestionRequest, run_id: str, stages: list[Stage], domain: DomainSpec
    ) -> IngestionResult | None:
        from ingestion.pipeline import PipelineOutcome, up_to_date_reports

        ctx = self._context(request, run_id, domain, spark=None)
        reports = up_to_date_reports(ctx, stages)
        if reports is None:
            return None
        logger.info("ingestion run %s: every stage is up to date; Spark not started", run_id)
        return self._finish(ctx, stages, PipelineOutcome(reports=reports))

    def _context(
        self, request: IngestionRequest, run_id: str, domain: DomainSpec, spark: SparkSession | None
    ) -> RunContext:
        from ingestion.lakehouse import Lakehouse

        settings = self._require_settings()
        lakehouse = Lakehouse(
            settings.lakehouse.storage(), spark,  # type: ignore[arg-type] # None: no table is read
            driver_max_chars=settings.ingestion.driver_max_chars,
            driver_max_delete_bytes=settings.ingestion.driver_max_delete_bytes,
        )
        lakehouse.check_writable()
        return RunContext(
            spark=spark,  # type: ignore[arg-type]
            settings=settings,
            lakehouse=lakehouse,
            domain=domain,
            run_id=run_id,
            inputs=list(request.inputs),
            force=request.force,
            options=dict(request.options),
            progress=self._progress or LoggingProgress(),
        )

    def _run_locked(
        self, request: IngestionRequest, run_id: str, stages: list[Stage], domain: DomainSpec, spark: SparkSession
    ) -> IngestionResult:
        from ingestion.pipeline import run_stages

        ctx = self._context(request, run_id, domain, spark)
        logger.info(
            "ingestion run %s: %s over %s into %s", run_id, self.get_name(), request.inputs, ctx.lakehouse.root
        )
        return self._finish(ctx, stages, run_stages(ctx, stages))

    def _finish(
        self, ctx: RunContext, stages: list[Stage], outcome: PipelineOutcome, publishing: bool = True
    ) -> IngestionResult:
        """The run's result from its stage reports; a run that completed is published (when ``publishing``)."""
        from ingestion.pipeline import STAGE_NAMES
        from ingestion.publish import publish

        run_id = ctx.run_id
        status: Literal["succeeded", "partial", "failed", "skipped"]
        counts: dict[str, int] = {}
        for report in outcome.reports:
            counts.update({f"{report.stage}.{key}": value for key, value in report.counts.items()})
        rejects = next((r.counts.get("rejects", 0) for r in outcome.reports if r.stage == "documents"), 0)
        if outcome.error is not None:
            status, reason = "failed", f"stage {outcome.failed_stage}: {_first_failed(outcome.reports)}"
        elif all(r.status == "skipped" for r in outcome.reports):
            status, reason = "skipped", "every stage was up to date"
        elif rejects:
            status, reason = "partial", f"{rejects} document(s) rejected; see the rejects table"
        else:
            status, reason = "succeeded", None
        if status != "failed" and publishing:
            whole = [stage.name for stage in stages] == list(STAGE_NAMES)
            publish(ctx, stages, tool=self.get_name(), whole_pipeline=whole)
        return IngestionResult(
            run_id=run_id, status=status, reason=reason, stages=outcome.reports, counts=counts, rejects=rejects
        )

    def _merged_alias_table(self, path: Path | None) -> dict[str, Any]:
        """The domain's alias table, plus the configured file's entries (which win on a shared canonical name)."""
        table: dict[str, Any] = dict(self.alias_table())
        if path is not None:
            from ingestion.resolution import AliasTable

            for entry in AliasTable.from_file(path).entries:
                table[entry.canonical] = {"aliases": list(entry.aliases), "label": entry.label}
        return table

    def _require_settings(self) -> CsillagSettings:
        if self._settings is None:
            self.init()
        assert self._settings is not None
        return self._settings


def new_run_id() -> str:
    """A time-based run id, unique enough for one lakehouse: ``20260301T101500-ab12cd``."""
    return time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


def _has_markers(settings: CsillagSettings) -> bool:
    """Whether the lakehouse has stage markers at all; a bucket that cannot be reached counts as none (the run proper
    then reports why)."""
    from graph.errors import StorageError

    try:
        return settings.lakehouse.storage().is_dir("_markers")
    except StorageError:
        return False


def _first_failed(reports: list[StageReport]) -> str:
    return next((r.reason or "failed" for r in reports if r.status == "failed"), "failed")
