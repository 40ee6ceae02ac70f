"""Issue 14, item 2: a book's people carried to the occurrences of their names that the NER left unlabelled."""

from __future__ import annotations

from typing import Any

from ingestion.carrying import Carrier, carriable_aliases, is_name_as_written, one_word_aliases, sentence_of
from ingestion.casing import article_usage, written_lowercase
from ingestion.stages.entities import carried_mentions

TEXT = (
    "Tuppence looked up. Mr. Carter smiled at Tuppence, and Tuppence's hat fell. "
    "Will you come? asked Will, and Georgia laughed in Georgia."
)


def test_issue_14_an_unlabelled_occurrence_of_a_persons_name_becomes_a_mention() -> None:
    aliases = carriable_aliases([("tup", "PERSON", ["Tuppence"]), ("carter", "PERSON", ["Mr. Carter"])])
    labelled = [(0, 8), (TEXT.index("Mr. Carter"), TEXT.index("Mr. Carter") + 10)]  # what the NER found
    found = Carrier(aliases).find(TEXT, labelled)
    starts = [TEXT.index("Tuppence", 1), TEXT.index("Tuppence's")]
    assert [(c.start, c.end, c.text, c.entity_id) for c in found] == [(s, s + 8, "Tuppence", "tup") for s in starts]


def test_issue_14_a_name_two_entities_share_is_carried_for_neither() -> None:
    # "Georgia" is a person's name and a place's: which one an unlabelled "Georgia" is, nothing says.
    aliases = carriable_aliases(
        [("g", "PERSON", ["Georgia"]), ("ga", "GPE", ["Georgia"]), ("tup", "PERSON", ["Tuppence"])]
    )
    assert aliases == {"Tuppence": "tup"}
    # ... and a name an entity below the minimum also has (``other_forms``) likewise
    assert carriable_aliases([("tup", "PERSON", ["Tuppence"])], [("Tuppence", "minor")]) == {}


def test_issue_14_a_one_word_name_the_book_also_writes_in_lowercase_is_carried_nowhere() -> None:
    # "Will" is a name and a word: casing cannot tell "Will you come?" from "asked Will".
    entities = [("will", "PERSON", ["Will"]), ("tup", "PERSON", ["Tuppence", "Mr. Tuppence"])]
    assert one_word_aliases(entities) == {"Will", "Tuppence"}
    aliases = carriable_aliases(entities, common_words={"Will"})
    assert aliases == {"Tuppence": "tup", "Mr. Tuppence": "tup"}
    assert [c.text for c in Carrier(aliases).find(TEXT)] == ["Tuppence", "Tuppence", "Tuppence"]
    # a name the book never writes in lowercase is carried where a sentence starts too
    assert [c.start for c in Carrier({"Will": "will"}).find(TEXT)] == [TEXT.index("Will you"), TEXT.index("Will,")]


def test_issue_14_only_names_as_written_are_carried() -> None:
    assert is_name_as_written("Tuppence") and is_name_as_written("Mr. Carter") and is_name_as_written("O'Hara")
    assert is_name_as_written("Charles de Gaulle")
    assert not is_name_as_written("Meanwhile Pierre", sentence_openers={"Meanwhile"})  # an opener glued on
    assert not is_name_as_written('Blowers"--a')  # NER glue
    assert not is_name_as_written("the Captain") and not is_name_as_written("de Gaulle")
    aliases = carriable_aliases([("p", "PERSON", ["Pierre", "Meanwhile Pierre"])], sentence_openers={"Meanwhile"})
    assert aliases == {"Pierre": "p"}


def test_issue_14_a_carried_name_never_splits_a_longer_word_or_a_labelled_span() -> None:
    text = "Annabel and Anna-Maria met Anna; Anna Karenina came."
    carrier = Carrier({"Anna": "a"})
    # "Anna Karenina" is one NER span: its "Anna" stays the NER's
    found = carrier.find(text, [(text.index("Anna Karenina"), text.index("Anna Karenina") + 13)])
    assert [c.start for c in found] == [text.index("Anna;")]


def test_issue_14_a_carried_mention_takes_the_sentence_of_its_neighbour_mention() -> None:
    text = "Ben met Anna. Later Anna left with Carl."
    ben, anna1, anna2, carl = 0, 8, text.index("Anna left"), text.index("Carl")
    neighbours = [(ben, ben + 3, 0), (carl, carl + 4, 1)]
    assert sentence_of(text, anna1, anna1 + 4, neighbours) == 0
    assert sentence_of(text, anna2, anna2 + 4, neighbours) == 1  # a sentence ends after "Anna." before it
    assert sentence_of(text, anna2, anna2 + 4, [(ben, ben + 3, 0)]) is None  # its sentence has no NER mention


def test_issue_14_the_entities_stage_carries_in_spark_with_document_offsets(spark: Any) -> None:
    story = "Tuppence ran. Mr. Carter saw Tuppence.\n\nWill you go, Tuppence?"
    contents = "Contents: Tuppence"
    chunks = spark.createDataFrame(
        [("k0", "d", 0, "story", 100, story), ("k1", "d", 1, "contents", 0, contents),
         ("k2", "d", 2, "story", 200, "No names here, she will say.")],
        "chunk_id string, doc_id string, chunk_index int, unit_kind string, start long, text string",
    )
    carter = story.index("Mr. Carter")
    mentions = spark.createDataFrame(
        [("k0", 100, 108, 0), ("k0", 100 + carter, 110 + carter, 1)],
        "chunk_id string, start long, end long, sentence_index int",
    )
    assert written_lowercase(chunks, {"Will", "Tuppence"}) == {"Will"}  # "she will say"
    rows = carried_mentions(chunks, mentions, {"": {"Tuppence": "tup"}}, by_document=False).collect()
    got = sorted((r.entity_id, r.chunk_id, r.start, r.end, r.text, r.sentence_id) for r in rows)
    second, third = story.index("Tuppence."), story.index("Tuppence?")
    assert got == [
        # the same sentence as Mr. Carter's NER mention; document offsets (chunk start 100)
        ("tup", "k0", 100 + second, 108 + second, "Tuppence", "k0:s1"),
        # a sentence with no NER mention gets a sentence of its own
        ("tup", "k0", 100 + third, 108 + third, "Tuppence", f"k0:p{third}"),
    ]  # nothing from the contents page, nothing in a chunk without names
    assert all(r.mention_id.startswith("k0:p") and r.doc_id == "d" for r in rows)


def test_issue_14_article_usage_counts_every_occurrence_and_those_after_an_article(spark: Any) -> None:
    chunks = spark.createDataFrame(
        [("k0", "The Cossack rode up. A Cossack and the\nCossack's horse; Denisov and a Cossack."),
         ("k1", "Cossack songs. Denisov laughed; the Denisovs. THE COSSACK")],
        "chunk_id string, text string",
    )
    # "Cossack": 5 written, 4 after an article (one across a line break, one possessive); "Denisov" never;
    # "COSSACK" is another word; a word not asked about is not counted
    assert article_usage(chunks, {"Cossack", "Denisov", "Nobody"}) == {"Cossack": (5, 4), "Denisov": (2, 0)}
    assert article_usage(chunks, set()) == {}


def test_issue_16_the_longest_alias_at_a_position_wins_up_to_the_texts_end() -> None:
    # The carrier looks an alias up by length, longest first (a library's "Prince" opens dozens of names): a longer
    # alias whose length runs past the text's end is no match, even though the slice there is a shorter alias.
    carrier = Carrier({"Prince Andrew": "a", "Prince Andrew Bolkonski": "b", "Andrew": "c"})
    text = "He saw Prince Andrew Bolkonski, then Prince Andrew's horse, and at last Prince Andrew"
    found = [(c.text, c.entity_id, c.start, c.end) for c in carrier.find(text)]
    assert found == [
        ("Prince Andrew Bolkonski", "b", 7, 30),
        ("Prince Andrew", "a", 37, 50),
        ("Prince Andrew", "a", len(text) - 13, len(text)),
    ]
