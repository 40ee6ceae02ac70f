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
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    from pyspark.sql import DataFrame

    from graph.tables import TableSpec
    from ingestion.lakehouse import LakehouseTables

logger = logging.getLogger(__name__)

# Per-row Python of ``map_batches``: pandas batches in, batches of a table's columns out.
Transform = Callable[[Iterable["pd.DataFrame"]], Iterator["pd.DataFrame"]]


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


def columns(rows: Any) -> list[str]:
    """The column names of Arrow rows or of a DataFrame."""
    return list(rows.column_names if isinstance(rows, pa.Table) else rows.columns)


def query_rows(sql: str, tables: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``query``'s rows collected to the driver, as dicts (a struct as a dict too)."""
    return collected(query(sql, tables))


def collected(rows: Any) -> list[dict[str, Any]]:
    """Arrow rows or a DataFrame's rows in the driver, as dicts (a struct as a dict too)."""
    if isinstance(rows, pa.Table):
        return rows.to_pylist()
    return [row.asDict(recursive=True) for row in rows.collect()]


def collected_table(rows: Any, spec: TableSpec) -> pa.Table:
    """Arrow rows, or a DataFrame's rows collected to the driver as Arrow rows of the table ``spec``'s columns."""
    if isinstance(rows, pa.Table):
        return rows
    return pa.Table.from_pylist(collected(rows), schema=spec.arrow_schema())


class PartPool(Protocol):
    """Processes that run per-row Python over parts of a table (``ingestion.ner_pool.NerPool``)."""

    processes: int

    def map_parts(self, transform: Transform, parts: list[pd.DataFrame]) -> list[pd.DataFrame]:
        """``transform`` over each part, in the pool's processes; the frames it yields, in the parts' order."""
        ...

    def beside(self, function: Callable[..., Any], *args: Any) -> Pending:
        """``function(*args)`` begun in one of the pool's processes; its value when asked for."""
        ...


class Pending(Protocol):
    """A value being made (``beside``)."""

    def result(self) -> Any:
        """The value, once made (its error raised)."""
        ...


class _Made:
    """A value made already: ``beside`` without processes."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        """The value."""
        return self.value


# The processes a run has for per-row Python in process (``python_processes``): none, one process does it all.
_PROCESSES: ContextVar[PartPool | None] = ContextVar("csillag_python_processes", default=None)
# Parts per process: documents differ in length, so more parts than processes keep every process busy to the end.
PARTS_PER_PROCESS = 4


@contextmanager
def python_processes(pool: PartPool | None) -> Iterator[None]:
    """While in this block, ``map_batches`` in process runs its Python over parts of the rows in ``pool``'s processes
    (the NER processes a run on a local master has started: two cores do what one did)."""
    token = _PROCESSES.set(pool)
    try:
        yield
    finally:
        _PROCESSES.reset(token)


def beside(function: Callable[..., Any], *args: Any) -> Pending:
    """``function(*args)`` (a module-level function: it is pickled, and so are its arguments and value) begun in a
    process of the run's pool while the caller goes on, when the run has one (``python_processes``): a document alone
    in its batch, whose per-row Python ``map_batches`` runs here, then takes two cores for two steps that do not
    wait for each other. In a pool's process, on Spark or without processes it is called here, at once."""
    pool = _PROCESSES.get()
    if pool is None:
        return _Made(function(*args))
    return pool.beside(function, *args)


def map_batches(rows: Any, transform: Transform, spec: TableSpec) -> Any:
    """Per-row Python over ``rows`` by their engine: ``transform`` (pandas batches in, batches of the table ``spec``'s
    columns out) in process (Arrow rows in and out) — over parts of the rows in the run's processes when it has some
    (``python_processes``), else over one batch — or in Spark's Python workers (``mapInPandas``)."""
    if not isinstance(rows, pa.Table):
        return rows.mapInPandas(transform, spec.ddl())
    import pandas as pd

    frame = rows.to_pandas()
    pool = _PROCESSES.get()
    if pool is not None and len(frame) > 1:
        count = min(len(frame), pool.processes * PARTS_PER_PROCESS)
        bounds = [len(frame) * i // count for i in range(count + 1)]
        parts = [frame.iloc[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        found = [part for part in pool.map_parts(transform, parts) if len(part)]
    else:
        found = [part for part in transform([frame]) if len(part)]
    if not found:
        return spec.arrow_schema().empty_table()
    return pa.Table.from_pandas(pd.concat(found, ignore_index=True), schema=spec.arrow_schema(), preserve_index=False)


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


class InProcess:
    """The engine of a small corpus or increment: a lakehouse's tables read and committed in this process with
    delta-rs, as Arrow rows, and queried by DuckDB — no Spark job."""

    in_process = True
    #: what a stage's report says ran it
    name = "driver"

    def __init__(self, lake: LakehouseTables) -> None:
        self.lake = lake

    def read(
        self, table: str, columns: list[str], documents: list[str] | None, equal: Mapping[str, str] | None = None
    ) -> pa.Table:
        """The table's ``columns``, of these ``documents`` (None: all), where each column of ``equal`` has its value."""
        from ingestion.lakehouse import one_of

        keep = None if documents is None else one_of("doc_id", documents)
        for column, value in (equal or {}).items():
            keep = (pc.field(column) == value) if keep is None else keep & (pc.field(column) == value)
        return self.lake.snapshot(table).to_table(columns=columns, filter=keep)

    def write(self, rows: pa.Table, table: str, *, overwrite: bool = False) -> None:
        """Commit ``rows`` to the table, replacing its rows or added to them (no empty commit when none)."""
        if overwrite or rows.num_rows:
            self.lake.write_arrow(rows, table, overwrite=overwrite)

    def cache(self, rows: pa.Table) -> pa.Table:
        """Rows read more than once: Arrow rows are in memory already."""
        return rows

    def release(self, *rows: pa.Table | None) -> None:
        """Done with cached rows: nothing to free."""

    def count(self, rows: pa.Table) -> int:
        """How many rows."""
        return rows.num_rows

    def spread(self, rows: pa.Table, column: str, parts: int) -> pa.Table:
        """Rows whose per-row Python is heavy, for ``map_batches``: in process they stay as they are."""
        return rows


class OnSpark:
    """The engine of anything bigger: a lakehouse's tables read and written by Spark as DataFrames, queried by Spark
    SQL."""

    in_process = False
    #: what a stage's report says ran it
    name = "spark"

    def __init__(self, lake: LakehouseTables) -> None:
        self.lake = lake

    def read(
        self, table: str, columns: list[str], documents: list[str] | None, equal: Mapping[str, str] | None = None
    ) -> DataFrame:
        """The table's ``columns``, of these ``documents`` (None: all), where each column of ``equal`` has its value."""
        from pyspark.sql import functions as F

        frame = self.lake.read(table)
        if documents is not None:
            frame = frame.where(F.col("doc_id").isin(documents))
        for column, value in (equal or {}).items():
            frame = frame.where(F.col(column) == value)
        return frame.select(*columns)

    def write(self, rows: DataFrame, table: str, *, overwrite: bool = False) -> None:
        """Write ``rows`` to the table in one Delta commit, replacing its rows or added to them."""
        if overwrite:
            self.lake.overwrite(rows, table)
        else:
            self.lake.append(rows, table)

    def cache(self, rows: DataFrame) -> DataFrame:
        """Rows read more than once, persisted: each read would otherwise compute them again."""
        return rows.persist()

    def release(self, *rows: DataFrame | None) -> None:
        """Unpersist cached rows."""
        for frame in rows:
            if frame is not None:
                frame.unpersist()

    def count(self, rows: DataFrame) -> int:
        """How many rows (a job; from the cache when persisted)."""
        return int(rows.count())

    def spread(self, rows: DataFrame, column: str, parts: int) -> DataFrame:
        """Rows whose per-row Python is heavy, for ``map_batches``: over ``parts`` tasks by ``column``, not the
        partitions of the files they were read from."""
        return rows.repartition(parts, column)


Engine = InProcess | OnSpark


def engine_for(lake: LakehouseTables, in_process: bool) -> Engine:
    """The engine a stage runs by: ``in_process`` for a small corpus or increment (``small_increment``), else Spark."""
    return InProcess(lake) if in_process else OnSpark(lake)
