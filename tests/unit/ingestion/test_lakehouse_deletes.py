"""The lakehouse's deletes, by delta-rs in the driver and by Spark (``LakehouseTables.delete_in``, ``delete_listed``):
the same rows left by both, a value with a quote in it read as itself, nothing deleted for an empty list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from graph.tables import MENTION_ENTITIES

DOCS = ("a", "o'hara")


def _lake(spark: Any, root: Path, in_process: bool) -> Any:
    """A lakehouse whose ``mention_entities`` holds a name and a pronoun row in chunks 0 and 1 of each of ``DOCS``."""
    from graph.lakehouse import Lakehouse
    from ingestion.lakehouse import LakehouseTables

    lake = LakehouseTables(Lakehouse.for_root(root), spark, driver_max_delete_bytes=10**9 if in_process else 0)
    rows = [
        {"entity_id": "e", "mention_id": f"{doc}:c{chunk}:{kind}", "doc_id": doc, "chunk_id": f"{doc}:c{chunk}",
         "sentence_id": f"{doc}:c{chunk}:s0", "start": 0, "end": 2, "text": "He", "kind": kind}
        for doc in DOCS for chunk in (0, 1) for kind in ("name", "pronoun")
    ]
    lake.write_arrow(pa.Table.from_pylist(rows, schema=MENTION_ENTITIES.arrow_schema()), MENTION_ENTITIES.name)
    return lake


def _left(root: Path) -> list[str]:
    from deltalake import DeltaTable

    return sorted(DeltaTable(str(root / MENTION_ENTITIES.name)).to_pandas().mention_id)


@pytest.mark.parametrize("in_process", [True, False], ids=["delta-rs", "spark"])
def test_lakehouse_delete_in_keeps_the_rows_of_other_values(spark: Any, tmp_path: Path, in_process: bool) -> None:
    lake = _lake(spark, tmp_path, in_process)
    lake.delete_in(MENTION_ENTITIES.name, {"kind": ["pronoun"], "doc_id": []})
    assert len(_left(tmp_path)) == 8  # an empty list matches no row
    lake.delete_in(MENTION_ENTITIES.name, {"kind": ["pronoun"], "doc_id": ["o'hara"]})
    assert _left(tmp_path) == ["a:c0:name", "a:c0:pronoun", "a:c1:name", "a:c1:pronoun", "o'hara:c0:name",
                               "o'hara:c1:name"]
    lake.delete_where(MENTION_ENTITIES.name, "kind", ["pronoun"])
    assert _left(tmp_path) == ["a:c0:name", "a:c1:name", "o'hara:c0:name", "o'hara:c1:name"]


@pytest.mark.parametrize("in_process", [True, False], ids=["delta-rs", "spark"])
def test_lakehouse_delete_listed_deletes_the_values_present(spark: Any, tmp_path: Path, in_process: bool) -> None:
    from deltalake import DeltaTable

    lake = _lake(spark, tmp_path, in_process)
    version = DeltaTable(str(tmp_path / MENTION_ENTITIES.name)).version()
    lake.delete_listed(MENTION_ENTITIES.name, "chunk_id", ["b:c0", "b:c1"])
    assert len(_left(tmp_path)) == 8
    if in_process:  # looked at first: no commit when none of them is there
        assert DeltaTable(str(tmp_path / MENTION_ENTITIES.name)).version() == version
    lake.delete_listed(MENTION_ENTITIES.name, "chunk_id", ["a:c1", "o'hara:c0", "b:c0"])
    assert _left(tmp_path) == ["a:c0:name", "a:c0:pronoun", "o'hara:c1:name", "o'hara:c1:pronoun"]
