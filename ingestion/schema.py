"""The engines' side of ``graph.tables``: computed rows (a DataFrame, or Arrow rows) brought to a table's columns,
order and types.

The stages compute their DataFrames with whatever column order and integer widths their joins and aggregates give;
``conform`` selects the table's columns in the table's order, cast to its types, right before the write, so what a
stage writes is what ``graph.tables`` says the readers get (an aggregate's ``long`` where the table holds a
``double`` would otherwise change the column's type in the Delta table).
"""

from __future__ import annotations

import logging
from typing import Any

from graph.tables import TableSpec
from ingestion.errors import IngestionError

logger = logging.getLogger(__name__)


def conform(df: Any, spec: TableSpec) -> Any:
    """``df``'s columns of the table ``spec``, in table order and cast to the table's types: a DataFrame, or Arrow
    rows made in process.

    Raises:
        IngestionError: ``df`` lacks a column of the table (names them and the columns it has).
    """
    import pyarrow as pa

    columns = df.column_names if isinstance(df, pa.Table) else df.columns
    missing = [name for name in spec.names if name not in columns]
    if missing:
        raise IngestionError(
            f"cannot write table {spec.name}: the computed rows lack the columns {', '.join(missing)} "
            f"(they have: {', '.join(columns)})"
        )
    if isinstance(df, pa.Table):
        return df.select(list(spec.names)).cast(spec.arrow_schema())
    from pyspark.sql import functions as F

    # A cast to the type a column already has is dropped by Spark's optimiser: this costs nothing on the usual path.
    return df.select(*[F.col(name).cast(kind).alias(name) for name, kind in spec.columns])
