"""Pronouns and descriptions linked to the entities a crafted text names (``ingestion.coref.resolve_references``).

Every expected link is written from reading the text, as a reader would resolve it."""

from __future__ import annotations

import re

import pytest

from ingestion.coref import NOMINAL, PRONOUN, Speech, references, resolve_references
from ingestion.quotes import attribute, find_quotations
from ingestion.relations.sentences import PersonMention


def _people(text: str, names: dict[str, str]) -> list[PersonMention]:
    """Every occurrence of each name (longest first, never inside a longer one) as a mention of its entity."""
    taken: list[tuple[int, int]] = []
    found = []
    for name in sorted(names, key=len, reverse=True):
        for match in re.finditer(re.escape(name), text):
            if not any(s < match.end() and match.start() < e for s, e in taken):
                taken.append((match.start(), match.end()))
                found.append(PersonMention(match.start(), match.end(), names[name]))
    return sorted(found, key=lambda m: m.start)


def _links(text: str, names: dict[str, str], speeches: tuple[Speech, ...] = ()) -> list[tuple[str, str, str]]:
    """(word as written, entity, kind) of each reference, in order."""
    return [
        (text[r.start : r.end], r.entity_id, r.kind)
        for r in resolve_references(text, _people(text, names), speeches)
    ]


def test_coref_pronoun_across_a_paragraph_is_the_woman_named_before() -> None:
    text = "Margaret Hale walked home along the river.\n\nShe was tired, and her shoes were wet."
    assert _links(text, {"Margaret Hale": "margaret"}) == [
        ("She", "margaret", PRONOUN),
        ("her", "margaret", PRONOUN),
    ]


def test_coref_pronouns_follow_the_sex_of_titles_and_given_names() -> None:
    text = "Mr. Thornton bowed to Miss Hale. She smiled at him, and he left."
    assert _links(text, {"Mr. Thornton": "thornton", "Miss Hale": "hale"}) == [
        ("She", "hale", PRONOUN),
        ("him", "thornton", PRONOUN),
        ("he", "thornton", PRONOUN),
    ]


def test_coref_father_and_son_of_one_name_stay_apart() -> None:
    """Old Osborne and his son George share a surname; the resolver gives them two entities (the son is never
    called plain "Mr. Osborne"), and each pronoun goes to the one the sentence is about."""
    text = (
        "Mr. Osborne sat alone in the library. His son George Osborne came in. "
        "He bowed to his father and sat down. Mr. Osborne looked at him."
    )
    names = {"Mr. Osborne": "father", "George Osborne": "george"}
    assert _links(text, names) == [
        ("His", "father", PRONOUN),
        ("He", "george", PRONOUN),
        ("his", "george", PRONOUN),
        ("him", "father", PRONOUN),  # not the son: Mr. Osborne is the latest sentence's first mention
    ]


def test_coref_first_person_inside_a_quotation_is_its_speaker_and_you_its_addressee() -> None:
    text = "“I know you, Natasha,” said Pierre. “My name is in your book.”\n\nNatasha laughed."
    people = _people(text, {"Pierre": "pierre", "Natasha": "natasha"})
    entity_at = {(m.start, m.end): m.entity_id for m in people}
    speeches = tuple(
        Speech(a.quote.start, a.quote.end, entity_at.get(a.speaker) if a.speaker else None,
               tuple(entity_at[s] for s in a.addressees))
        for a in attribute(text, find_quotations(text), sorted(entity_at))
    )
    links = [(text[r.start : r.end], r.entity_id) for r in resolve_references(text, people, speeches)]
    # the second quotation is Pierre's too (one paragraph, one speaker) but calls no one: "your" stays unlinked
    assert links == [("I", "pierre"), ("you", "natasha"), ("My", "pierre")]


def test_coref_first_person_outside_quotations_is_the_narrator_and_not_linked() -> None:
    text = "I met Pierre at the gate. He was cold."
    assert _links(text, {"Pierre": "pierre"}) == [("He", "pierre", PRONOUN)]


def test_coref_two_candidates_of_one_sex_the_subject_of_the_latest_sentence_wins() -> None:
    """Tom and John are both men: "He" is Tom, the first mention (most often the subject) of the latest sentence
    that names a man — the rule the module states; a reader might hesitate, the rule never abstains."""
    text = "Tom met John at the inn. He ordered wine."
    assert _links(text, {"Tom": "tom", "John": "john"}) == [("He", "tom", PRONOUN)]


def test_coref_reflexive_takes_the_nearest_candidate() -> None:
    text = "Tom told John to help himself."
    assert _links(text, {"Tom": "tom", "John": "john"}) == [("himself", "john", PRONOUN)]


def test_coref_third_person_inside_a_quotation_is_not_its_speaker() -> None:
    text = "Pierre met Andrew.\n\n“He is late,” said Pierre."
    speech_start = text.index("“")
    speeches = (Speech(speech_start, text.index("”") + 1, "pierre"),)
    links = _links(text, {"Pierre": "pierre", "Andrew": "andrew"}, speeches)
    assert links == [("He", "andrew", PRONOUN)]


def test_coref_pronoun_with_no_person_of_its_sex_is_not_linked() -> None:
    text = "Mr. Bennet read the paper. She came in."
    assert _links(text, {"Mr. Bennet": "bennet"}) == []


def test_coref_description_is_the_latest_name_carrying_its_word() -> None:
    text = "Count Rostov gave a dinner. The old count laughed loudly, and his wife smiled."
    assert _links(text, {"Count Rostov": "rostov"}) == [
        ("The old count", "rostov", NOMINAL),
        ("his", "rostov", PRONOUN),
    ]


def test_coref_no_people_no_references() -> None:
    assert resolve_references("He said she would come.", []) == []


def test_coref_pronoun_inside_a_quotation_prefers_a_person_said_in_speech() -> None:
    """Andrew, named in the narration just before, is there and nods; "He is late" speaks of Boris, whom the speech
    named: a pronoun inside a quotation looks first among the names said in quotations."""
    text = "“I wrote to Boris,” said Pierre. Andrew nodded.\n\n“He is late,” said Pierre."
    first, second = text.index("“I"), text.index("“He")
    speeches = (
        Speech(first, text.index("”") + 1, "pierre"),
        Speech(second, text.index("”", second) + 1, "pierre"),
    )
    links = _links(text, {"Boris": "boris", "Pierre": "pierre", "Andrew": "andrew"}, speeches)
    assert links == [("I", "pierre", PRONOUN), ("He", "boris", PRONOUN)]


def test_coref_name_of_unknown_sex_keeps_a_pronoun_of_the_next_sentence_only() -> None:
    """Nothing says whether Quelch is a man or a woman (no title, no given name, no pronoun after the name): the next
    sentence's "He" may be Quelch, a "He" three sentences on is not — such names are often no person at all."""
    near = "Quelch came up the stairs. He sat down."
    assert _links(near, {"Quelch": "quelch"}) == [("He", "quelch", PRONOUN)]
    far = "Quelch came up the stairs. The room was cold. The fire was out. The wind rose. He sat down."
    assert _links(far, {"Quelch": "quelch"}) == []


def test_coref_name_of_known_sex_keeps_its_pronouns_over_several_sentences() -> None:
    text = "Mr. Quelch came up the stairs. The room was cold. The fire was out. The wind rose. He sat down."
    assert _links(text, {"Mr. Quelch": "quelch"}) == [("He", "quelch", PRONOUN)]


def test_coref_description_by_an_abbreviated_title_is_the_latest_name_carrying_it() -> None:
    text = "Dr. Archie went up to the sick room. The doctor sat down by the bed."
    assert _links(text, {"Dr. Archie": "archie"}) == [("The doctor", "archie", NOMINAL)]


def test_coref_pronoun_before_any_name_is_the_first_person_of_its_sex_named_after_it() -> None:
    """A story often says "he" before the name: "His" and "him" have no earlier man, so they are Stephen, the first
    man named after them; Mary, named first, is a woman and is passed over."""
    text = "His mother called him from the kitchen. Mary laughed. Stephen ran down the stairs."
    assert _links(text, {"Mary": "mary", "Stephen": "stephen"}) == [
        ("His", "stephen", PRONOUN),
        ("him", "stephen", PRONOUN),
    ]


def test_coref_pronoun_with_an_earlier_candidate_does_not_look_ahead() -> None:
    text = "Mr. Brown sat down. He smiled. Mr. Green came in."
    assert _links(text, {"Mr. Brown": "brown", "Mr. Green": "green"}) == [("He", "brown", PRONOUN)]


def test_coref_pronoun_looks_ahead_only_within_the_cataphora_reach(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "He sat down. The room was cold. The fire was out. Mr. Quelch rang the bell."
    names = {"Mr. Quelch": "quelch"}
    assert _links(text, names) == [("He", "quelch", PRONOUN)]
    monkeypatch.setattr(references, "CATAPHORA_REACH", 2)  # Mr. Quelch is three sentences on
    assert _links(text, names) == []


def test_coref_narrated_pronoun_does_not_look_ahead_into_a_quotation() -> None:
    """The narrator's "He" is not Mr. Brown, whom only Mary's speech names; it is Tom, the next man of the
    narration."""
    text = "He waited at the gate. “Mr. Brown is late,” said Mary. Tom Hale sighed."
    speech = Speech(text.index("“"), text.index("”") + 1, "mary")
    names = {"Mr. Brown": "brown", "Mary": "mary", "Tom Hale": "tom"}
    assert _links(text, names, (speech,)) == [("He", "tom", PRONOUN)]


def test_coref_possessive_takes_the_nearest_person_of_its_own_sentence() -> None:
    """Mary opens the sentence, but "her temper" is Eliza's: the woman just named in the possessive's clause."""
    text = "Mary was the daughter of Edward, who married Eliza, a gentle girl with a kind of indolence in her temper."
    names = {"Mary": "mary", "Edward": "edward", "Eliza": "eliza"}
    assert _links(text, names) == [("her", "eliza", PRONOUN)]


def test_coref_the_person_a_passage_is_about_wins_over_the_first_of_the_latest_sentence() -> None:
    """Mr. Brown opens the latest sentence, but the passage is about Stephen, named three times before: "He" who
    shivers is Stephen. Named once each, the sentence's first would win (Tom and John above)."""
    text = (
        "Stephen walked to school alone. Stephen was cold, and Stephen was late. "
        "Mr. Brown passed Stephen on the road. He was shivering."
    )
    names = {"Stephen": "stephen", "Mr. Brown": "brown"}
    assert _links(text, names) == [("He", "stephen", PRONOUN)]
