"""Issue 14, item 3: an entity keeps its id when a new document gives it a more informative canonical name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.unit.ingestion.tables import read

STAGES = ["documents", "chunks", "mentions", "entities"]


def _entity_with_alias(lake: Path, alias: str) -> Any:
    entities = read(lake, "entities")
    return next(row for row in entities.itertuples() if alias in list(row.aliases))


def test_issue_14_incremental_run_keeps_the_id_of_a_renamed_entity(ingest: Any, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "one.txt").write_text(
        "Margaret walked down to the mill with her father. Margaret spoke to the workers there, and Margaret "
        "listened to them for a long time before she went home.\n",
        encoding="utf-8",
    )
    assert ingest([corpus], stages=STAGES).status == "succeeded"
    before = _entity_with_alias(tmp_path / "lake", "Margaret")
    assert before.canonical_name == "Margaret"
    (corpus / "two.txt").write_text(
        "Margaret Hale left Milton in the spring. Margaret Hale wrote a long letter to her cousin in London, and "
        "Margaret Hale waited for an answer.\n",
        encoding="utf-8",
    )
    assert ingest([corpus], stages=STAGES).status == "succeeded"
    after = _entity_with_alias(tmp_path / "lake", "Margaret")
    assert after.canonical_name == "Margaret Hale"  # the new document's full name names the entity now ...
    assert after.entity_id == before.entity_id  # ... under the id it already had
    assert "Margaret Hale" in list(after.aliases)
    links = read(tmp_path / "lake", "mention_entities")
    assert set(links[links.entity_id == after.entity_id].doc_id.unique()) == set(read(tmp_path / "lake",
                                                                                      "documents").doc_id)
