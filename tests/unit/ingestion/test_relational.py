"""The relational seam: one query text in DuckDB's dialect gives the same rows in process (DuckDB) and in Spark SQL,
where the two dialects' own semantics differ."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from ingestion.relational import query_arrow, query_spark, spark_dialect

ROWS = {"k": [2, None, 1], "a": ["x", "y", None], "b": ["1", None, "3"]}
SCHEMA = "k int, a string, b string"


def _both(spark: Any, sql: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    arrow = pa.table(ROWS, schema=pa.schema([("k", pa.int32()), ("a", pa.string()), ("b", pa.string())]))
    frame = spark.createDataFrame(list(zip(*ROWS.values(), strict=True)), SCHEMA)
    in_process = query_arrow(sql, {"t": arrow}).to_pylist()
    in_spark = [row.asDict() for row in query_spark(sql, {"t": frame}).collect()]
    return in_process, in_spark


def test_relational_concat_of_a_null_is_duckdbs_on_both_engines(spark: Any) -> None:
    # DuckDB's concat skips a null; Spark's would return null: the transpiled text keeps DuckDB's meaning.
    in_process, in_spark = _both(spark, "SELECT k, concat(a, '-', b) AS c FROM t ORDER BY k NULLS LAST")
    assert in_process == [{"k": 1, "c": "-3"}, {"k": 2, "c": "x-1"}, {"k": None, "c": "y-"}]
    assert in_spark == in_process


def test_relational_window_order_puts_nulls_last_on_both_engines(spark: Any) -> None:
    # An ascending order puts nulls last in DuckDB, first in Spark unless the transpiled text says otherwise.
    sql = "SELECT a, row_number() OVER (ORDER BY k) AS n FROM t"
    in_process, in_spark = _both(spark, sql)
    assert sorted(in_process, key=lambda row: row["n"]) == [{"a": None, "n": 1}, {"a": "x", "n": 2}, {"a": "y", "n": 3}]
    assert sorted(in_spark, key=lambda row: row["n"]) == sorted(in_process, key=lambda row: row["n"])


def test_relational_spark_query_leaves_no_view_behind(spark: Any) -> None:
    frame = spark.createDataFrame([(1, "x", "y")], SCHEMA)
    result = query_spark("SELECT k FROM relational_probe", {"relational_probe": frame})
    assert "relational_probe" not in {table.name for table in spark.catalog.listTables()}
    assert [row.k for row in result.collect()] == [1]  # the plan was resolved before the view went


def test_relational_spark_dialect_refuses_two_statements() -> None:
    with pytest.raises(ValueError, match="one SQL statement, got 2"):
        spark_dialect("SELECT 1; SELECT 2")
