"""Stage 7, ``graph``: the entity graph's node and edge tables, with centrality and communities.

The metrics are computed by ``graph.metrics`` in the driver: the edge list of a novel is tens of thousands of rows,
read and written in the driver too (delta-rs). ``graph.metrics`` states the size up to which that holds; beyond it,
``degree_nodes`` gives degree and weighted degree in Spark and PageRank/communities are left empty rather than
exhausting the driver. An incremental run hands the metrics the tables it wrote last time: the components of the
graph that did not change keep their communities instead of running Louvain again (``graph.communities``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from graph.tables import GRAPH_EDGES, GRAPH_NODES
from ingestion.relational import query
from ingestion.schema import conform
from ingestion.stage import Stage, StageOutput

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from graph.communities import PreviousGraph
    from ingestion.context import RunContext
    from ingestion.lakehouse import LakehouseTables

logger = logging.getLogger(__name__)

# Edges above which the driver-side networkx metrics are skipped in favour of Spark degrees only: the limit measured
# in graph.metrics (10^6 edges: Louvain ~4 min, ~1 GB in the driver; it grows faster than linearly beyond).
MAX_DRIVER_EDGES = 1_000_000


# Degree and weighted degree (the edges' counts, as the driver's metrics weigh them); pagerank and community null.
DEGREES_SQL = """WITH ends AS (
  SELECT src_id AS entity_id, "count" AS weight FROM edges UNION ALL SELECT dst_id, "count" FROM edges
), degrees AS (
  SELECT entity_id, count(*) AS degree, sum(weight) AS weighted_degree FROM ends GROUP BY entity_id
)
SELECT e.*, coalesce(d.degree, 0) AS degree, coalesce(d.weighted_degree, 0) AS weighted_degree,
       CAST(NULL AS DOUBLE) AS pagerank, CAST(NULL AS BIGINT) AS community
FROM entities AS e LEFT JOIN degrees AS d ON e.entity_id = d.entity_id"""


def degree_nodes(entities: Any, edges: Any) -> Any:
    """``graph_nodes`` with degree and weighted degree only (``DEGREES_SQL``), for graphs too large for the driver's
    metrics: Spark DataFrames in, one out (Arrow rows in process alike)."""
    # The sum of the long counts is a long; the table's weighted_degree is a double, as the driver path writes it.
    return conform(query(DEGREES_SQL, {"entities": entities, "edges": edges}), GRAPH_NODES)


class GraphStage(Stage):
    """Writes ``graph_nodes`` and ``graph_edges``."""

    name = "graph"
    # A new version redoes the stage; what each version changed: docs/decisions/0002-stage-versions.md
    version = 3
    tables = (GRAPH_NODES.name, GRAPH_EDGES.name)
    requires = ("entities", "cooccurrences")

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Metrics in the driver when the graph fits, else degrees in Spark.

        On the driver's path the tables are read and written in this process (delta-rs): the rows are in the driver
        anyway, and two Spark write jobs cost more than the metrics (6 s against 5 s for the 8× library's graph).
        """
        lake = ctx.lakehouse
        n_edges = lake.count("cooccurrences")
        if n_edges <= MAX_DRIVER_EDGES:
            import pyarrow as pa

            from graph.metrics import compute_metrics

            entities = lake.snapshot("entities").to_table()
            edges = lake.snapshot("cooccurrences").to_table(columns=list(GRAPH_EDGES.names))
            # The previous graph only after a complete run of this version: a crashed run may have committed one
            # table of the two, whose communities would then not belong to the other's edges.
            previous = _previous_graph(lake) if incremental and self.previous is not None else None
            nodes = compute_metrics(entities.to_pandas(), _weights(edges), previous=previous)
            schema = GRAPH_NODES.arrow_schema()
            lake.write_arrow(
                pa.Table.from_pandas(nodes[list(GRAPH_NODES.names)], schema=schema, preserve_index=False),
                GRAPH_NODES.name, overwrite=True,
            )
            lake.write_arrow(edges.cast(GRAPH_EDGES.arrow_schema()), GRAPH_EDGES.name, overwrite=True)
            path = "driver"
        else:
            logger.warning("graph: %d edges exceed %d; PageRank and communities skipped", n_edges, MAX_DRIVER_EDGES)
            edges_df = lake.read("cooccurrences")
            lake.overwrite(degree_nodes(lake.read("entities"), edges_df), GRAPH_NODES.name)
            lake.overwrite(conform(edges_df, GRAPH_EDGES), GRAPH_EDGES.name)
            path = "spark"
        counts = {"nodes": lake.count(GRAPH_NODES.name), "edges": n_edges}
        return StageOutput(counts=counts, output_fingerprint=self.derived_fingerprint(ctx), details={"metrics": path})


def _previous_graph(lake: LakehouseTables) -> PreviousGraph:
    """The graph the stage wrote last time, whose unchanged components keep their communities."""
    from graph.communities import PreviousGraph

    nodes = lake.columns(GRAPH_NODES.name, GRAPH_NODES.pick("entity_id", "community")).to_pandas()
    edges = lake.columns(GRAPH_EDGES.name, GRAPH_EDGES.pick("src_id", "dst_id", "count"))
    return PreviousGraph(nodes, _weights(edges))


def _weights(edges: pa.Table) -> pd.DataFrame:
    """The edges as the metrics take them, weighted by ``count``."""
    # Centrality and communities follow how often characters meet (the count), not the normalised edge weight, which
    # favours minor characters seen only beside one other.
    weights = edges.select(["src_id", "dst_id", "count"]).to_pandas().rename(columns={"count": "weight"})
    return weights.astype({"weight": "float64"})
