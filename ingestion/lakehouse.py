"""The lakehouse: Delta tables under one root, plus the stage markers beside them.

The root is a local folder or an ``s3a://`` prefix (``graph.lakehouse``): Spark reads and writes ``spark_uri``s,
delta-rs (the driver's own commits and reads) ``delta_uri``s with the same settings' ``storage_options``.
"""

from __future__ import annotations

import functools
import logging
import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graph.errors import StorageError
from graph.lakehouse import Lakehouse
from graph.tables import TABLES
from ingestion.errors import LakehouseError
from ingestion.lock import check_confined
from ingestion.markers import MarkerStore
from settings.config import IngestionSettings

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

logger = logging.getLogger(__name__)

# What the driver does itself rather than through Spark jobs, unless the settings say otherwise
# (``ingestion.driver_max_delete_bytes``, ``ingestion.driver_max_chars``; their descriptions say why):
# the largest table (its files' bytes) whose rows ``LakehouseTables.delete_where`` deletes with delta-rs — the files
# holding the rows are read and rewritten in this process's memory —
IN_PROCESS_DELETE_BYTES = IngestionSettings.model_fields["driver_max_delete_bytes"].default
# and the most text (characters) of the documents whose rows a run makes and commits in the driver
# (``LakehouseTables.small_increment``): about ten long novels (War and Peace is 3.2 million), whose rows the driver's
# Python then holds — ~0.9 GiB for 26 million characters; past it Spark's executors share the work.
IN_PROCESS_CHARS = IngestionSettings.model_fields["driver_max_chars"].default


def one_of(column: str, values: Iterable[str]) -> Any:
    """A pyarrow dataset filter: ``column`` holds one of ``values`` (typed as strings, so an empty list is no null
    array that the scan cannot compare)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.field(column).isin(pa.array(sorted(values), pa.string()))


def _sql_string(value: object) -> str:
    """``value`` as a SQL string literal of delta-rs' predicates."""
    return "'" + str(value).replace("'", "''") + "'"


class LakehouseTables:
    """Delta tables named after the stages that write them (see docs/tables.md)."""

    def __init__(
        self, root: Lakehouse, spark: SparkSession, *, driver_max_chars: int = IN_PROCESS_CHARS,
        driver_max_delete_bytes: int = IN_PROCESS_DELETE_BYTES,
    ) -> None:
        self.storage = root
        self.driver_max_chars = driver_max_chars
        self.driver_max_delete_bytes = driver_max_delete_bytes
        self.root = root.location  # names it in messages and errors
        self.spark = spark
        self.markers = MarkerStore(self.storage)

    def check_writable(self) -> None:
        """Fail early, before any work, when the root cannot be created or written (or the bucket reached)."""
        try:
            self.storage.check_writable()
        except StorageError as exc:
            raise LakehouseError(str(exc), path=str(self.root)) from exc

    def check_confined(self) -> None:
        """Fail before a stage writes when a link under the root leads out of it (``ingestion.lock.check_confined``):
        one planted while the run was going, after the lock's check."""
        check_confined(self.storage)

    def path(self, table: str) -> str:
        """The table's location as Spark names it (a folder, or an s3a:// URI)."""
        return self.storage.spark_uri(table)

    def exists(self, table: str) -> bool:
        """Whether a committed Delta table is there."""
        return self.storage.is_table(table)

    def delta_table(self, table: str) -> Any:
        """The table's latest version opened with delta-rs (in-process, no Spark)."""
        from deltalake import DeltaTable

        return DeltaTable(self.storage.delta_uri(table), storage_options=self.storage.storage_options)

    def read(self, table: str) -> DataFrame:
        """Read a table; a missing one is an error naming the stage that writes it."""
        if not self.exists(table):
            raise LakehouseError(
                f"table {table!r} does not exist under {self.root}; run its stage first", path=self.path(table)
            )
        return self.spark.read.format("delta").load(self.path(table))

    def overwrite(self, df: DataFrame, table: str) -> None:
        """Replace the table's content in one Delta commit (atomic: readers see old or new, never a mix)."""
        (df.write.format("delta").mode("overwrite").option("overwriteSchema", "true").save(self.path(table)))

    def append(self, df: DataFrame, table: str) -> None:
        """Append rows in one Delta commit."""
        df.write.format("delta").mode("append").save(self.path(table))

    def in_process_size(self, table: str) -> bool:
        """Whether the table's files hold at most ``driver_max_delete_bytes``: small enough to scan and change in the
        driver (from the Delta log's file sizes; no data is read)."""
        actions = self.delta_table(table).get_add_actions(flatten=True)
        size = int(sum(actions.column("size_bytes").to_pylist())) if actions.num_rows else 0
        return size <= self.driver_max_delete_bytes

    def text_chars(self, doc_ids: list[str] | set[str] | None = None) -> int:
        """The characters of these documents (None: every document; 0 before the first run), from the documents
        table's ``n_chars`` column (delta-rs)."""
        if not self.exists("documents") or (doc_ids is not None and not doc_ids):
            return 0
        import pyarrow.compute as pc

        sizes = self.snapshot("documents").to_table(
            columns=["n_chars"], filter=one_of("doc_id", doc_ids) if doc_ids is not None else None
        )
        return int(pc.sum(sizes.column("n_chars")).as_py() or 0)

    def small_increment(self, doc_ids: list[str] | set[str]) -> bool:
        """Whether the text of these documents is at most ``driver_max_chars``: their derived rows may then be made
        in the driver and committed there (``write_arrow``), without a Spark job."""
        if not doc_ids or not self.exists("documents"):
            return not doc_ids
        return self.text_chars(doc_ids) <= self.driver_max_chars

    def write_arrow(self, data: Any, table: str, *, overwrite: bool = False) -> None:
        """Commit a small driver-side Arrow table in-process (delta-rs), without a Spark job.

        For the mentions stage's per-batch commits: a Spark write job would wait for a core behind the NER tasks of
        the next batch and take JVM time from them. The commit is as atomic as Spark's; both engines read and write
        the same Delta protocol (reader 1, writer 2), and Spark sees the new version on its next read.
        """
        from deltalake import write_deltalake

        uri, options = self.storage.delta_uri(table), self.storage.storage_options
        properties = TABLES[table].properties if table in TABLES else {}
        configuration = None
        if properties and (overwrite or not self.exists(table)):
            configuration = properties  # the table is created (or replaced) with them
        elif properties:
            self._ensure_properties(table, properties)
        write_deltalake(uri, data, mode="overwrite" if overwrite else "append",
                        schema_mode="overwrite" if overwrite else None, storage_options=options,
                        configuration=configuration)

    def _ensure_properties(self, table: str, properties: dict[str, str]) -> None:
        """Set the table's ``properties`` where it lacks them (one metadata commit, once): a table Spark created, or
        one written before they were declared, gets them before delta-rs appends to it."""
        current = self.delta_table(table)
        configured = current.metadata().configuration
        if any(configured.get(key) != value for key, value in properties.items()):
            current.alter.set_table_properties(properties, raise_if_not_exists=False)

    def delete_docs(self, table: str, doc_ids: list[str]) -> None:
        """Delete every row of the given documents in one Delta commit (used by incremental runs)."""
        self.delete_where(table, "doc_id", doc_ids)

    def delete_where(self, table: str, column: str, values: Sequence[str]) -> None:
        """Delete every row whose ``column`` holds one of ``values``, in one Delta commit (none when nothing to do)."""
        self.delete_in(table, {column: values})

    def delete_in(self, table: str, where: Mapping[str, Sequence[str]]) -> None:
        """Delete every row each of whose columns in ``where`` holds one of that column's values, in one Delta commit
        (none when a list is empty or the table does not exist).

        A table of up to ``driver_max_delete_bytes`` is changed in this process (delta-rs): an incremental run's
        deletes touch a few files, and a Spark job for each cost seconds (7 s for one document of the 8× library's
        ``documents``, 0.3 s in-process). A larger table is left to Spark, whose executors share the scan.
        """
        if not where or not all(where.values()) or not self.exists(table):
            return
        if self.in_process_size(table):
            # delta-rs reads a SQL predicate; Spark gets column expressions, which need no quoting of the values
            self.delta_table(table).delete(" AND ".join(
                f"{column} IN ({', '.join(_sql_string(value) for value in values)})" for column, values in where.items()
            ))
            return
        from pyspark.sql import functions as F

        conditions = [F.col(column).isin(list(values)) for column, values in where.items()]
        self.delete_matching(table, functools.reduce(operator.and_, conditions))

    def delete_listed(self, table: str, column: str, values: Sequence[str]) -> None:
        """Delete the rows whose ``column`` holds one of ``values``, however many (tens of thousands of ids). A table
        small enough for the driver is looked at first and changed only if it holds any of them; a larger one by a
        Spark merge with the values, not a predicate listing them all."""
        if not values or not self.exists(table):
            return
        if self.in_process_size(table):
            found = self.snapshot(table).to_table(columns=[column], filter=one_of(column, values))
            self.delete_where(table, column, sorted(set(found.column(column).to_pylist())))
            return
        from delta.tables import DeltaTable

        listed = self.spark.createDataFrame([(value,) for value in values], f"{column} string")
        (DeltaTable.forPath(self.spark, self.path(table)).alias("t")
         .merge(listed.alias("v"), f"t.{column} = v.{column}").whenMatchedDelete().execute())

    def delete_matching(self, table: str, condition: Any) -> None:
        """Delete every row matching ``condition`` (a Spark column expression) in one Delta commit, if the table
        exists."""
        if not self.exists(table):
            return
        from delta.tables import DeltaTable

        DeltaTable.forPath(self.spark, self.path(table)).delete(condition)

    def doc_ids(self, table: str) -> set[str]:
        """The documents present in a table (empty when the table does not exist yet).

        Read with delta-rs in this process: a column projection of a committed snapshot, without a Spark job.
        """
        if not self.exists(table):
            return set()
        return set(self.columns(table, ["doc_id"]).column("doc_id").unique().to_pylist())

    def columns(self, table: str, columns: list[str]) -> Any:
        """A pyarrow Table of some columns of the current snapshot, read in-process (for counts and small lookups)."""
        return self.snapshot(table).to_table(columns=columns)

    def snapshot(self, table: str) -> Any:
        """The table's current version as a ``pyarrow.dataset.Dataset``, read in-process
        (``graph.published.arrow_dataset``).

        Every read of the returned dataset sees that one version, whatever is committed meanwhile.
        """
        from graph.published import arrow_dataset

        return arrow_dataset(self.delta_table(table), self.storage)

    def count(self, table: str) -> int:
        """Rows in the table's current snapshot, from the Delta log's file statistics (no data is read)."""
        actions = self.delta_table(table).get_add_actions(flatten=True)
        return int(sum(actions.column("num_records").to_pylist())) if actions.num_rows else 0
