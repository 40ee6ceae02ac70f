"""Relations read from crafted texts by the sources beside the sentence patterns: couples named by their names'
forms, kinship vocatives in a conversation, "your KIN" said to a known addressee, and the kinship inferred from
those rows."""

from __future__ import annotations

import re

from ingestion.relations import PersonMention, SpokenQuote, aggregate, infer, relation_mentions


def people(text: str, names: dict[str, str]) -> list[PersonMention]:
    """The mentions of ``names`` (written form -> entity id) in ``text``, longest form first, never overlapping."""
    taken: list[PersonMention] = []
    for form in sorted(names, key=len, reverse=True):
        for match in re.finditer(rf"(?<!\w){re.escape(form)}(?!\w)", text):
            if all(match.end() <= m.start or match.start() >= m.end for m in taken):
                taken.append(PersonMention(match.start(), match.end(), names[form], "c0"))
    return sorted(taken, key=lambda mention: mention.start)


def quotations(text: str, speakers: list[tuple[str | None, str]], addressees: dict[int, str] | None = None) -> list:
    """The double-quoted quotations of ``text`` in order, each given the speaker and attribution of ``speakers``."""
    found = [match.span() for match in re.finditer(r'"[^"]*"', text)]
    assert len(found) == len(speakers), (found, speakers)
    named = addressees or {}
    return [
        SpokenQuote(start, end, speaker, (named[index],) if index in named else (), kind)
        for index, ((start, end), (speaker, kind)) in enumerate(zip(found, speakers, strict=True))
    ]


def triples(text: str, names: dict[str, str], quotes: list | None = None) -> set[tuple[str, str, str]]:
    rows = relation_mentions(text, people(text, names), "en", quotes=quotes or [])
    return {(row.src_id, row.type, row.dst_id) for row in rows}


COUPLES = {
    "Mr. Snagsby": "snagsby",
    "Mrs. Snagsby": "mrs_snagsby",
    "Mr. Linton": "edgar",
    "Mrs. Linton": "catherine",
    "John Brooke": "john",
    "Mrs. John Brooke": "meg",
    "Mary Smith": "mary",
    "Mrs. Mary Smith": "mrs_smith",
}


def test_couples_mr_and_mrs_and_a_wife_by_her_husbands_name() -> None:
    text = (
        "Mr. Snagsby sold paper. Mrs. Snagsby watched him. Mr. and Mrs. Snagsby dined alone. "
        "Mr. Linton rode out; Mrs. Linton stayed. Old Mr. and Mrs. Linton were not there. "
        "John Brooke wrote a letter to Mrs. John Brooke. Mary Smith visited Mrs. Mary Smith."
    )
    # the elder Lintons are not "Mr. Linton" of the book; "Mary" is no man's name, so no husband is named
    assert triples(text, COUPLES) == {("snagsby", "spouse", "mrs_snagsby"), ("john", "spouse", "meg")}


def test_couples_a_form_of_two_people_names_no_husband() -> None:
    text = "Mr. Pontifex said grace. Mr. Pontifex said grace. Mrs. Pontifex smiled. Mr. and Mrs. Pontifex sat down."
    mentions = people(text, {"Mr. Pontifex": "george", "Mrs. Pontifex": "christina"})
    mentions[1] = PersonMention(mentions[1].start, mentions[1].end, "theobald", "c0")  # the same form, his son
    assert relation_mentions(text, mentions) == []
    mentions[1] = PersonMention(mentions[1].start, mentions[1].end, "george", "c0")
    assert {(r.src_id, r.type, r.dst_id) for r in relation_mentions(text, mentions)} == {
        ("george", "spouse", "christina")
    }


# Natasha's calls stand between two of the countess's turns: the other side of the talk, before and after, is hers.
CONVERSATION = (
    '"Come here," said Countess Rostova.\n\n'
    '"Mamma, may I go?" asked Natasha Rostova.\n\n'
    '"You may," said Countess Rostova.\n\n'
    '"Tell me, Mamma, is he kind?" asked Natasha Rostova.\n\n'
    '"He is," said Countess Rostova.'
)
NAMES = {"Natasha Rostova": "natasha", "Countess Rostova": "countess", "Helene Kuragina": "helene"}
TOLD = [("countess", "explicit")] + [("natasha", "explicit"), ("countess", "explicit")] * 2


def test_vocatives_twice_to_one_addressee_give_the_kinship() -> None:
    assert triples(CONVERSATION, NAMES, quotations(CONVERSATION, TOLD)) == {("countess", "parent", "natasha")}


def test_vocatives_once_or_by_turn_taking_or_without_a_conversation_give_nothing() -> None:
    once = CONVERSATION.replace("Tell me, Mamma,", "Tell me,")
    assert triples(once, NAMES, quotations(once, TOLD)) == set()
    implicit = [(speaker, "implicit") for speaker, _ in TOLD]  # a speaker read from the turns alone
    assert triples(CONVERSATION, NAMES, quotations(CONVERSATION, implicit)) == set()
    alone = [(speaker, kind) if speaker == "natasha" else (None, "none") for speaker, kind in TOLD]
    assert triples(CONVERSATION, NAMES, quotations(CONVERSATION, alone)) == set()
    # the talk's first turn is someone else's: the two sides of Natasha's first call disagree
    third = [("helene", "explicit")] + TOLD[1:]
    assert triples(CONVERSATION, NAMES, quotations(CONVERSATION, third)) == set()


def test_vocatives_refused_by_sex_family_name_and_calling_each_other() -> None:
    # "Papa" said to a woman
    papa = CONVERSATION.replace("Mamma", "Papa")
    assert triples(papa, NAMES, quotations(papa, TOLD)) == set()
    # the other side of the talk is a woman of another family
    other = CONVERSATION.replace("Countess Rostova", "Helene Kuragina")
    assert triples(other, NAMES, quotations(other, [(s.replace("countess", "helene"), k) for s, k in TOLD])) == set()
    # both call the other "Mamma": neither is said to be the mother
    mutual = CONVERSATION.replace('"You may,"', '"Mamma, you may,"').replace('"He is,"', '"Mamma, he is,"')
    mutual += '\n\n"Good night," said Natasha Rostova.'
    assert triples(mutual, NAMES, quotations(mutual, [*TOLD, ("natasha", "explicit")])) == set()


def test_vocatives_inside_a_quoted_story_are_not_the_speakers() -> None:
    text = CONVERSATION.replace('"Mamma, may I go?"', "\"They asked him, 'Why, Mamma, may I go?'\"").replace(
        '"Tell me, Mamma, is he kind?"', "\"He said, 'Tell me, Mamma, is he kind?'\""
    )
    assert triples(text, NAMES, quotations(text, TOLD)) == set()


def test_vocatives_my_dear_wife_and_not_a_bare_wife() -> None:
    text = (
        '"Good evening," said Maria Smith.\n\n"My dear wife, sit down," said Mr. Hale Smith.\n\n'
        '"I will," said Maria Smith.\n\n"Thank you, my dear wife," said Mr. Hale Smith.\n\n'
        '"Not at all," said Maria Smith.'
    )
    names = {"Mr. Hale Smith": "hale", "Maria Smith": "maria"}
    speakers = [("maria", "explicit")] + [("hale", "explicit"), ("maria", "explicit")] * 2
    assert triples(text, names, quotations(text, speakers)) == {("maria", "spouse", "hale")}
    bare = text.replace("My dear wife", "Wife").replace("my dear wife", "wife")
    assert triples(bare, names, quotations(bare, speakers)) == set()


def test_your_kin_is_the_named_addressees() -> None:
    text = '"Ernest, your brother Joey came," said Theobald. "Your brother Joey came," said Theobald.'
    names = {"Ernest": "ernest", "Joey": "joey", "Theobald": "theobald"}
    speakers = [("theobald", "explicit"), ("theobald", "explicit")]
    # the first quotation names its addressee; the second names none, and "your" there is no one known
    found = relation_mentions(text, people(text, names), quotes=quotations(text, speakers, {0: "ernest"}))
    assert [(row.src_id, row.type, row.dst_id, row.start) for row in found] == [
        ("joey", "sibling", "ernest", text.index("your brother"))
    ]


def test_inference_a_parent_of_a_sibling_not_a_parents_spouse() -> None:
    """Mrs. March is Jo's mother (stated) and Amy is Jo's sister: she is Amy's mother too. Mr. March, her husband,
    is made no one's father: a parent's spouse may be a step-parent."""
    text = "Jo, the daughter of Mrs. March, laughed. Jo's sister, Amy, drew. Mr. March married Mrs. March."
    names = {"Jo": "jo", "Mrs. March": "mother", "Amy": "amy", "Mr. March": "father"}
    rows = {(r.src_id, r.type, r.dst_id): r for r in infer(aggregate(relation_mentions(text, people(text, names))))}
    inferred = {key for key, row in rows.items() if row.inferred}
    assert {("mother", "parent", "amy"), ("amy", "child", "mother")} <= inferred
    assert rows[("mother", "parent", "amy")].count == 0
    assert not {key for key in rows if key[0] == "father" and key[1] == "parent"}


def test_i_am_kin_is_the_told_speaker() -> None:
    text = (
        '"I am Mr. Jellyby\'s wife," said Mrs. Jellyby. "And I am the daughter of Mr. Turveydrop," said Caddy. '
        '"I am an admirer of Mr. Turveydrop," said Pip. "I am the son of Mr. Jellyby," and Jo ran off.'
    )
    names = {"Mr. Jellyby": "mr_j", "Mrs. Jellyby": "mrs_j", "Mr. Turveydrop": "turveydrop", "Caddy": "caddy"}
    names |= {"Pip": "pip", "Jo": "jo"}
    speakers = [("mrs_j", "explicit"), ("caddy", "anaphoric"), ("pip", "explicit"), ("jo", "implicit")]
    # an admirer is no kin; a speaker only guessed from the turns is not taken
    assert triples(text, names, quotations(text, speakers)) == {
        ("mrs_j", "spouse", "mr_j"),
        ("caddy", "child", "turveydrop"),
    }


def test_i_am_kin_in_hungarian_dialogue_is_the_told_speaker() -> None:
    text = (
        "- Uram, - mondotta Éva, - én Bornemissza Gergelynek a felesége vagyok.\n\n"
        "- Ha Dobó fia vagyok, - mondta Jancsi."
    )
    names = {"Éva": "eva", "Bornemissza Gergelynek": "gergely", "Dobó": "dobo", "Jancsi": "jancsi"}
    first, second = text.index("én Born"), text.index("Ha Dobó")
    quotes = [
        SpokenQuote(first, text.index("vagyok.") + 7, "eva", (), "explicit"),
        SpokenQuote(second, text.index(", - mondta Jancsi"), "jancsi", (), "explicit"),
    ]
    # a condition ("ha": if) says nothing
    rows = relation_mentions(text, people(text, names), "hu", quotes=quotes)
    assert {(row.src_id, row.type, row.dst_id, row.pattern) for row in rows} == {
        ("eva", "spouse", "gergely", "speaker_is_possessive")
    }
