"""Stage 7, ``graph``: the entity graph's node and edge tables, with centrality and communities.

The metrics are computed by ``graph.metrics`` (networkx) in the driver: the edge list of a novel is tens of thousands
of rows. ``graph.metrics`` states the size up to which that holds; beyond it, ``spark_degrees`` gives degree and
weighted degree in Spark and PageRank/communities are left empty rather than exhausting the driver.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from graph.tables import GRAPH_EDGES, GRAPH_NODES
from ingestion.schema import conform
from ingestion.stage import Stage, StageOutput

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from ingestion.context import RunContext

logger = logging.getLogger(__name__)

# Edges above which the driver-side networkx metrics are skipped in favour of Spark degrees only: the limit measured
# in graph.metrics (10^6 edges: Louvain ~4 min, ~1 GB in the driver; it grows faster than linearly beyond).
MAX_DRIVER_EDGES = 1_000_000


def spark_degrees(entities: DataFrame, edges: DataFrame) -> DataFrame:
    """``graph_nodes`` with degree and weighted degree in Spark, for graphs too large for the driver; pagerank and
    community left null."""
    from pyspark.sql import functions as F

    ends = edges.select(F.col("src_id").alias("entity_id"), F.col("count").alias("weight")).unionByName(
        edges.select(F.col("dst_id").alias("entity_id"), F.col("count").alias("weight"))
    )
    degrees = ends.groupBy("entity_id").agg(F.count("*").alias("degree"), F.sum("weight").alias("weighted_degree"))
    nodes = (
        entities.join(degrees, "entity_id", "left")
        .fillna({"degree": 0, "weighted_degree": 0.0})
        .withColumn("pagerank", F.lit(None).cast("double"))
        .withColumn("community", F.lit(None).cast("long"))
    )
    # The sum of the long counts is a long; the table's weighted_degree is a double, as the driver path writes it.
    return conform(nodes, GRAPH_NODES)


class GraphStage(Stage):
    """Writes ``graph_nodes`` and ``graph_edges``."""

    name = "graph"
    version = 2  # v2: centrality over co-occurrence counts
    tables = (GRAPH_NODES.name, GRAPH_EDGES.name)
    requires = ("entities", "cooccurrences")

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
            nodes = spark.createDataFrame(nodes_pd[list(GRAPH_NODES.names)], GRAPH_NODES.ddl())
            path = "driver"
        else:
            logger.warning("graph: %d edges exceed %d; PageRank and communities skipped", n_edges, MAX_DRIVER_EDGES)
            nodes = spark_degrees(entities, edges)
            path = "spark"
        lake.overwrite(nodes, GRAPH_NODES.name)
        lake.overwrite(conform(edges, GRAPH_EDGES), GRAPH_EDGES.name)
        counts = {"nodes": lake.count(GRAPH_NODES.name), "edges": n_edges}
        return StageOutput(counts=counts, output_fingerprint=self.derived_fingerprint(ctx), details={"metrics": path})
