"""The graph stage's degrees for graphs too large for the driver's metrics (``degree_nodes``, one query) are the
degrees the driver's metrics give (``graph.metrics.compute_metrics``), in process and in Spark alike."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pyarrow as pa

from graph.metrics import compute_metrics
from graph.tables import COOCCURRENCES, ENTITIES, GRAPH_NODES
from ingestion.stages.graph import degree_nodes

ENTITY_ROWS = [(e, e.upper(), "PERSON", [e.upper()], 3, 1, "c1", "c2", "u1", "u1") for e in ("a", "b", "c", "z")]
EDGE_ROWS = [("a", "b", 4, 0.5, ["c1"], ["u1"], "turns"), ("a", "c", 1, 0.2, ["c1"], ["u1"], "turns"),
             ("b", "c", 2, 0.3, ["c2"], ["u1"], "turns")]


def _arrow(rows: list[tuple[Any, ...]], spec: Any) -> pa.Table:
    return pa.Table.from_pylist([dict(zip(spec.names, row, strict=True)) for row in rows], schema=spec.arrow_schema())


def test_degree_nodes_are_the_driver_metrics_degrees_on_both_engines(spark: Any) -> None:
    entities, edges = _arrow(ENTITY_ROWS, ENTITIES), _arrow(EDGE_ROWS, COOCCURRENCES)
    in_process = degree_nodes(entities, edges)
    assert in_process.schema == GRAPH_NODES.arrow_schema()
    ours = {r["entity_id"]: (r["degree"], r["weighted_degree"], r["pagerank"], r["community"])
            for r in in_process.to_pylist()}
    # a meets b 4 times and c once; z meets no one
    assert ours == {"a": (2, 5.0, None, None), "b": (2, 6.0, None, None), "c": (2, 3.0, None, None),
                    "z": (0, 0.0, None, None)}
    in_spark = degree_nodes(spark.createDataFrame(entities), spark.createDataFrame(edges)).collect()
    assert {r.entity_id: (r.degree, r.weighted_degree, r.pagerank, r.community) for r in in_spark} == ours
    weights = pd.DataFrame([(s, d, float(n)) for s, d, n, *_ in EDGE_ROWS], columns=["src_id", "dst_id", "weight"])
    metrics = compute_metrics(pd.DataFrame({"entity_id": ["a", "b", "c", "z"]}), weights)
    assert {r.entity_id: (r.degree, r.weighted_degree) for r in metrics.itertuples()} == {
        entity_id: values[:2] for entity_id, values in ours.items()}
