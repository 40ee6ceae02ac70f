"""Issue 12, "also mend": the writers bring what they computed to ``graph.tables``' columns (real local Spark)."""

from __future__ import annotations

from typing import Any

import pytest

from graph.tables import COOCCURRENCES, ENTITIES, GRAPH_NODES, MENTION_ENTITIES, TableSpec
from ingestion.errors import IngestionError
from ingestion.schema import conform

pytestmark = pytest.mark.spark


def spark_types(df: Any) -> list[tuple[str, str]]:
    """(name, type) of a DataFrame's columns, in the neutral spelling of graph.tables."""
    return [(f.name, f.dataType.simpleString()) for f in df.schema.fields]


def test_issue_12_conform_orders_and_casts_to_the_table(spark: Any) -> None:
    computed = spark.createDataFrame(
        [("s1", 2, "e1", "m1", "c1", "d1", "Anna", 7, 3, "name")], "sentence_id string, n int, entity_id string, "
        "mention_id string, chunk_id string, doc_id string, text string, end int, start int, kind string",
    )
    spec = TableSpec("t", (("mention_id", "string"), ("n", "long"), ("entity_id", "string")))
    out = conform(computed, spec)
    assert spark_types(out) == [("mention_id", "string"), ("n", "bigint"), ("entity_id", "string")]
    assert [tuple(r) for r in out.collect()] == [("m1", 2, "e1")]
    assert conform(computed, MENTION_ENTITIES).columns == list(MENTION_ENTITIES.names)
    assert dict(spark_types(conform(computed, MENTION_ENTITIES)))["start"] == "bigint"


def test_issue_12_conform_names_the_missing_columns(spark: Any) -> None:
    computed = spark.createDataFrame([("e1", "x")], "entity_id string, other string")
    with pytest.raises(IngestionError, match=r"cannot write table entities: the computed rows lack the columns "
                                             r"canonical_name, label, .* \(they have: entity_id, other\)"):
        conform(computed, ENTITIES)


def test_issue_12_spark_degrees_writes_graph_nodes_types(spark: Any) -> None:
    # The path for graphs too large for the driver summed long counts into a long weighted_degree, while the table
    # (and the driver path) holds a double.
    from ingestion.stages.graph import degree_nodes

    entities = spark.createDataFrame(
        [
            ("a", "A", "PERSON", ["A"], 3, 1, "c1", "c2", "u1", "u1"),
            ("b", "B", "PERSON", [], 2, 1, "c1", "c1", "u1", "u1"),
            ("z", "Z", "GPE", [], 2, 1, "c2", "c2", "u1", "u1"),
        ],
        ENTITIES.ddl(),
    )
    edges = spark.createDataFrame([("a", "b", 4, 0.5, ["c1"], ["u1"], "sentence")], COOCCURRENCES.ddl())
    nodes = degree_nodes(entities, edges)
    assert [name for name, _ in spark_types(nodes)] == list(GRAPH_NODES.names)
    assert dict(spark_types(nodes))["weighted_degree"] == "double"
    rows = {r.entity_id: (r.degree, r.weighted_degree, r.pagerank, r.community) for r in nodes.collect()}
    assert rows == {"a": (1, 4.0, None, None), "b": (1, 4.0, None, None), "z": (0, 0.0, None, None)}
