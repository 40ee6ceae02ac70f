"""What the question answering tool reads of a question and how much evidence it prints, on books written here:
the words of an interrogative phrase ("how long", "what kind of") do not pick the passage, a sentence's neighbours
count for the question's words it lacks, and the evidence quotes the best sentences of many chunks in short windows
rather than long windows of a few."""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.unit.tools.crafted_book import crafted_platform
from tools.analysis.answering import EVIDENCE_PASSAGES, PASSAGE_CHARS
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


# The cup is named in every sentence of chapter I; chapter II names it once, and the burying in the next sentence.
# Counted again for repeating the sentence's own words, chapter I's neighbours would win it the answer (Brindle).
CUP = {
    "c0": ("CHAPTER I", "The silver cup stood on the table at Brindle. Edmund Vale polished the silver cup at Brindle. "
                        "The silver cup shone on the table at Brindle."),
    "c1": ("CHAPTER II", "Edmund Vale wrapped the silver cup in a cloth. He buried it under the oak at Carrow."),
    "c2": ("CHAPTER III", "The maid set out bread and a cup of milk."),
    "c3": ("CHAPTER IV", "Rain fell on Carrow for a week."),
}
CUP_ENTITIES = {
    "edmund": ("Edmund Vale", "PERSON", ["Edmund"], ["c0", "c1"]),
    "brindle": ("Brindle", "GPE", [], ["c0"]),
    "carrow": ("Carrow", "GPE", [], ["c1", "c3"]),
}


def test_issue_43_a_sentence_whose_neighbour_completes_the_question_beats_one_whose_neighbours_repeat_it():
    platform = crafted_platform("Oak", CUP, CUP_ENTITIES)
    content = ask(platform, "Where did Edmund Vale bury the silver cup?", "oak")
    assert content.splitlines()[0] == "Carrow — “He buried it under the oak at Carrow.” [1]"


# Fourteen chapters, each with one sentence about the lantern amid the same filler: every one answers in part, so the
# evidence should show as many of them as fit, each around its lantern sentence.
_FILLER = ("The fields lay quiet under a grey sky and nothing moved along the hedges for a while. "
           "Smoke rose from the chimneys of the farms, and the dogs slept by the doors. ") * 3
LANTERNS = {f"c{n}": (f"CHAPTER {n + 1}", f"{_FILLER}Keeper number {n + 1} carried the brass lantern to the "
                      f"tower of Ardloe. {_FILLER}") for n in range(14)}
LANTERN_ENTITIES = {"ardloe": ("Ardloe", "GPE", [], list(LANTERNS))}


def test_issue_43_the_evidence_quotes_the_best_sentences_of_many_chunks_in_short_windows():
    platform = crafted_platform("Ardloe", LANTERNS, LANTERN_ENTITIES)
    content = ask(platform, "What did the keepers carry to the tower?", "ardloe")
    passages = [line for line in content.splitlines() if line.startswith("> ")]
    assert len(passages) == EVIDENCE_PASSAGES == 12  # was 8 windows of 650 characters
    assert all(len(p) <= PASSAGE_CHARS + len("> … ") + len(" … [12]") for p in passages)
    keepers = {int(n) for p in passages for n in re.findall(r"Keeper number (\d+) carried the brass lantern", p)}
    assert len(keepers) == 12  # each passage around its own chunk's lantern sentence
    assert sum(len(p) for p in passages) < 6_000
