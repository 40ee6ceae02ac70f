"""Issue 14, item 3 (namesakes told apart by the forms of address English novels use), through the pipeline with the
default NER, on crafted chapters: a wife named by her husband's name ("Mrs. Joe", as Great Expectations names Joe
Gargery's wife) is not him; the title before a surname alone ("Mr. Knightley") names the head of the family when the
book keeps giving a brother the same title with his given name ("Mr. John Knightley", as in Emma)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.unit.ingestion.tables import read

STAGES = ["documents", "chunks", "mentions", "entities"]
FORGE = (
    "Mrs. Joe was a very clean housekeeper, and she had an exquisite art of making her cleanliness more "
    "uncomfortable than dirt. Joe was a mild, good-natured, sweet-tempered fellow, and he never quarrelled with "
    "her. Mrs. Joe scolded the whole house, and she took the Tickler down from its nail. Joe said nothing; he sat "
    "by the fire and looked at the coals.\n\n"
    "When Mrs. Joe went out to the market, she left the kitchen to us. Joe winked at me, and he gave me more gravy. "
    "Mrs. Joe came back late, and she was in a very bad temper. Joe put his hand on my shoulder, and he smiled.\n\n"
    "Mrs. Joe Gargery, my sister, was more than twenty years older than I. Joe Gargery, her husband, was a "
    "blacksmith, and he was as strong as he was gentle.\n"
)
BROTHERS = (
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


def _holders(ingest: Any, tmp_path: Path, text: str) -> dict[str, str]:
    """Ingest ``text`` as a one-file corpus; each alias of the entities table → its entity's id."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "chapter.txt").write_text(text, encoding="utf-8")
    assert ingest([corpus], stages=STAGES).status == "succeeded"
    entities = read(tmp_path / "lake", "entities")
    return {alias: row.entity_id for row in entities.itertuples() for alias in row.aliases}


def test_issue_14_a_wife_named_by_her_husbands_name_stays_apart_through_the_pipeline(
    ingest: Any, tmp_path: Path
) -> None:
    holder = _holders(ingest, tmp_path, FORGE)
    assert {"Joe", "Mrs. Joe"} <= holder.keys(), sorted(holder)  # the NER found both names
    assert holder["Joe"] != holder["Mrs. Joe"]
    assert holder["Mrs. Joe Gargery"] == holder["Mrs. Joe"]  # her full name is hers


def test_issue_14_a_titled_surname_is_not_the_brother_titled_with_his_given_name_through_the_pipeline(
    ingest: Any, tmp_path: Path
) -> None:
    holder = _holders(ingest, tmp_path, BROTHERS)
    assert {"Mr. Knightley", "Mr. John Knightley"} <= holder.keys(), sorted(holder)  # the NER found both
    assert holder["Mr. Knightley"] != holder["Mr. John Knightley"]
