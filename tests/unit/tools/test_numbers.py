"""Spelled numbers in chapter references, English and Hungarian (``tools.retrieval.numbers``, ``parse_reference``).

The expected values are the languages' rules, written out by hand: English tens and units joined by a hyphen or a
space, "hundred" with an optional "and"; Hungarian compounds in one word, "tizen-"/"huszon-" before a unit, "két"
before a noun, and the ordinals "első"/"második" alone but "-egyedik"/"-kettedik" in compounds.
"""

from __future__ import annotations

import pytest

from tools.retrieval.numbers import is_spelled_ordinal, spelled_number
from tools.retrieval.units import UnitReference, parse_reference, title_number, to_number

ENGLISH = {
    "one": 1, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "nineteen": 19, "twenty": 20,
    "twenty-one": 21, "twenty one": 21, "forty-four": 44, "ninety-nine": 99, "hundred": 100, "a hundred": 100,
    "one hundred": 100, "one hundred and one": 101, "two hundred thirty-five": 235,
    "first": 1, "second": 2, "third": 3, "fifth": 5, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11,
    "twelfth": 12, "thirteenth": 13, "twentieth": 20, "twenty-first": 21, "twenty-third": 23, "twenty third": 23,
    "fortieth": 40, "ninety-ninth": 99, "hundredth": 100, "one hundredth": 100, "one hundred and first": 101,
}
HUNGARIAN = {
    "egy": 1, "kettő": 2, "két": 2, "három": 3, "hét": 7, "kilenc": 9, "tíz": 10, "tizenegy": 11, "tizenkettő": 12,
    "tizenkét": 12, "tizenkilenc": 19, "húsz": 20, "huszonegy": 21, "huszonhárom": 23, "harminc": 30,
    "harmincnégy": 34, "negyven": 40, "hatvanhat": 66, "kilencvenkilenc": 99, "száz": 100, "százegy": 101,
    "kétszázharmincöt": 235,
    "első": 1, "második": 2, "harmadik": 3, "negyedik": 4, "ötödik": 5, "hatodik": 6, "hetedik": 7, "nyolcadik": 8,
    "kilencedik": 9, "tizedik": 10, "tizenegyedik": 11, "tizenkettedik": 12, "tizenharmadik": 13, "huszadik": 20,
    "huszonegyedik": 21, "huszonkettedik": 22, "huszonharmadik": 23, "harmincadik": 30, "negyvenedik": 40,
    "ötvenedik": 50, "hatvanadik": 60, "hetvenedik": 70, "nyolcvanadik": 80, "kilencvenedik": 90,
    "kilencvenkilencedik": 99, "századik": 100, "százegyedik": 101, "kétszázadik": 200,
}


@pytest.mark.parametrize(("words", "value"), [*ENGLISH.items(), *HUNGARIAN.items()])
def test_spelled_numbers_follow_the_language_rules(words: str, value: int) -> None:
    assert spelled_number(words) == value
    assert spelled_number(words.upper()) == value  # titles are in capitals ("MÁSODIK RÉSZ")
    assert to_number(words) == value


@pytest.mark.parametrize("words", [
    "a", "and", "Pierre", "hat-trick", "twenty-one-one", "hundred hundred",
    "tizen", "huszon", "egyedik", "kettedik", "tizenelső", "huszonmásodik", "kettőszáz",
])
def test_words_that_are_not_numbers(words: str) -> None:
    # "egyedik"/"kettedik" exist only inside compounds; "tizenelső" mixes the lone ordinal into one.
    assert spelled_number(words) is None
    assert to_number(words) is None


def test_ordinals_are_told_from_cardinals() -> None:
    assert all(is_spelled_ordinal(w) for w in ("third", "twenty-third", "hundredth", "harmadik", "első",
                                                   "huszonharmadik", "századik"))
    assert not any(is_spelled_ordinal(w) for w in ("three", "twenty-three", "három", "két", "tizenkét"))


@pytest.mark.parametrize(("text", "expected"), [
    ("What happens in the third chapter?", UnitReference(3)),
    ("What happens in the twelfth chapter?", UnitReference(12)),
    ("Tell me the twenty-third chapter", UnitReference(23)),
    ("the 3rd chapter", UnitReference(3)),
    ("What happens in chapter twelve?", UnitReference(12)),
    ("What happens in chapter twenty-three of book two?", UnitReference(23, 2, "book")),
    ("the third chapter of the second book", UnitReference(3, 2, "book")),
    ("the second chapter of the first epilogue", UnitReference(2, 1, "epilogue")),
    ("Mi történik a harmadik fejezetben?", UnitReference(3)),
    ("Mi történik a tizenkettedik fejezetben?", UnitReference(12)),
    ("a huszonharmadik fejezet", UnitReference(23)),
    ("a második rész harmadik fejezete", UnitReference(3, 2, "rész")),
    ("fejezet tizenkettő", UnitReference(12)),
    # A cardinal before the noun counts chapters; it points at none.
    ("Which three chapters mention Pierre?", None),
    ("Melyik három fejezetben szerepel Dobó?", None),
    ("tizenkét fejezet", None),
])
def test_parse_reference_reads_spelled_numbers(text: str, expected: UnitReference | None) -> None:
    assert parse_reference(text) == expected


def test_title_number_takes_a_spelled_number_whole() -> None:
    assert title_number("BOOK TWENTY-ONE") == 21
    assert title_number("SECOND EPILOGUE") == 2
    assert title_number("HARMADIK RÉSZ") == 3
