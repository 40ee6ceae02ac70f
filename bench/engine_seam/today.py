"""Today's code of the two pieces, called as the stages call it: the driver twins over Arrow rows and the Spark
transforms over DataFrames (collected to Arrow here, where the stages write them to Delta).

The figures of docs/decisions/0012 were taken before the co-occurrence stage became one query (its twins as at
6a3fcf0): since, ``cooccurrence_rows`` and ``cooccurrence_pairs`` run that query on DuckDB and on Spark SQL, so the
``driver`` and ``spark`` co-occurrence variants measure the converted stage (``git checkout 6a3fcf0 --
ingestion/stages/cooccurrences.py`` for the twins). Likewise the entities tail since it became queries: its
``driver`` and ``spark`` variants run ``attach_sql`` and ``entity_table_sql`` on DuckDB and on Spark SQL (the twins:
``git checkout 7efd772 -- ingestion/stages/entities.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ingestion.stages.cooccurrences import cooccurrence_pairs, cooccurrence_rows
from ingestion.stages.entities import attach_entities, entity_table, keyed_mentions

WINDOW = "turns"
MIN_MENTIONS = 2


def cooc_driver(paths: dict[str, Path]) -> pa.Table:
    """``cooccurrence_rows`` over the Parquet inputs."""
    columns = ["entity_id", "chunk_id", "sentence_id", "start"]
    mention_entities = pq.read_table(paths["mention_entities"], columns=columns)
    chunks = pq.read_table(paths["chunks"], columns=["chunk_id", "doc_id", "chunk_index", "unit_id", "start", "text"])
    entities = pq.read_table(paths["entities"]).to_pydict()
    counts = dict(zip(entities["entity_id"], entities["mention_count"], strict=True))
    return cooccurrence_rows(mention_entities, chunks, counts, WINDOW)


def cooc_spark(spark: Any, paths: dict[str, Path]) -> pa.Table:
    """``cooccurrence_pairs`` over the Parquet inputs read by Spark, collected."""
    read = {name: spark.read.parquet(str(path)) for name, path in paths.items()}
    return cooccurrence_pairs(read["mention_entities"], read["chunks"], read["entities"], WINDOW).toArrow()


def _resolved(paths: dict[str, Path]) -> dict[tuple[str, str, str], str]:
    """The resolved forms, as the stage holds them: (scope, text, label) → entity id."""
    mapping = pq.read_table(paths["mapping"]).to_pydict()
    return dict(zip(zip([""] * len(mapping["text"]), mapping["text"], mapping["label"], strict=True),
                    mapping["entity_id"], strict=True))


def tail_driver(paths: dict[str, Path]) -> tuple[pa.Table, pa.Table]:
    """``keyed_mentions`` → ``attach_entities`` → ``entity_table`` in process: (mention_entities, entities)."""
    mention_entities = attach_entities(keyed_mentions(pq.read_table(paths["mentions"])), _resolved(paths), False)
    chunks = pq.read_table(paths["chunks"], columns=["chunk_id", "chunk_index", "unit_id"])
    entities = entity_table(pq.read_table(paths["resolved"]), mention_entities, chunks, MIN_MENTIONS)
    return mention_entities, entities


def tail_spark(spark: Any, paths: dict[str, Path]) -> tuple[pa.Table, pa.Table]:
    """``keyed_mentions`` → ``attach_entities`` → ``entity_table`` in Spark, both tables collected."""
    read = {name: spark.read.parquet(str(path)) for name, path in paths.items()}
    mention_entities = attach_entities(keyed_mentions(read["mentions"]), _resolved(paths), False)
    entities = entity_table(read["resolved"], mention_entities, read["chunks"], MIN_MENTIONS)
    return mention_entities.toArrow(), entities.toArrow()
