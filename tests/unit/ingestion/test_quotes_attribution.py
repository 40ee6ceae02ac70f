"""Speaker attribution on crafted texts: a name after or before the quotation, a pronoun, a description, alternating
turns, a vocative, Hungarian dash dialogue. Person names are given as spans, as the mentions stage would."""

from __future__ import annotations

import re

from ingestion.quotes import Attribution, attribute, find_quotations


def run(text: str, names: list[str]) -> list[Attribution]:
    """Attribute ``text``'s quotations with every occurrence of each of ``names`` as a person-name span."""
    spans = [(m.start(), m.end()) for name in names for m in re.finditer(re.escape(name), text)]
    return attribute(text, find_quotations(text), spans)


def said(text: str, result: list[Attribution]) -> list[tuple[str | None, str]]:
    """(speaker as written, kind) per quotation."""
    return [(text[a.speaker[0] : a.speaker[1]] if a.speaker else None, a.kind) for a in result]


def test_quotes_speaker_named_after_the_quotation() -> None:
    text = "“We leave at dawn,” said Pierre.\n\n“So soon?” Natasha answered."
    assert said(text, run(text, ["Pierre", "Natasha"])) == [("Pierre", "explicit"), ("Natasha", "explicit")]


def test_quotes_speaker_named_before_the_quotation() -> None:
    text = "Pierre stood up. Then Natasha said: “Sit down, please.”"
    assert said(text, run(text, ["Pierre", "Natasha"])) == [("Natasha", "explicit")]


def test_quotes_pronoun_speaker_is_the_latest_name_of_that_sex() -> None:
    text = "Natasha looked at Pierre for a long time.\n\n“You are tired,” she said."
    result = run(text, ["Pierre", "Natasha"])
    assert said(text, result) == [("Natasha", "anaphoric")]
    cue = result[0].cue
    assert cue is not None and text[cue[0] : cue[1]] == "she"


def test_quotes_pronoun_speaker_of_a_reply_is_not_the_previous_speaker() -> None:
    text = "Andrew met Pierre at the gate.\n\n“Where were you?” said Pierre.\n\n“At the front,” he answered."
    assert said(text, run(text, ["Pierre", "Andrew"])) == [("Pierre", "explicit"), ("Andrew", "anaphoric")]


def test_quotes_description_speaker_carries_to_a_name_with_its_noun() -> None:
    text = "Parson Tringham rode up on a gray mare.\n\n“Good evening,” said the parson."
    assert said(text, run(text, ["Parson Tringham"])) == [("Parson Tringham", "anaphoric")]


def test_quotes_first_person_narrator_speaks_as_i() -> None:
    text = "Jim waited outside.\n\n“Come in,” I said."
    assert said(text, run(text, ["Jim"])) == [("I", "anaphoric")]


def test_quotes_interrupted_quotation_keeps_its_speaker() -> None:
    text = "“It was only my whim,” said Pierre; and, after a moment: “I meant no harm.”"
    assert said(text, run(text, ["Pierre"])) == [("Pierre", "explicit"), ("Pierre", "explicit")]


def test_quotes_alternating_turns_of_a_two_person_conversation() -> None:
    text = "“Is it far?” asked Anna.\n\n“Two miles,” said Boris.\n\n“And the road?”\n\n“Muddy.”\n\n“Then we walk.”"
    assert said(text, run(text, ["Anna", "Boris"])) == [
        ("Anna", "explicit"),
        ("Boris", "explicit"),
        ("Anna", "implicit"),
        ("Boris", "implicit"),
        ("Anna", "implicit"),
    ]


def test_quotes_vocative_addresses_and_makes_the_reply_the_addressee() -> None:
    text = "Pierre came in with Andrew and Natasha.\n\n“Are you cold, Natasha?” asked Pierre.\n\n“A little.”"
    result = run(text, ["Pierre", "Natasha", "Andrew"])
    assert said(text, result) == [("Pierre", "explicit"), ("Natasha", "implicit")]
    assert [text[s:e] for s, e in result[0].addressees] == ["Natasha"]


def test_quotes_name_opening_the_sentence_before_speaks() -> None:
    text = "Pierre turned to the window. “It is snowing.”"
    assert said(text, run(text, ["Pierre"])) == [("Pierre", "implicit")]


def test_quotes_hungarian_dash_dialogue_speakers() -> None:
    text = (
        "Gergő a patakhoz ért.\n\n"
        "- A szürke..., - hebegi Gergő siróra torzult szájjal.\n\n"
        "- Gyere hát, ha a tietek, - feleli a török, - nesze."
    )
    result = run(text, ["Gergő"])
    assert said(text, result) == [("Gergő", "explicit"), ("a török", "anaphoric"), ("a török", "anaphoric")]


def test_quotes_without_any_evidence_have_no_speaker() -> None:
    text = "The room was dark.\n\n“Who is there?”"
    assert said(text, run(text, [])) == [(None, "none")]


def test_quotes_hungarian_dropped_subject_is_the_latest_name_not_the_one_spoken_to() -> None:
    text = "Vicuska a patakhoz ért.\n\n- Gergő, - mondja a fiúnak, - gyere."
    result = run(text, ["Vicuska", "Gergő"])
    assert said(text, result) == [("Vicuska", "anaphoric"), ("Vicuska", "anaphoric")]
    assert [text[s:e] for s, e in result[0].addressees] == ["Gergő"]


def test_quotes_a_name_called_out_in_the_quotation_is_not_its_speaker() -> None:
    text = "Alexandra turned round. “I'll go up after her, Alexandra.”"
    result = run(text, ["Alexandra"])
    assert said(text, result) == [(None, "none")]
    assert [text[s:e] for s, e in result[0].addressees] == ["Alexandra"]


def test_quotes_a_name_alone_before_a_full_stop_is_an_answer_not_a_call() -> None:
    text = "“Who are you?” asked Agnes.\n\n“Margaret Hale. I am the new clerk.”\n\n“Sit down, Margaret.”"
    result = run(text, ["Agnes", "Margaret Hale", "Margaret"])
    assert [[text[s:e] for s, e in a.addressees] for a in result] == [[], [], ["Margaret"]]


def test_quotes_a_name_called_after_words_of_address_is_still_called() -> None:
    text = "Pierre sat by the fire.\n\n“Yes, my dear Monsieur Pierre, I owe you a candle.”"
    result = run(text, ["Pierre"])
    assert [text[s:e] for s, e in result[-1].addressees] == ["Pierre"]
    assert said(text, result)[-1][0] != "Pierre"
