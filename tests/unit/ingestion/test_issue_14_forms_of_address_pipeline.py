"""Issue 14, item 3 (namesakes told apart by the forms of address English novels use), through the pipeline with the
default NER, on crafted chapters: a wife named by her husband's name ("Mrs. Joe", as Great Expectations names Joe
Gargery's wife) is not him; the title before a surname alone ("Mr. Knightley") names the head of the family when the
book keeps giving a brother the same title with his given name ("Mr. John Knightley", as in Emma); two men's ranks of
nobility before one given name are two men (an old prince and a young count, both Nicholas, as in War and Peace)."""

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

RANKS = (
    "Prince Nicholas Volkonski lived at his estate all the year round, and he rose at six every morning. Prince "
    "Nicholas was a stern old man; he taught his daughter geometry himself. Count Nicholas Orlov, a young hussar, "
    "rode over from the next estate, and he asked for the daughter's hand.\n\n"
    "Prince Nicholas received the young man coldly, and he did not offer him tea. Count Nicholas bowed, and he rode "
    "home. Prince Nicholas walked in the garden all evening, and he spoke to no one.\n\n"
    "Count Nicholas wrote a letter to the old man, and he sent it with his groom. Prince Nicholas burned the letter; "
    "he said that a hussar was no husband. Count Nicholas rode away to the army, and he did not come back that "
    "year. Nicholas Orlov was brave, and Prince Nicholas Volkonski was proud.\n"
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


def test_issue_14_two_ranks_of_nobility_before_one_given_name_stay_two_men_through_the_pipeline(
    ingest: Any, tmp_path: Path
) -> None:
    holder = _holders(ingest, tmp_path, RANKS)
    assert {"Prince Nicholas", "Count Nicholas"} <= holder.keys(), sorted(holder)  # the NER found both names
    assert holder["Prince Nicholas"] != holder["Count Nicholas"]
    assert holder["Prince Nicholas"] == holder["Prince Nicholas Volkonski"]
