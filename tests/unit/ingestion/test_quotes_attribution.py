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


def test_quotes_turns_run_back_through_a_whole_conversation() -> None:
    # six unattributed turns before the two a verb of saying names: every one alternates back from them
    text = "\n\n".join(
        [
            *("“Is it far?”", "“Two miles.”", "“And the road?”", "“Muddy.”", "“And the river?”", "“High.”"),
            *("“Then we walk,” said Anna.", "“In the rain,” said Boris."),
        ]
    )
    assert [speaker for speaker, _ in said(text, run(text, ["Anna", "Boris"]))] == ["Anna", "Boris"] * 4


def test_quotes_paragraph_ending_with_a_colon_announces_the_next() -> None:
    text = "Peter came in late.\n\nHis sister looked up from her book and said:\n\n“You missed supper.”"
    assert said(text, run(text, ["Peter"])) == [("His sister", "anaphoric")]


def test_quotes_name_after_to_or_possessive_is_not_the_speaker() -> None:
    text = (
        "Eldridge rose from his seat.\n\n“This is a strange place,” said he to Temple.\n\n"
        "“You have a large rent too,” said the gentleman, with a glance at Dick's coat."
    )
    assert said(text, run(text, ["Eldridge", "Temple", "Dick"])) == [
        ("Eldridge", "anaphoric"),
        ("the gentleman", "anaphoric"),
    ]


def test_quotes_subject_beside_the_verb_wins_over_a_name_further_on() -> None:
    text = "“I rather like them,” said I, and Rose smiled."
    assert said(text, run(text, ["Rose"])) == [("I", "anaphoric")]


def test_quotes_subject_opening_the_clause_before_the_quotation() -> None:
    text = "Tom came in.\n\nThe old lady reached out her hand and felt Tom's shirt, and said: “You are dry.”"
    assert said(text, run(text, ["Tom"])) == [("The old lady", "anaphoric")]


def test_quotes_description_is_the_subject_not_a_phrase_after_a_preposition_or_an_adverb() -> None:
    text = (
        "Mrs. Lennox wrung her hands.\n\n“Awfully,” the young man answered in a trembling voice.\n\n"
        "“Good evening,” said the doctor carelessly."
    )
    assert said(text, run(text, ["Mrs. Lennox"])) == [("the young man", "anaphoric"), ("the doctor", "anaphoric")]


def test_quotes_he_said_is_a_speaking_description_met_after_the_last_name() -> None:
    # "the doctor" speaks in a said-clause, so the text itself makes it a person; "he asked" follows him, not Peter
    text = (
        "Peter Kronborg sat in the kitchen.\n\nThe doctor went in; he shut his door and he took out his "
        "watch.\n\n“Feel pretty sick?” he asked.\n\n“A little,” said Thea.\n\n“Open,” said the doctor."
    )
    assert said(text, run(text, ["Peter Kronborg", "Thea"]))[0] == ("The doctor", "anaphoric")


def test_quotes_pronoun_opening_the_sentence_before_speaks() -> None:
    text = "Tommy waited by the door, and Tuppence looked at him. She pounced at once.\n\n“Tommy, you are broke!”"
    result = run(text, ["Tommy", "Tuppence"])
    assert said(text, result) == [("Tuppence", "implicit")]
    assert result[0].cue is not None and text[result[0].cue[0] : result[0].cue[1]] == "She"


def test_quotes_quotation_going_on_after_a_long_said_clause_keeps_its_speaker() -> None:
    # two speakers in one paragraph: only the clause between the two parts of Ellen's sentence says it is hers
    text = (
        "“Tea is ready,” said Mary. “Ah, Mary,” cried Ellen, reposing her sorrow in the arms of her old nurse, "
        "“we must go home.”"
    )
    assert said(text, run(text, ["Mary", "Ellen"])) == [
        ("Mary", "explicit"),
        ("Ellen", "explicit"),
        ("Ellen", "explicit"),
    ]


def test_quotes_title_called_out_makes_the_reply_that_persons() -> None:
    # "parson" calls the one named Parson Tringham; "sir" is said to anyone, so it is not Sir John who answers
    text = (
        "Parson Tringham rode up, and Durbeyfield, whom he had called Sir John, stopped.\n\n"
        "“Where do we live now, parson?” asked Durbeyfield.\n\n“You do not live anywhere.”\n\n"
        "“What should I do, sir?” asked Durbeyfield.\n\n“Nothing at all.”"
    )
    result = said(text, run(text, ["Parson Tringham", "Durbeyfield", "Sir John"]))
    assert result[1] == ("Parson Tringham", "implicit")
    assert result[3] == ("sir", "implicit")


def test_quotes_description_after_a_verb_of_saying_is_a_speaker_for_a_later_she() -> None:
    text = (
        "Old Billy sat by the fire, and he poked it.\n\n“I hate it!” cried the girl.\n\n“Why?” he asked.\n\n"
        "“It is dark,” she said."
    )
    assert said(text, run(text, ["Old Billy"]))[2] == ("the girl", "anaphoric")


def test_quotes_said_another_is_someone_not_the_latest_name() -> None:
    text = "Hester stood on the scaffold.\n\n“She ought to die,” said another, “and the law says so.”"
    assert said(text, run(text, ["Hester"])) == [("another", "anaphoric"), ("another", "anaphoric")]


def test_quotes_quotation_right_after_its_said_clause_sentence_keeps_its_speaker() -> None:
    text = "“You are right,” replied Burt. “Snow is coming,” said Jim. “Are we going south?”"
    assert said(text, run(text, ["Burt", "Jim"])) == [("Burt", "explicit"), ("Jim", "explicit"), ("Jim", "explicit")]


def test_quotes_description_before_a_verb_is_a_speaker_for_a_later_she() -> None:
    # "a girl was dancing" stands before a verb: a subject, though after a comma; "the girl" speaks later in the text
    text = (
        "Old Billy slept by the fire.\n\nAmid the smoke, a girl was dancing.\n\n“What you run for?” she asked.\n\n"
        "“I hate it!” cried the girl."
    )
    assert said(text, run(text, ["Old Billy"]))[0] == ("a girl", "anaphoric")


def test_quotes_reply_goes_to_the_first_name_called_not_a_later_apposition() -> None:
    text = (
        "John Linden sat by the fire with Florence.\n\n“True, Florence, but I lost my boy, Harvey,” said John Linden."
        "\n\n“It is long since you spoke of him.”"
    )
    assert said(text, run(text, ["John Linden", "Florence", "Harvey"]))[1] == ("Florence", "implicit")


def test_quotes_paragraph_ending_with_said_and_a_dash_announces_the_next() -> None:
    text = "John looked about the room. Eliza put her head in at the door, and said at once--\n\n“She is here, Jack.”"
    assert said(text, run(text, ["John", "Eliza"])) == [("Eliza", "explicit")]


def test_quotes_less_common_verbs_of_saying() -> None:
    text = "“He's got the earmarks,” Big Medicine stated.\n\n“Where from?” queried Snake."
    assert said(text, run(text, ["Big Medicine", "Snake"])) == [("Big Medicine", "explicit"), ("Snake", "explicit")]


def test_quotes_turns_stop_at_narration_bringing_in_someone_new() -> None:
    opening = "“Is it far?” asked Anna.\n\n“Two miles,” said Boris.\n\n"
    newcomer = opening + "Just then Clara came in from the garden.\n\n“Who wants tea?”"
    known = opening + "The road was muddy and long, and Boris had no coat.\n\n“Then we walk.”"
    assert said(newcomer, run(newcomer, ["Anna", "Boris", "Clara"]))[2] == (None, "none")
    assert said(known, run(known, ["Anna", "Boris"]))[2] == ("Anna", "implicit")


def test_quotes_description_ends_before_another_determiner() -> None:
    text = "Dick lay on the box.\n\n“Wake up, you young vagabond!” said the man a little impatiently."
    assert said(text, run(text, ["Dick"])) == [("the man", "anaphoric")]


def test_quotes_description_of_a_person_opening_the_sentence_before_speaks() -> None:
    person = "Gabriel Oak stood by the gate.\n\nThe old man surveyed the road.\n\n“That's a handsome maid.”"
    thing = "Gabriel Oak stood by the gate.\n\nThe paper crackled in the wind.\n\n“That's a handsome maid.”"
    assert said(person, run(person, ["Gabriel Oak"])) == [("The old man", "implicit")]
    assert said(thing, run(thing, ["Gabriel Oak"])) == [(None, "none")]


def test_quotes_he_said_with_no_name_of_his_sex_is_a_person_noun_met_before() -> None:
    text = "The train rolled on. A man was sitting across the aisle.\n\n“Is this your first visit?” he asked."
    assert said(text, run(text, [])) == [("A man", "anaphoric")]
