"""Who appears in a chapter is who is named there: the chapter pages count the resolved names of
``mention_entities``, not its pronoun and description rows (kind ``pronoun`` / ``nominal``), as the graph does."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from deltalake import write_deltalake

from graph.lakehouse import Lakehouse
from tools.retrieval.chunks import Chunk
from tools.retrieval.units import UnitCatalog


def _chunk() -> Chunk:
    return Chunk(chunk_id="d:c0", doc_id="d", chunk_index=0, unit_id="d:u1", unit_index=1, unit_kind="chapter",
                 unit_title="CHAPTER I", part_title="", start=0, end=40, text="Anna came in. She saw Pierre.")


def test_a_chapters_counts_are_its_names_not_its_pronouns(tmp_path: Path) -> None:
    rows = [("anna", "name"), ("anna", "pronoun"), ("anna", "pronoun"), ("pierre", "name"), ("pierre", "nominal")]
    write_deltalake(str(tmp_path / "mention_entities"), pa.table({
        "chunk_id": ["d:c0"] * len(rows), "entity_id": [e for e, _ in rows], "kind": [k for _, k in rows]}))
    catalog = UnitCatalog.from_lakehouse(Lakehouse.for_root(tmp_path), [_chunk()])
    assert catalog.entity_counts(catalog.units[0]) == {"anna": 1, "pierre": 1}


def test_a_table_without_kinds_counts_every_row(tmp_path: Path) -> None:
    # written by an entities stage older than the pronoun rows: every row is a name
    write_deltalake(str(tmp_path / "mention_entities"), pa.table({
        "chunk_id": ["d:c0", "d:c0"], "entity_id": ["anna", "anna"]}))
    catalog = UnitCatalog.from_lakehouse(Lakehouse.for_root(tmp_path), [_chunk()])
    assert catalog.entity_counts(catalog.units[0]) == {"anna": 2}
