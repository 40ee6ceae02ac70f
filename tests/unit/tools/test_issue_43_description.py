"""How the book introduces someone: the sentence the entity card opens with for "Who is X?". The sentences are
written for the test, each for one construction; the expected choice was decided before the code ran."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tools.analysis.description import describe


def passages(*texts: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(text=text, chunk_id=f"c{n}", unit_title=f"CHAPTER {n}") for n, text in enumerate(texts)]


@pytest.mark.parametrize(("text", "forms", "language", "expected"), [
    ("Rain fell. Manuel, one of the gardener's helpers, was an undesirable acquaintance.", ["Manuel"], "en",
     "Manuel, one of the gardener's helpers, was an undesirable acquaintance."),
    ("Among them was Katrina Van Tassel, the daughter and only child of a substantial Dutch farmer.",
     ["Katrina Van Tassel", "Katrina"], "en",
     "Among them was Katrina Van Tassel, the daughter and only child of a substantial Dutch farmer."),
    ("Spitz, as lead-dog and master of the team, felt threatened.", ["Spitz"], "en",
     "Spitz, as lead-dog and master of the team, felt threatened."),
    ("Anna Keller was the miller's only daughter.", ["Anna Keller", "Anna"], "en",
     "Anna Keller was the miller's only daughter."),
    ("Cecey Péter, a falu öreg nemese, a kapuban állt.", ["Cecey Péter", "Cecey"], "hu",
     "Cecey Péter, a falu öreg nemese, a kapuban állt."),
])
def test_issue_43_the_introducing_sentence_is_found(text, forms, language, expected):
    found = describe(passages(text), forms, language)
    assert found is not None and found.sentence == expected


@pytest.mark.parametrize(("text", "forms"), [
    ("\"I wonder, Holgrave, that you should have ideas like these,\" said she.", ["Holgrave"]),  # vocative
    ("\"Lady Dedlock is ill,\" said Tulkinghorn, who had risen hastily.", ["Tulkinghorn"]),  # relative clause
    ("Then Victor, as he always did, left early.", ["Victor"]),  # "as" with a pronoun: no description
    ("Manuel was tired.", ["Manuel"]),  # a copula without a description
    ("The Manueline windows, the old ones, were shut.", ["Manuel"]),  # the name only inside a longer word
])
def test_issue_43_no_description_is_made_up(text, forms):
    assert describe(passages(text), forms, "en") is None


def test_issue_43_the_first_introduction_in_book_order_wins():
    found = describe(passages("Nothing here about her.", "Mara, the innkeeper's niece, sang.",
                              "Mara, a widow of forty, came back."), ["Mara"], "en")
    assert found is not None and found.sentence == "Mara, the innkeeper's niece, sang."
    assert found.passage.chunk_id == "c1"


def test_issue_43_the_quote_is_one_line_and_a_long_sentence_is_quoted_from_the_name():
    text = ("Among the musical disciples who assembled, one evening in each week,\nto receive his instructions in "
            "psalmody, was Katrina Van Tassel,\nthe daughter and only child of a substantial Dutch farmer.")
    found = describe(passages(text), ["Katrina Van Tassel"], "en")
    assert found is not None
    assert found.quote == "…Katrina Van Tassel, the daughter and only child of a substantial Dutch farmer."
    short = describe(passages("Manuel, one of the\ngardener's helpers, was idle."), ["Manuel"], "en")
    assert short is not None and short.quote == "Manuel, one of the gardener's helpers, was idle."


def test_issue_43_a_long_description_is_cut_at_a_word():
    text = "Mara, the innkeeper's niece, " + "who sang old songs of the valley and the river " * 6 + "sang."
    found = describe(passages(text), ["Mara"], "en")
    assert found is not None and found.quote.endswith("…") and len(found.quote) <= 161
    assert found.quote.startswith("Mara, the innkeeper's niece, who sang") and "  " not in found.quote
