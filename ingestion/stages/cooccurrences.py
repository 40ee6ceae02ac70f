"""Stage 6, ``cooccurrences``: which entities occur together, how often, and where — the graph's edge list.

A pair co-occurs once per window (sentence or chunk, from the settings) in which both are mentioned. The weight
normalises the count by the entities' mention counts (count / sqrt(m_a · m_b)), so a minor character who appears only
beside the hero gets a strong edge, and the hero does not get a strong edge to everyone.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ingestion.markers import fingerprint
from ingestion.stage import Stage, StageOutput

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from ingestion.context import RunContext

logger = logging.getLogger(__name__)


def cooccurrence_pairs(mention_entities: DataFrame, chunks: DataFrame, entities: DataFrame, window: str) -> DataFrame:
    """Pure transform: (mention_entities, chunks, entities) → one row per unordered entity pair."""
    from pyspark.sql import functions as F

    key = "sentence_id" if window == "sentence" else "chunk_id"
    occurrences = mention_entities.select(key, "chunk_id", "entity_id").distinct()
    if key == "chunk_id":
        occurrences = occurrences.select("chunk_id", "entity_id").distinct()
    a, b = occurrences.alias("a"), occurrences.alias("b")
    pairs = a.join(b, (F.col(f"a.{key}") == F.col(f"b.{key}")) & (F.col("a.entity_id") < F.col("b.entity_id"))).select(
        F.col(f"a.{key}").alias("window_id"),
        F.col("a.chunk_id").alias("chunk_id"),
        F.col("a.entity_id").alias("src_id"),
        F.col("b.entity_id").alias("dst_id"),
    )
    located = pairs.join(chunks.select("chunk_id", "unit_id"), "chunk_id")
    counts = entities.select("entity_id", "mention_count")
    grouped = located.groupBy("src_id", "dst_id").agg(
        F.countDistinct("window_id").alias("count"),
        F.array_sort(F.collect_set("chunk_id")).alias("chunk_ids"),
        F.array_sort(F.collect_set("unit_id")).alias("unit_ids"),
    )
    return (
        grouped.join(
            counts.withColumnRenamed("entity_id", "src_id").withColumnRenamed("mention_count", "m_src"), "src_id"
        )
        .join(counts.withColumnRenamed("entity_id", "dst_id").withColumnRenamed("mention_count", "m_dst"), "dst_id")
        .select(
            "src_id",
            "dst_id",
            F.col("count").cast("long"),
            (F.col("count") / F.sqrt(F.col("m_src") * F.col("m_dst"))).alias("weight"),
            "chunk_ids",
            "unit_ids",
            F.lit(window).alias("window"),
        )
    )


class CooccurrencesStage(Stage):
    """Writes ``cooccurrences``."""

    name = "cooccurrences"
    tables = ("cooccurrences",)
    requires = ("entities",)

    def config_fingerprint(self, ctx: RunContext) -> str:
        """The window."""
        return fingerprint({"stage": self.name, "version": 1, "window": ctx.settings.ingestion.cooccurrence_window})

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Recompute the pairs from the resolved mentions."""
        lake = ctx.lakehouse
        window = ctx.settings.ingestion.cooccurrence_window
        pairs = cooccurrence_pairs(lake.read("mention_entities"), lake.read("chunks"), lake.read("entities"), window)
        lake.overwrite(pairs, self.name)
        return StageOutput(counts={"pairs": lake.count(self.name)}, output_fingerprint=self.derived_fingerprint(ctx))
