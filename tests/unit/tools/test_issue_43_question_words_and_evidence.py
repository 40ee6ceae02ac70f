"""What the question answering tool reads of a question and how much evidence it prints, on books written here:
the words of an interrogative phrase ("how long", "what kind of") do not pick the passage, and the evidence quotes
the best sentences of many chunks in short windows rather than long windows of a few."""

from __future__ import annotations

import asyncio

import pytest

from tests.unit.tools.crafted_book import crafted_platform
from tools.analysis.question import analyse
from tools.platform import ChatPlatform
from tools.request import ChatRequest


def ask(platform: ChatPlatform, question: str, domain: str) -> str:
    return asyncio.run(platform.handle(ChatRequest(question, domain=domain, user_lang="en"))).content


@pytest.mark.parametrize(("question", "words"), [
    ("How long did Clifford serve time for manslaughter?", ("clifford", "serve", "time", "manslaughter")),
    ("How many guests came to the wedding?", ("guests", "came", "wedding")),
    ("What kind of dog is Buck?", ("dog", "buck")),
    ("What is the name of the dog that had to be shot?", ("dog", "shot")),
    # an age is written with "old" ("six months old"): the word finds it
    ("How old is Katrina Van Tassel?", ("old", "katrina", "van", "tassel")),
    ("What did Anna see on the long road?", ("anna", "see", "long", "road")),
])
def test_issue_43_the_words_of_an_interrogative_phrase_are_not_content_words(question, words):
    assert analyse(question).content_words == words


# "long" is rare in this book and "served" common: read as a content word, "long" would pick the walk of two days.
PRISON = {
    "c0": ("CHAPTER I", "Edmund Vale walked the long road to the prison at Halt in two days."),
    "c1": ("CHAPTER II", "Edmund Vale served twelve years in the prison at Halt."),
    "c2": ("CHAPTER III", "The cook served soup to the guests."),
    "c3": ("CHAPTER IV", "The maid served bread at the inn."),
}
PRISON_ENTITIES = {
    "edmund": ("Edmund Vale", "PERSON", ["Edmund"], ["c0", "c1"]),
    "halt": ("Halt", "GPE", [], ["c0", "c1"]),
}


def test_issue_43_how_long_is_answered_by_a_length_of_time_not_by_the_word_long():
    platform = crafted_platform("Halt", PRISON, PRISON_ENTITIES)
    content = ask(platform, "How long did Edmund Vale serve in the prison?", "halt")
    assert content.splitlines()[0] == "twelve years — “Edmund Vale served twelve years in the prison at Halt.” [1]"
