"""What every stage of one run sees: the session, the settings, the lakehouse, the domain and the request."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ingestion.nlp import NlpSpec
from ingestion.progress import LoggingProgress, ProgressReporter

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from ingestion.chunking import UnitPatterns
    from ingestion.lakehouse import LakehouseTables
    from ingestion.resolution_eval import GoldEntity
    from ingestion.routing import NlpRouting
    from settings.config import CsillagSettings


@dataclass(frozen=True)
class DomainSpec:
    """The domain part of a NER ingestion tool, resolved against the settings (R-NER-1: only this is per domain)."""

    name: str
    language: str
    nlp: NlpSpec
    alias_table: dict[str, Any] = field(default_factory=dict)
    unit_patterns: UnitPatterns | None = None
    # ner.gold_list, read when the run starts (a bad file fails the run before Spark, as a bad alias table does);
    # the entities stage scores its output against it. None = no gold list configured.
    gold: tuple[GoldEntity, ...] | None = None
    gold_path: str | None = None
    # Each document's language is detected and NER routes by it (ingestion.routing); else all are ``language``.
    detect_language: bool = False
    # ingestion.entity_scope when the settings leave it unset: one name is one entity across the corpus.
    entity_scope: Literal["document", "corpus"] = "corpus"

    @property
    def routing(self) -> NlpRouting:
        """Language → pipeline: ``nlp`` for the domain's language, each other language's default, else rules."""
        from ingestion.routing import NlpRouting

        return NlpRouting(self.nlp, detect=self.detect_language)


@dataclass
class RunContext:
    """One pipeline run."""

    spark: SparkSession
    settings: CsillagSettings
    lakehouse: LakehouseTables
    domain: DomainSpec
    run_id: str
    inputs: list[str]
    force: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    progress: ProgressReporter = field(default_factory=LoggingProgress)
    # The worker environment of a Python daemon this run has started (the mentions stage's, with the NER pipeline
    # preloaded): the stages after it make their Python functions with it too, so their tasks fork from that daemon
    # instead of waiting for another to start (~1 s). Empty until one is started: a run whose NER has nothing to do
    # must not start a daemon that preloads a pipeline for the later stages' small tasks.
    started_worker_environment: dict[str, str] = field(default_factory=dict)
    # Set by the mentions stage when its NER runs in the driver: the workers' start begun with the run
    # (``Stage.start_early``) then makes no job, and the run does not wait at its end for a daemon it never used.
    workers_not_needed: threading.Event = field(default_factory=threading.Event)
    # The bytes of input files this run will read, foreseen at its start (``ingestion.startup.SparkStartup.foresee``);
    # None when unknown (inputs that are not plain files, or no documents stage in the run).
    foreseen_bytes: int | None = None
    # The NER processes the mentions stage began at the run's start (``MentionsStage.start_early``) or started, if it
    # did.
    ner_pool: Any = None
    # Set by a run that closes ``ner_pool`` at its end (``ingestion.startup.SparkStartup``): the mentions stage then
    # leaves its processes running for the later stages' per-row Python (``relational.python_processes``).
    keeps_processes: bool = False
