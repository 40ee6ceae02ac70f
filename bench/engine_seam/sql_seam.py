"""The two pieces written once as SQL text (DuckDB's dialect); sqlglot transpiles it to Spark SQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import sqlglot

from graph.tables import COOCCURRENCES, ENTITIES, MENTION_ENTITIES
from ingestion.stages.cooccurrences import PARAGRAPH_BREAK, TURNS_REACH

MIN_MENTIONS = 2
_SHIFTS = ", ".join(f"({shift})" for shift in range(-TURNS_REACH, TURNS_REACH + 1))

COOCCURRENCES_SQL = f"""
WITH per_chunk AS (
  SELECT chunk_id, doc_id, chunk_index, unit_id, start AS chunk_start, text,
         array_length(string_split_regex(text, '{PARAGRAPH_BREAK}')) AS n
  FROM chunks
), numbered AS (
  SELECT *, sum(n) OVER (PARTITION BY doc_id ORDER BY chunk_index ROWS UNBOUNDED PRECEDING) - n AS first_paragraph
  FROM per_chunk
), paragraphs AS (
  SELECT DISTINCT m.chunk_id, m.entity_id, c.unit_id, CAST(c.first_paragraph + array_length(string_split_regex(
           substring(c.text, 1, greatest(m.start - c.chunk_start, 0)), '{PARAGRAPH_BREAK}')) - 1 AS BIGINT) AS paragraph
  FROM mention_entities AS m JOIN numbered AS c ON m.chunk_id = c.chunk_id
), reached AS (
  SELECT p.*, p.paragraph + s.shift AS near FROM paragraphs AS p CROSS JOIN (VALUES {_SHIFTS}) AS s(shift)
), windows AS (
  SELECT concat(a.unit_id, ':', CAST(least(a.paragraph, b.paragraph) AS VARCHAR), ':',
                CAST(greatest(a.paragraph, b.paragraph) AS VARCHAR)) AS window_id,
         CASE WHEN a.paragraph <= b.paragraph THEN a.chunk_id ELSE b.chunk_id END AS chunk_id,
         least(a.entity_id, b.entity_id) AS src_id, greatest(a.entity_id, b.entity_id) AS dst_id
  FROM paragraphs AS a JOIN reached AS b
    ON a.unit_id = b.unit_id AND a.paragraph = b.near AND a.entity_id <> b.entity_id
), grouped AS (
  SELECT w.src_id, w.dst_id, count(DISTINCT w.window_id) AS "count",
         array_sort(array_agg(DISTINCT w.chunk_id) FILTER (WHERE w.chunk_id IS NOT NULL)) AS chunk_ids,
         array_sort(array_agg(DISTINCT c.unit_id) FILTER (WHERE c.unit_id IS NOT NULL)) AS unit_ids
  FROM windows AS w JOIN chunks AS c ON w.chunk_id = c.chunk_id
  GROUP BY w.src_id, w.dst_id
)
SELECT g.src_id, g.dst_id, g."count", g."count" / sqrt(s.mention_count * d.mention_count) AS weight,
       g.chunk_ids, g.unit_ids, 'turns' AS "window"
FROM grouped AS g JOIN entities AS s ON g.src_id = s.entity_id JOIN entities AS d ON g.dst_id = d.entity_id
"""

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
