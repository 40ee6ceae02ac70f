"""Issue 14, item 3 (namesakes told apart by sex): a wife the book names by her husband's name ("Mrs. Joe", as
Great Expectations names Joe Gargery's wife) stays apart from him — through the pipeline, with the default NER."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.unit.ingestion.tables import read

STAGES = ["documents", "chunks", "mentions", "entities"]
STORY = (
    "Mrs. Joe was a very clean housekeeper, and she had an exquisite art of making her cleanliness more "
    "uncomfortable than dirt. Joe was a mild, good-natured, sweet-tempered fellow, and he never quarrelled with "
    "her. Mrs. Joe scolded the whole house, and she took the Tickler down from its nail. Joe said nothing; he sat "
    "by the fire and looked at the coals.\n\n"
    "When Mrs. Joe went out to the market, she left the kitchen to us. Joe winked at me, and he gave me more gravy. "
    "Mrs. Joe came back late, and she was in a very bad temper. Joe put his hand on my shoulder, and he smiled.\n\n"
    "Mrs. Joe Gargery, my sister, was more than twenty years older than I. Joe Gargery, her husband, was a "
    "blacksmith, and he was as strong as he was gentle.\n"
)


def test_issue_14_a_wife_named_by_her_husbands_name_stays_apart_through_the_pipeline(
    ingest: Any, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "forge.txt").write_text(STORY, encoding="utf-8")
    assert ingest([corpus], stages=STAGES).status == "succeeded"
    entities = read(tmp_path / "lake", "entities")
    holder = {alias: row.entity_id for row in entities.itertuples() for alias in row.aliases}
    assert {"Joe", "Mrs. Joe"} <= holder.keys(), sorted(holder)  # the NER found both names
    assert holder["Joe"] != holder["Mrs. Joe"]
    assert holder["Mrs. Joe Gargery"] == holder["Mrs. Joe"]  # her full name is hers
