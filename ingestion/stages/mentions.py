"""Stage 3, ``mentions``: spaCy NER inside Spark, resumable batch by batch.

Each Python worker loads the pipeline once (``ingestion.nlp.get_nlp``) and runs ``nlp.pipe`` over Arrow batches of
chunks inside ``mapInPandas``. The stage commits in batches of chunks, each followed by a row per chunk in
``mention_chunks`` (the record of which chunks are done); a rerun after a crash deletes the mentions of chunks not
recorded as done (the half-written batch) and goes on from there, so no mention is ever written twice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pandas as pd

from ingestion.markers import fingerprint
from ingestion.nlp import MENTION_COLUMNS, NlpSpec, extract_mentions, get_nlp
from ingestion.stage import Stage, StageOutput

if TYPE_CHECKING:
    from ingestion.context import RunContext

logger = logging.getLogger(__name__)

MENTION_SCHEMA = (
    "mention_id string, doc_id string, chunk_id string, sentence_index int, sentence_id string, start long, "
    "end long, text string, label string, ent_id string, model string, model_version string"
)
DONE_SCHEMA = "chunk_id string, doc_id string, n_mentions long, n_words long"
PROGRESS_TABLE = "mention_chunks"
PARTITIONS_PER_CORE = 2


def ner_batches(batches: Iterable[pd.DataFrame], *, spec: NlpSpec) -> Iterator[pd.DataFrame]:
    """``mapInPandas`` transform: chunk rows (doc_id, chunk_id, start, text) → mention rows."""
    nlp = get_nlp(spec)
    for batch in batches:
        items = zip(batch["doc_id"], batch["chunk_id"], batch["start"], batch["text"], strict=True)
        rows = list(extract_mentions(nlp, spec, items))
        yield pd.DataFrame(rows, columns=list(MENTION_COLUMNS))


def plan_batches(pending: list[tuple[str, int]], batch_words: int) -> list[list[str]]:
    """Group pending (chunk_id, n_words) in order into batches of about ``batch_words`` words."""
    batches: list[list[str]] = []
    current: list[str] = []
    words = 0
    for chunk_id, n_words in pending:
        current.append(chunk_id)
        words += n_words
        if words >= batch_words:
            batches.append(current)
            current, words = [], 0
    if current:
        batches.append(current)
    return batches


class MentionsStage(Stage):
    """Runs NER over the chunks; writes ``mentions`` and ``mention_chunks``."""

    name = "mentions"
    tables = ("mentions", PROGRESS_TABLE)
    requires = ("chunks",)

    def config_fingerprint(self, ctx: RunContext) -> str:
        """The pipeline (model, language, patterns, labels)."""
        return fingerprint({"stage": self.name, "version": 1, "nlp": ctx.domain.nlp.key})

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """NER over the chunks not yet done, in committed batches, with progress in the log."""
        from pyspark.sql import functions as F

        lake, spark = ctx.lakehouse, ctx.spark
        fresh = not incremental
        if fresh:
            # The progress record is reset first: whatever a crash leaves after this, no old record of done chunks
            # can stand beside new mentions. The first batch then overwrites the mentions table.
            lake.overwrite(spark.createDataFrame([], DONE_SCHEMA), PROGRESS_TABLE)
            done_ids: set[str] = set()
        else:
            removed = sorted(lake.doc_ids(PROGRESS_TABLE) - lake.doc_ids("chunks"))
            lake.delete_docs(self.name, removed)
            lake.delete_docs(PROGRESS_TABLE, removed)
            # Which chunks are left is decided in-process from two small columns, without a Spark job.
            done_ids = set(lake.columns(PROGRESS_TABLE, ["chunk_id"]).column("chunk_id").to_pylist())

        chunks = lake.read("chunks").select("doc_id", "chunk_id", "start", "text", "n_words")
        listing = lake.columns("chunks", ["chunk_id", "n_words"]).to_pydict()
        pending = sorted(
            (cid, int(n)) for cid, n in zip(listing["chunk_id"], listing["n_words"], strict=True) if cid not in done_ids
        )
        words_of = dict(pending)
        if pending and not fresh:
            # Mentions of chunks not recorded as done are left over from a crashed batch.
            self._delete_chunks(ctx, [cid for cid, _ in pending])
        batch_words = ctx.settings.ingestion.mentions_batch_words
        spec = ctx.domain.nlp
        total_words = sum(n for _, n in pending)
        started = time.perf_counter()
        parallelism = spark.sparkContext.defaultParallelism
        plan = plan_batches(pending, batch_words)

        def transform(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
            return ner_batches(batches, spec=spec)

        def run_batch(batch: list[str], first: bool) -> int:
            """NER over one batch, committed: its mentions first, then its chunks as done (the resume point)."""
            selected = chunks.where(F.col("chunk_id").isin(batch))
            # Spread each batch over every core; two partitions per core balance long and short chapters.
            parts = max(parallelism * PARTITIONS_PER_CORE, 1)
            source = selected.repartition(parts, "chunk_id").select("doc_id", "chunk_id", "start", "text")
            mentions = source.mapInPandas(transform, MENTION_SCHEMA).persist()
            try:
                if fresh and first:
                    lake.overwrite(mentions, self.name)
                else:
                    lake.append(mentions, self.name)
                per_chunk = mentions.groupBy("chunk_id").agg(F.count("*").alias("n_mentions"))
                done_rows = (
                    selected.select("chunk_id", "doc_id", "n_words")
                    .join(per_chunk, "chunk_id", "left")
                    .select(
                        "chunk_id",
                        "doc_id",
                        F.coalesce("n_mentions", F.lit(0)).cast("long").alias("n_mentions"),
                        "n_words",
                    )
                )
                lake.append(done_rows, PROGRESS_TABLE)
            finally:
                mentions.unpersist()
            return sum(words_of[cid] for cid in batch)

        ctx.progress.start(self.name, total_words, "words")
        try:
            for number, batch in enumerate(plan):
                ctx.progress.advance(self.name, run_batch(batch, first=number == 0))
            if fresh and not plan:
                lake.overwrite(spark.createDataFrame([], MENTION_SCHEMA), self.name)
        finally:
            ctx.progress.finish(self.name)
        import pyarrow.compute as pc

        texts = lake.columns(self.name, ["text"]).column("text")
        elapsed = time.perf_counter() - started
        counts: dict[str, Any] = {
            "mentions": len(texts),
            "surface_forms": len(pc.unique(texts)),
            "chunks_processed": len(pending),
            "words_processed": total_words,
        }
        spec_info = {
            "model": spec.model or f"blank:{spec.language}",
            "language": spec.language,
            "patterns": len(spec.patterns),
            "labels": list(spec.labels),
        }
        details = {"words_per_second": round(total_words / elapsed, 1) if pending and elapsed else None, **spec_info}
        return StageOutput(
            counts=counts,
            output_fingerprint=self.derived_fingerprint(ctx),
            details=details,
        )

    def _delete_chunks(self, ctx: RunContext, chunk_ids: list[str]) -> None:
        from delta.tables import DeltaTable

        table = DeltaTable.forPath(ctx.spark, ctx.lakehouse.path(self.name))
        ids = ctx.spark.createDataFrame([(c,) for c in chunk_ids], "chunk_id string")
        # A merge, not isin(): tens of thousands of ids would make an enormous predicate.
        table.alias("m").merge(ids.alias("p"), "m.chunk_id = p.chunk_id").whenMatchedDelete().execute()
