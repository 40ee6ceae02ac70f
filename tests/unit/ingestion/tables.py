"""Reading lakehouse tables in tests, with delta-rs (independent of the Spark code under test)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from deltalake import DeltaTable

from graph.lakehouse import Lakehouse
from graph.published import arrow_dataset

# The natural key of each table, to compare two lakehouses row by row regardless of file order.
KEYS = {
    "documents": ["doc_id"],
    "chunks": ["chunk_id"],
    "mentions": ["mention_id"],
    "entities": ["entity_id"],
    "mention_entities": ["mention_id"],
    "quotes": ["quote_id"],
    "relations": ["src_id", "type", "dst_id"],
    "cooccurrences": ["src_id", "dst_id"],
    "graph_nodes": ["entity_id"],
    "graph_edges": ["src_id", "dst_id"],
}


def read(lake: Path | Lakehouse, table: str) -> pd.DataFrame:
    """The table's current snapshot, sorted by its key (a lakehouse on disk, or in a bucket)."""
    if isinstance(lake, Lakehouse) and lake.is_hdfs:
        # delta-rs's own reader goes through a Python file-system handler: on HDFS one of Arrow's I/O threads still
        # finishing at exit aborted the process (graph.published.arrow_dataset, which reads through hdfs-native)
        delta = DeltaTable(lake.delta_uri(table))
        frame = arrow_dataset(delta, lake).to_table().to_pandas()
    elif isinstance(lake, Lakehouse):
        frame = DeltaTable(lake.delta_uri(table), storage_options=lake.storage_options).to_pandas()
    else:
        frame = DeltaTable(str(lake / table)).to_pandas()
    keys = KEYS.get(table)
    return frame.sort_values(keys).reset_index(drop=True) if keys else frame


def version(lake: Path, table: str) -> int:
    """The table's current Delta version."""
    return DeltaTable(str(lake / table)).version()


def comparable(frame: pd.DataFrame) -> list[tuple]:
    """Rows as tuples with list/array cells turned into tuples and floats rounded, for exact comparison."""
    rows = []
    for record in frame.itertuples(index=False):
        row = []
        for cell in record:
            if hasattr(cell, "tolist"):
                cell = tuple(cell.tolist())
            elif isinstance(cell, list):
                cell = tuple(cell)
            elif isinstance(cell, float):
                cell = round(cell, 9)
            elif isinstance(cell, dict):
                cell = tuple(sorted(cell.items()))
            row.append(cell)
        rows.append(tuple(row))
    return rows
