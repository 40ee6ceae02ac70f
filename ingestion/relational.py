"""One relational seam for the two engines: a stage's joins written once, as SQL text in DuckDB's dialect, and run

- in process by DuckDB over Arrow tables (a small corpus or increment, read and written with delta-rs), or
- at scale by Spark SQL over DataFrames, the text transpiled to Spark's dialect by sqlglot.

The tables a query reads are named in its ``FROM`` clauses and passed by those names. Both engines give the same rows
for the same query (the stages' tests run each query on both); sqlglot carries the dialects' differences across
(``concat`` of a null, the nulls' place in an ``ORDER BY``, regex splitting). Why SQL rather than an expression
library or Spark alone: docs/decisions/0012-one-relational-seam.md.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa

if TYPE_CHECKING:
    import duckdb
    from pyspark.sql import DataFrame

logger = logging.getLogger(__name__)


def query(sql: str, tables: Mapping[str, Any]) -> Any:
    """The rows of ``sql`` (DuckDB's dialect) over ``tables`` by the engine the tables say: Arrow tables alone, DuckDB
    in process (``query_arrow``: an Arrow table); any DataFrame among them, Spark SQL (``query_spark``: a DataFrame),
    the Arrow tables given beside it (a few rows made in the driver) turned into DataFrames by the JVM.
    """
    frames = [table for table in tables.values() if not isinstance(table, pa.Table)]
    if not frames:
        return query_arrow(sql, tables)
    spark = frames[0].sparkSession
    return query_spark(sql, {
        name: spark.createDataFrame(table) if isinstance(table, pa.Table) else table for name, table in tables.items()
    })


def query_rows(sql: str, tables: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``query``'s rows collected to the driver, as dicts (a struct as a dict too)."""
    result = query(sql, tables)
    if isinstance(result, pa.Table):
        return result.to_pylist()
    return [row.asDict(recursive=True) for row in result.collect()]


def query_arrow(sql: str, tables: Mapping[str, pa.Table]) -> pa.Table:
    """The rows of ``sql`` (DuckDB's dialect) over ``tables`` (name → Arrow table), computed by DuckDB in process.

    The tables are registered on a cursor of their own, so they are seen by this query only.
    """
    with _database().cursor() as con:
        for name, table in tables.items():
            con.register(name, table)
        return con.sql(sql).to_arrow_table()


@functools.cache
def _database() -> duckdb.DuckDBPyConnection:
    """The process's in-memory DuckDB database: opening one costs 25-100 ms, a cursor on it about nothing."""
    import duckdb

    return duckdb.connect()


def query_spark(sql: str, tables: Mapping[str, DataFrame]) -> DataFrame:
    """The rows of ``sql`` (DuckDB's dialect) over ``tables`` (name → DataFrame), as a Spark SQL DataFrame.

    Each table is a temporary view of its name while the query is analysed (``spark.sql`` resolves the plan when
    it creates the DataFrame), then dropped: no name outlives the call to shadow another query's table.
    """
    spark = next(iter(tables.values())).sparkSession
    try:
        for name, frame in tables.items():
            frame.createOrReplaceTempView(name)
        return spark.sql(spark_dialect(sql))
    finally:
        for name in tables:
            spark.catalog.dropTempView(name)


@functools.lru_cache(maxsize=64)
def spark_dialect(sql: str) -> str:
    """``sql`` (DuckDB's dialect) in Spark SQL's."""
    import sqlglot

    statements = sqlglot.transpile(sql, read="duckdb", write="spark")
    if len(statements) != 1:
        raise ValueError(f"expected one SQL statement, got {len(statements)}: {sql[:200]!r}")
    return statements[0]
