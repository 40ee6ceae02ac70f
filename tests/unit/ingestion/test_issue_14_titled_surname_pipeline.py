"""Issue 14, item 3 (namesakes, two brothers): the title before a surname alone names the head of the family —
"Mr. Knightley" — when the book keeps giving a brother the same title with his given name ("Mr. John Knightley").
Through the pipeline, with the default NER, on a crafted chapter in the manner of Emma."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.unit.ingestion.tables import read

STAGES = ["documents", "chunks", "mentions", "entities"]
CHAPTER = (
    "Mr. Knightley, a sensible man of about seven or eight and thirty, was a very old and intimate friend of the "
    "family. Mr. Knightley walked in, and he sat down by the fire. Mr. John Knightley, his younger brother, was a "
    "lawyer in London, and he came to Hartfield at Christmas.\n\n"
    "Mr. John Knightley was a tall, gentleman-like, and very clever man; he was rising in his profession. Mr. "
    "Knightley loved his brother, and he was glad to see him. Mr. John Knightley said little; he was tired from the "
    "journey.\n\n"
    "George Knightley had been the owner of Donwell Abbey since his father died, and he managed the estate himself. "
    "Mr. Knightley smiled at Emma, and he told her the news. Mr. John Knightley took up the newspaper, and he read "
    "it by the candle. George Knightley, he said, was the best of brothers.\n"
)


def test_issue_14_a_titled_surname_is_not_the_brother_titled_with_his_given_name_through_the_pipeline(
    ingest: Any, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "emma.txt").write_text(CHAPTER, encoding="utf-8")
    assert ingest([corpus], stages=STAGES).status == "succeeded"
    entities = read(tmp_path / "lake", "entities")
    holder = {alias: row.entity_id for row in entities.itertuples() for alias in row.aliases}
    assert {"Mr. Knightley", "Mr. John Knightley"} <= holder.keys(), sorted(holder)  # the NER found both
    assert holder["Mr. Knightley"] != holder["Mr. John Knightley"]
