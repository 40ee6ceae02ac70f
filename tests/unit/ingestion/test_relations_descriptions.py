"""Kinship descriptions of a person named elsewhere ("her father", "his wife", "George's mother", "my mother" in a
told speaker's quotation) linked to the one member of the possessor's family the word can describe, on crafted
texts (``ingestion.relations.descriptions``)."""

from __future__ import annotations

from ingestion.relations import PersonMention, SpokenQuote, relation_mentions
from ingestion.relations import extract as extract_module
from ingestion.relations.descriptions import MIN_DESCRIPTIONS, agreed
from ingestion.relations.statements import RelationMention
from tests.unit.ingestion.test_relations_sources import people

# One family: a father, a married mother, an unmarried daughter; and a man of another family.
SMITHS = {
    "Mr. Tom Smith": "tom",
    "Mr. Smith": "tom",
    "Mrs. Smith": "mrs_smith",
    "Jane Smith": "jane",
    "Miss Smith": "jane",
    "Jane": "jane",
    "Harry Brown": "harry",
    "Harry": "harry",
}
INTRODUCTION = (
    "Mr. Tom Smith kept the mill. Mrs. Smith kept the house. Jane Smith was their only child, and Miss Smith "
    "was much admired. Harry Brown came often. "
)


def described(text: str, names: dict[str, str], links: dict[str, str] | None = None, quotes: list | None = None):
    """The (src, type, dst, pattern) of the descriptions' statements; ``links``: a pronoun's words (its first
    occurrence in ``text``) -> the entity the pronoun links give it."""
    pronouns = {text.index(words): entity for words, entity in (links or {}).items()}
    rows = relation_mentions(text, people(text, names), "en", pronouns, quotes or [])
    return {(r.src_id, r.type, r.dst_id, r.pattern) for r in rows if r.pattern.startswith("description")}


def test_descriptions_her_father_is_the_one_man_of_her_family_name() -> None:
    text = INTRODUCTION + "Jane laughed and kissed her father."
    assert described(text, SMITHS) == {("tom", "parent", "jane", "description")}


def test_descriptions_a_married_woman_is_a_mother_or_a_wife_never_a_daughter() -> None:
    text = INTRODUCTION + "Jane Smith ran to her mother. Mr. Smith looked at his wife. Mr. Smith praised his daughter."
    assert described(text, SMITHS) == {
        ("mrs_smith", "parent", "jane", "description"),
        ("mrs_smith", "spouse", "tom", "description"),
        ("jane", "child", "tom", "description"),
    }


def test_descriptions_a_name_with_an_s_is_the_possessor() -> None:
    text = INTRODUCTION + "Jane's mother smiled."
    assert described(text, SMITHS) == {("mrs_smith", "parent", "jane", "description")}


def test_descriptions_of_two_fitting_members_the_one_named_near_it() -> None:
    two_sons = {**SMITHS, "Bob Smith": "bob", "Bob": "bob"}
    # Tom and Bob are both men of her name; Bob is named three sentences around the description, Tom is not
    text = INTRODUCTION + "Bob Smith was away. Jane Smith wrote to her brother."
    assert described(text, two_sons) == {("bob", "sibling", "jane", "description")}
    both = "Mr. Tom Smith and Bob Smith were away. Jane Smith wrote to her brother."
    assert described(INTRODUCTION + both, two_sons) == set()  # both are near: nothing
    far = INTRODUCTION + "Bob Smith was away. " + "The mill turned. " * 4 + "Jane Smith wrote to her brother."
    assert described(far, two_sons) == set()


def test_descriptions_another_family_gives_nothing() -> None:
    assert described(INTRODUCTION + "Harry Brown thought of his father.", SMITHS) == set()  # no Brown but Harry


def test_descriptions_a_name_after_the_word_is_left_to_the_patterns() -> None:
    text = INTRODUCTION + "Jane Smith's father, Mr. Smith, was at the mill."
    assert described(text, SMITHS) == set()


def test_descriptions_the_pronoun_of_the_sentence_before_needs_its_link() -> None:
    text = INTRODUCTION + "Jane Smith came in. She kissed her father."
    assert described(text, SMITHS) == set()  # no link for "her"
    assert described(text, SMITHS, {"her father": "jane"}) == {("tom", "parent", "jane", "description+previous")}
    assert described(text, SMITHS, {"her father": "mrs_smith"}) == set()  # the link disagrees


def test_descriptions_my_kin_in_a_told_speakers_quotation() -> None:
    text = INTRODUCTION + '"My father is at the mill," said Jane.'
    start = text.index('"')
    quote = SpokenQuote(start, text.index('"', start + 1) + 1, "jane", (), "explicit")
    assert described(text, SMITHS, quotes=[quote]) == {("tom", "parent", "jane", "description_my")}
    guessed = SpokenQuote(quote.start, quote.end, "jane", (), "implicit")  # turn-taking: no evidence
    assert described(text, SMITHS, quotes=[guessed]) == set()


def test_descriptions_a_kinship_title_holds_only_its_own_tie() -> None:
    marches = {"Aunt March": "aunt", "Miss Jo March": "jo", "Jo": "jo", "Mr. March": "father", "Mrs. March": "mother"}
    text = "Aunt March was rich. Miss Jo March was poor. Mr. March was away. Mrs. March sewed. Jo kissed her sister."
    # Aunt March is the one March woman besides Jo who is not married, but her title says which tie she holds
    assert described(text, marches) == set()
    # and an aunt is not read by the family name at all (she is as often of the mother's family)
    assert described(text.replace("her sister", "her aunt"), marches) == set()
    assert described(text.replace("her sister", "her father"), marches) == {("father", "parent", "jo", "description")}


def test_descriptions_disagreeing_ties_of_one_pair_are_dropped() -> None:
    rows = [
        RelationMention("tom", "parent", "jane", 0, 5, "c", "description", 0.5),
        RelationMention("jane", "child", "tom", 10, 15, "c", "description", 0.5),  # the same tie, inverse
        RelationMention("bob", "parent", "sam", 20, 25, "c", "description", 0.5),
        RelationMention("bob", "child", "sam", 30, 35, "c", "description", 0.5),  # a misread possessor
        RelationMention("ann", "sibling", "tom", 40, 45, "c", "description", 0.5),
    ]
    stated = [RelationMention("ann", "spouse", "tom", 50, 55, "c", "married", 0.9)]  # another source: not siblings
    assert MIN_DESCRIPTIONS == 1
    assert agreed(rows, stated) == rows[:2]


def test_descriptions_switched_off_give_no_statement() -> None:
    text = INTRODUCTION + "Jane laughed and kissed her father."
    extract_module.DESCRIPTIONS = False
    try:
        assert described(text, SMITHS) == set()
    finally:
        extract_module.DESCRIPTIONS = True


def test_descriptions_hungarian_is_not_read() -> None:
    mentions = [PersonMention(0, 4, "a", "c"), PersonMention(10, 14, "b", "c")]
    rows = relation_mentions("Anna és Béla apja.", mentions, "hu")
    assert not [r for r in rows if r.pattern.startswith("description")]
