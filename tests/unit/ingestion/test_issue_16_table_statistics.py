"""Issue 16, item 5: the Delta log keeps no statistics of long text columns.

delta-rs copies a string column's minimum and maximum whole into the commit: a novel's ``documents`` row put its
text in the log twice (6.7 MB of JSON for War and Peace), and every later open of the table parsed it (~60-80 ms
each, a dozen times a run). The tables that hold text are created with ``delta.dataSkippingStatsColumns`` naming
the other columns (``TableSpec.unindexed``); a table created without it (by Spark, or before) gets it before the
driver's next append.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
from deltalake import DeltaTable, write_deltalake

from graph.lakehouse import Lakehouse
from graph.tables import CHUNKS, DOCUMENTS
from ingestion.lakehouse import LakehouseTables

TEXT = "It was in July, 1805, and the speaker was the well-known Anna Pavlovna Scherer. " * 2000  # ~160 KB


def _documents(doc_id: str) -> pa.Table:
    row = {"doc_id": doc_id, "source": f"{doc_id}.txt", "title": doc_id, "language": "en", "text": TEXT,
           "n_chars": len(TEXT), "n_words": len(TEXT.split()), "metadata": []}
    return pa.Table.from_pylist([row], schema=DOCUMENTS.arrow_schema())


def _stats(table: Path) -> list[dict]:
    """The statistics of every file each commit of the table added."""
    out = []
    for commit in sorted((table / "_delta_log").glob("*.json")):
        for line in commit.read_text(encoding="utf-8").splitlines():
            action = json.loads(line)
            if "add" in action:
                out.append(json.loads(action["add"]["stats"]))
    return out


def test_issue_16_the_delta_log_keeps_no_statistics_of_a_documents_text(tmp_path: Path) -> None:
    lake = LakehouseTables(Lakehouse.for_root(tmp_path), None)  # type: ignore[arg-type]  # delta-rs only: no Spark session needed
    lake.write_arrow(_documents("d1"), DOCUMENTS.name)
    lake.write_arrow(_documents("d2"), DOCUMENTS.name)
    stats = _stats(tmp_path / "documents")
    assert len(stats) == 2
    for added in stats:
        assert "text" not in added["minValues"] and "text" not in added["maxValues"]
        assert added["minValues"]["doc_id"] in {"d1", "d2"}  # the other columns keep theirs (file skipping)
    log = sum(p.stat().st_size for p in (tmp_path / "documents" / "_delta_log").glob("*.json"))
    assert log < len(TEXT) / 10, log  # the text is nowhere in the log
    assert DeltaTable(str(tmp_path / "documents")).to_pyarrow_table().column("text").to_pylist() == [TEXT, TEXT]
    lake.write_arrow(_documents("d3"), DOCUMENTS.name, overwrite=True)
    assert "text" not in _stats(tmp_path / "documents")[-1]["minValues"]
    assert DeltaTable(str(tmp_path / "documents")).metadata().configuration == DOCUMENTS.properties


def test_issue_16_a_table_created_without_the_property_gets_it_before_the_drivers_append(tmp_path: Path) -> None:
    # as Spark (or a csillag before this) created it: statistics of every column
    write_deltalake(str(tmp_path / "documents"), _documents("d1"))
    assert "text" in _stats(tmp_path / "documents")[0]["minValues"]
    LakehouseTables(Lakehouse.for_root(tmp_path), None).write_arrow(_documents("d2"), DOCUMENTS.name)  # type: ignore[arg-type]
    assert "text" not in _stats(tmp_path / "documents")[-1]["minValues"]
    table = DeltaTable(str(tmp_path / "documents"))
    assert table.metadata().configuration["delta.dataSkippingStatsColumns"] == (
        "doc_id,source,title,language,n_chars,n_words"
    )
    assert sorted(table.to_pyarrow_table().column("doc_id").to_pylist()) == ["d1", "d2"]
    assert "text" not in CHUNKS.properties["delta.dataSkippingStatsColumns"].split(",")
