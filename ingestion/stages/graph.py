"""Stage 7, ``graph``: the entity graph's node and edge tables, with centrality and communities.

The metrics are computed by ``graph.metrics`` (networkx) in the driver: the edge list of a novel is tens of thousands
of rows. ``graph.metrics`` states the size up to which that holds; beyond it, ``spark_degrees`` gives degree and
weighted degree in Spark and PageRank/communities are left empty rather than exhausting the driver.
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

# Edges above which the driver-side networkx metrics are skipped in favour of Spark degrees only: the limit measured
# in graph.metrics (10^6 edges: Louvain ~4 min, ~1 GB in the driver; it grows faster than linearly beyond).
MAX_DRIVER_EDGES = 1_000_000
NODE_SCHEMA = (
    "entity_id string, canonical_name string, label string, aliases array<string>, mention_count long, "
    "doc_count long, first_chunk_id string, last_chunk_id string, first_unit_id string, last_unit_id string, "
    "degree long, weighted_degree double, pagerank double, community long"
)


def spark_degrees(entities: DataFrame, edges: DataFrame) -> DataFrame:
    """Degree and weighted degree in Spark, for graphs too large for the driver; pagerank/community left null."""
    from pyspark.sql import functions as F

    ends = edges.select(F.col("src_id").alias("entity_id"), F.col("count").alias("weight")).unionByName(
        edges.select(F.col("dst_id").alias("entity_id"), F.col("count").alias("weight"))
    )
    degrees = ends.groupBy("entity_id").agg(F.count("*").alias("degree"), F.sum("weight").alias("weighted_degree"))
    return (
        entities.join(degrees, "entity_id", "left")
        .fillna({"degree": 0, "weighted_degree": 0.0})
        .withColumn("pagerank", F.lit(None).cast("double"))
        .withColumn("community", F.lit(None).cast("long"))
    )


class GraphStage(Stage):
    """Writes ``graph_nodes`` and ``graph_edges``."""

    name = "graph"
    tables = ("graph_nodes", "graph_edges")
    requires = ("entities", "cooccurrences")

    def config_fingerprint(self, ctx: RunContext) -> str:
        """The metric definitions (versioned)."""
        return fingerprint({"stage": self.name, "version": 2})  # v2: centrality over co-occurrence counts

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Metrics in the driver when the graph fits, else degrees in Spark."""
        from pyspark.sql import functions as F

        lake, spark = ctx.lakehouse, ctx.spark
        entities, edges = lake.read("entities"), lake.read("cooccurrences")
        n_edges = edges.count()
        if n_edges <= MAX_DRIVER_EDGES:
            from graph.metrics import compute_metrics

            # Centrality follows how often characters meet (the count), not the normalised edge weight, which
            # favours minor characters seen only beside one other.
            nodes_pd = compute_metrics(
                entities.toPandas(),
                edges.select("src_id", "dst_id", F.col("count").cast("double").alias("weight")).toPandas(),
            )
            columns = [part.strip().split(" ")[0] for part in NODE_SCHEMA.split(",")]
            nodes_pd = nodes_pd[columns]
            nodes = spark.createDataFrame(nodes_pd, NODE_SCHEMA)
            path = "driver"
        else:
            logger.warning("graph: %d edges exceed %d; PageRank and communities skipped", n_edges, MAX_DRIVER_EDGES)
            nodes = spark_degrees(entities, edges)
            path = "spark"
        lake.overwrite(nodes, "graph_nodes")
        lake.overwrite(edges, "graph_edges")
        counts = {"nodes": lake.count("graph_nodes"), "edges": n_edges}
        return StageOutput(counts=counts, output_fingerprint=self.derived_fingerprint(ctx), details={"metrics": path})
