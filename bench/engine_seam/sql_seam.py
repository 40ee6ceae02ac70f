"""The two pieces written once as SQL text (DuckDB's dialect); sqlglot transpiles it to Spark SQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import sqlglot

from graph.tables import COOCCURRENCES, ENTITIES, MENTION_ENTITIES
from ingestion.stages.cooccurrences import cooccurrence_sql

MIN_MENTIONS = 2
# The co-occurrence piece is the stage's own query since the stage was converted: the bench measures what ships.
COOCCURRENCES_SQL = cooccurrence_sql("turns")

ATTACH_SQL = """
SELECT p.entity_id, m.mention_id, m.doc_id, m.chunk_id, m.sentence_id, m.start, m."end", m.text
FROM mentions AS m JOIN mapping AS p
  ON CASE WHEN coalesce(m.ent_id, '') <> '' THEN m.ent_id ELSE m.text END = p.text AND m.label = p.label
"""

ENTITIES_SQL = f"""
WITH located AS (
  SELECT m.entity_id, m.doc_id, m.chunk_id, c.chunk_index, c.unit_id
  FROM attached AS m JOIN chunks AS c ON m.chunk_id = c.chunk_id
), stats AS (
  SELECT entity_id, count(*) AS mention_count, count(DISTINCT doc_id) AS doc_count,
         min(struct_pack(doc_id := doc_id, chunk_index := chunk_index, chunk_id := chunk_id, unit_id := unit_id))
           AS first_place,
         max(struct_pack(doc_id := doc_id, chunk_index := chunk_index, chunk_id := chunk_id, unit_id := unit_id))
           AS last_place
  FROM located GROUP BY entity_id
)
SELECT r.entity_id, r.canonical_name, r.label, r.aliases, s.mention_count, s.doc_count,
       s.first_place.chunk_id AS first_chunk_id, s.last_place.chunk_id AS last_chunk_id,
       s.first_place.unit_id AS first_unit_id, s.last_place.unit_id AS last_unit_id
FROM resolved AS r JOIN stats AS s ON r.entity_id = s.entity_id
WHERE s.mention_count >= {MIN_MENTIONS}
"""


def spark_sql(duckdb_sql: str) -> str:
    """The query in Spark SQL's dialect."""
    return sqlglot.transpile(duckdb_sql, read="duckdb", write="spark")[0]


def _duckdb(con: Any, paths: dict[str, Path]) -> None:
    for name, path in paths.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet('{path}')")


def _spark(spark: Any, paths: dict[str, Path]) -> None:
    for name, path in paths.items():
        spark.read.parquet(str(path)).createOrReplaceTempView(name)


def duckdb_cooc(con: Any, paths: dict[str, Path]) -> pa.Table:
    """The co-occurrence query run by DuckDB."""
    _duckdb(con, paths)
    return con.sql(COOCCURRENCES_SQL).to_arrow_table().cast(COOCCURRENCES.arrow_schema())


def spark_cooc(spark: Any, paths: dict[str, Path]) -> pa.Table:
    """The co-occurrence query transpiled and run by Spark SQL."""
    _spark(spark, paths)
    return spark.sql(spark_sql(COOCCURRENCES_SQL)).toArrow().cast(COOCCURRENCES.arrow_schema())


def duckdb_tail(con: Any, paths: dict[str, Path]) -> tuple[pa.Table, pa.Table]:
    """Attach and entity table run by DuckDB: (mention_entities, entities)."""
    _duckdb(con, paths)
    attached = con.sql(ATTACH_SQL).to_arrow_table()
    con.register("attached", attached)
    entities = con.sql(ENTITIES_SQL).to_arrow_table()
    return attached.cast(MENTION_ENTITIES.arrow_schema()), entities.cast(ENTITIES.arrow_schema())


def spark_tail(spark: Any, paths: dict[str, Path]) -> tuple[pa.Table, pa.Table]:
    """Attach and entity table transpiled and run by Spark SQL: (mention_entities, entities)."""
    _spark(spark, paths)
    attached = spark.sql(spark_sql(ATTACH_SQL))
    attached.createOrReplaceTempView("attached")
    entities = spark.sql(spark_sql(ENTITIES_SQL))
    return (
        attached.toArrow().cast(MENTION_ENTITIES.arrow_schema()),
        entities.toArrow().cast(ENTITIES.arrow_schema()),
    )
