"""Who-questions answered by the person on the side of the named one that the question asks for: "Who does Mildred run
away with?" is answered by the person said after Mildred, not by a bystander said before her. The crafted book and
its answers were written by hand before the tool ran on them."""

from __future__ import annotations

import asyncio

import pytest

from tests.unit.tools.crafted_book import crafted_platform
from tools.analysis.answering import asked_role, in_the_asked_role
from tools.analysis.lexicon import EntityLexicon
from tools.request import ChatRequest

CHAPTERS = {
    "c0": ("CHAPTER I", "Mildred worked in the tea shop. Philip came every day for tea."),
    "c1": ("CHAPTER II", "Philip knew that Mildred had run away with Griffiths."),
}
ENTITIES = {
    "mildred": ("Mildred", "PERSON", [], ["c0", "c1"]),
    "philip": ("Philip", "PERSON", [], ["c0", "c1"]),
    "griffiths": ("Griffiths", "PERSON", [], ["c1"]),
}


@pytest.mark.parametrize(("question", "role"), [
    ("Who does Mildred run away with?", "object"),
    ("Whom did Anna see?", "object"),
    ("With whom does George fall in love?", "object"),
    ("Who adopted Jack?", "subject"),
    ("Who kills Tulkinghorn?", "subject"),
    ("Who falls in love with Philip?", "subject"),
    ("Who is Anna's father?", ""),  # a relation, not a deed
    ("Who was named Tarzan?", ""),
    ("Who did the ghost turn out to be?", ""),  # no name after the auxiliary
    ("What does Mildred do?", ""),
])
def test_issue_43_the_role_a_who_question_asks_for(question, role):
    assert asked_role(question) == role


def test_issue_43_the_people_on_the_asked_side_of_the_named_one_come_first():
    lexicon = EntityLexicon()
    for name in ("Philip", "Mildred", "Griffiths", "Kala", "Jack", "Kerchak"):
        lexicon.add("person", [name])
    text = "Philip knew that Mildred had run away with Griffiths."
    assert in_the_asked_role(lexicon, text, {"mildred"}, frozenset(), "object") == ["Griffiths", "Philip"]
    assert in_the_asked_role(lexicon, text, {"mildred"}, frozenset(), "") == ["Philip", "Griffiths"]
    # the first "Jack" decides: nobody is named before it, so the order stays (the rule reads no clauses)
    text = "Jack cried when Kerchak came, but Kala adopted Jack."
    assert in_the_asked_role(lexicon, text, {"jack"}, frozenset(), "subject") == ["Kerchak", "Kala"]
    assert in_the_asked_role(lexicon, "Kala adopted him.", {"jack"}, frozenset(), "subject") == ["Kala"]


def test_issue_43_who_did_the_named_one_do_it_with_is_said_after_the_name():
    platform = crafted_platform("Shop", CHAPTERS, ENTITIES)
    response = asyncio.run(platform.handle(ChatRequest("Who does Mildred run away with?", domain="shop",
                                                       user_lang="en")))
    assert response.content.splitlines()[0] == (
        "Griffiths — “Philip knew that Mildred had run away with Griffiths.” [1]"), response.content

