"""Stage 5, ``entities``: canonical entities from the mentions, and each mention's entity.

Spark aggregates the mentions into distinct (surface text, label) forms with counts — a few thousand rows even for a
long novel — and the driver resolves them (``ingestion.resolution``: the domain's alias table first, then
normalisation and alias merging). The resolved mapping is joined back onto the mentions in Spark. Entity ids hash the
canonical key, so a rerun or an unrelated new document leaves existing ids as they are. Always recomputed whole: a
new mention can change how names merge.

With ``ner.gold_list`` set, the stage scores the ``entities`` table it wrote against that gold list (pairwise
precision/recall, ``ingestion.resolution_eval``), logs one line and reports the score as ``details["gold"]`` of its
marker and of the run's stage report. The gold list is part of the stage's *config* fingerprint, so changing it
reruns this (cheap) stage and the report is never stale; it is not part of the *output* fingerprint, because it
changes no table: the stages downstream stay up to date.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ingestion.markers import fingerprint
from ingestion.resolution import AliasTable, ResolvedEntity, SurfaceForm, resolve_entities
from ingestion.resolution_eval import score_details
from ingestion.stage import Stage, StageOutput

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from ingestion.context import RunContext

logger = logging.getLogger(__name__)


def surface_forms(mentions: DataFrame) -> list[SurfaceForm]:
    """Distinct (text, label) forms with their mention counts and first offsets, collected to the driver."""
    from pyspark.sql import functions as F

    rows = mentions.groupBy("text", "label").agg(F.count("*").alias("n"), F.min("start").alias("first")).collect()
    return [SurfaceForm(text=r.text, label=r.label, count=int(r.n), first_pos=int(r.first)) for r in rows]


def attach_entities(mentions: DataFrame, mapping: DataFrame) -> DataFrame:
    """``mention_entities``: every mention whose form was resolved, with its entity."""
    return mentions.join(mapping, ["text", "label"], "inner").select(
        "mention_id", "entity_id", "doc_id", "chunk_id", "sentence_id"
    )


def entity_table(entities: DataFrame, mention_entities: DataFrame, chunks: DataFrame, min_mentions: int) -> DataFrame:
    """``entities`` with counts and first/last appearance, keeping those with at least ``min_mentions`` mentions."""
    from pyspark.sql import functions as F

    located = mention_entities.join(chunks.select("chunk_id", "unit_id", "chunk_index"), "chunk_id")
    order = F.struct("doc_id", "chunk_index", "chunk_id", "unit_id")
    stats = located.groupBy("entity_id").agg(
        F.count("*").alias("mention_count"),
        F.countDistinct("doc_id").alias("doc_count"),
        F.min(order).alias("first"),
        F.max(order).alias("last"),
    )
    return (
        entities.join(stats, "entity_id")
        .where(F.col("mention_count") >= min_mentions)
        .select(
            "entity_id",
            "canonical_name",
            "label",
            "aliases",
            F.col("mention_count").cast("long"),
            F.col("doc_count").cast("long"),
            F.col("first.chunk_id").alias("first_chunk_id"),
            F.col("last.chunk_id").alias("last_chunk_id"),
            F.col("first.unit_id").alias("first_unit_id"),
            F.col("last.unit_id").alias("last_unit_id"),
        )
    )


class EntitiesStage(Stage):
    """Resolves mentions into entities; writes ``entities`` and ``mention_entities``."""

    name = "entities"
    tables = ("entities", "mention_entities")
    requires = ("mentions", "chunks")

    def config_fingerprint(self, ctx: RunContext) -> str:
        """The alias table, the language and the minimum mention count; and the gold list, when one is configured."""
        config = self._table_config(ctx)
        if ctx.domain.gold is not None:
            # Only the report depends on it: a new gold list reruns this stage so the score is current.
            config["gold"] = {
                "path": ctx.domain.gold_path,
                "entities": [[e.canonical_name, e.label, list(e.aliases)] for e in ctx.domain.gold],
            }
        return fingerprint(config)

    def _table_config(self, ctx: RunContext) -> dict[str, Any]:
        """The settings the tables depend on (the output fingerprint's part of the config)."""
        return {
            "stage": self.name,
            "version": 1,
            "language": ctx.domain.language,
            "aliases": ctx.domain.alias_table,
            "min_mentions": ctx.settings.ingestion.min_entity_mentions,
        }

    def output_fingerprint(self, ctx: RunContext) -> str:
        """Inputs and the table settings, without the gold list: a new gold list does not redo later stages."""
        return fingerprint([self.input_fingerprint(ctx), fingerprint(self._table_config(ctx))])

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Resolve in the driver, join back in Spark, overwrite both tables."""
        lake, spark = ctx.lakehouse, ctx.spark
        mentions = lake.read("mentions")
        forms = surface_forms(mentions)
        table = AliasTable.from_mapping(ctx.domain.alias_table) if ctx.domain.alias_table else None
        resolved, mapping = resolve_entities(forms, language=ctx.domain.language, alias_table=table)
        logger.info("entities: %d surface forms resolved into %d entities", len(forms), len(resolved))
        # From Arrow: the JVM builds these without a Python job (rows as tuples would start a Python daemon and
        # workers only to convert them).
        mapping_df = spark.createDataFrame(
            pa.table(
                {
                    "text": pa.array([t for t, _ in mapping], pa.string()),
                    "label": pa.array([lab for _, lab in mapping], pa.string()),
                    "entity_id": pa.array(list(mapping.values()), pa.string()),
                }
            )
        )
        entities_df = spark.createDataFrame(
            pa.table(
                {
                    "entity_id": pa.array([e.entity_id for e in resolved], pa.string()),
                    "canonical_name": pa.array([e.canonical_name for e in resolved], pa.string()),
                    "label": pa.array([e.label for e in resolved], pa.string()),
                    "aliases": pa.array([list(e.aliases) for e in resolved], pa.list_(pa.string())),
                }
            )
        )
        mention_entities = attach_entities(mentions, mapping_df)
        table_df = entity_table(
            entities_df, mention_entities, lake.read("chunks"), ctx.settings.ingestion.min_entity_mentions
        )
        lake.overwrite(table_df, "entities")
        kept = lake.read("entities").select("entity_id")
        lake.overwrite(mention_entities.join(kept, "entity_id", "left_semi"), "mention_entities")
        counts = {
            "entities": lake.count("entities"),
            "resolved_mentions": lake.count("mention_entities"),
            "surface_forms": len(forms),
        }
        details: dict[str, Any] = {}
        if ctx.domain.gold is not None:
            details["gold"] = self._score(ctx)
        return StageOutput(counts=counts, output_fingerprint=self.output_fingerprint(ctx), details=details)

    def _score(self, ctx: RunContext) -> dict[str, Any]:
        """Precision/recall of the written ``entities`` table against the gold list, logged in one line."""
        assert ctx.domain.gold is not None
        rows = ctx.lakehouse.read("entities").select("entity_id", "canonical_name", "label", "aliases").collect()
        entities = [ResolvedEntity(r.entity_id, r.canonical_name, r.label, tuple(r.aliases)) for r in rows]
        score = score_details(entities, ctx.domain.gold)
        logger.info("entity resolution vs gold %s: %s", ctx.domain.gold_path, score.summary())
        return score.details(ctx.domain.gold_path)
