"""The person or place a sentence offers as the answer: never a name the question already says. Sentences and
names are written for the test; the expected spans were decided before the code ran."""

from __future__ import annotations

from tools.analysis.lexicon import EntityLexicon


def lexicon() -> EntityLexicon:
    found = EntityLexicon()
    found.add("person", ["Mr. Pyncheon", "Pyncheon"], "Mr. Pyncheon")
    found.add("person", ["Hepzibah Pyncheon", "Hepzibah"], "Hepzibah Pyncheon")
    found.add("person", ["Matthew Maule", "Maule"], "Matthew Maule")
    found.add("place", ["Salem"], "Salem")
    return found


def test_issue_43_a_name_whose_words_the_question_says_is_not_the_answer() -> None:
    asked = frozenset("who placed a curse on the pyncheon family".split())
    text = "Mr. Pyncheon heard that Matthew Maule had cursed the house."
    assert lexicon().answer_span(text, "person", set(), asked) == "Matthew Maule"


def test_issue_43_a_namesake_with_a_given_name_the_question_does_not_say_stays_an_answer() -> None:
    asked = frozenset("who owned the pyncheon house".split())
    text = "Hepzibah Pyncheon owned the house."
    assert lexicon().answer_span(text, "person", set(), asked) == "Hepzibah Pyncheon"


def test_issue_43_without_the_question_words_every_name_may_answer() -> None:
    assert lexicon().answer_span("Mr. Pyncheon went to Salem.", "person", set()) == "Mr. Pyncheon"
    assert lexicon().answer_span("Mr. Pyncheon went to Salem.", "place", set(), frozenset({"pyncheon"})) == "Salem"


def test_issue_43_name_groups_are_found_in_one_pass_and_a_longer_name_wins() -> None:
    from tools.analysis.common import NameGroups

    groups = NameGroups([["Prince Andrew", "Andrew Bolkonski"], ["Andrew", "Andrew Kaysarov"], ["Moscow"]])
    assert groups.named_in("Prince Andrew rode to Moscow.") == {0, 2}
    assert groups.named_in("Andrew laughed; Andrews and Moscowites did not.") == {1}
    assert NameGroups([]).named_in("Anything") == set()
