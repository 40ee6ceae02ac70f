"""Spelled-out numbers in English and Hungarian, cardinal and ordinal, as users write them in chapter references.

English writes a number in words ("twenty-three", "twenty third", "one hundred and first", "a hundred"); Hungarian
in one word below two thousand ("huszonhárom", "huszonharmadik", "százegyedik", "kétszázadik"). Hungarian ordinals
of 1 and 2 are "első" and "második" alone but "-egyedik" and "-kettedik" in compounds ("tizenegyedik",
"huszonkettedik"); 2 is "kettő" alone and "két" before a noun ("tizenkét fejezet" = twelve chapters). Both languages
are covered from 1 to 999.

``CARDINAL`` and ``ORDINAL`` are regular-expression sources (no capturing groups, for case-insensitive use inside
larger patterns); ``spelled_number`` gives a phrase's value. Whether a word is ordinal matters to a parser: "the
third chapter" and "a harmadik fejezet" point at one chapter, "three chapters" and "három fejezet" count them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_EN_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_EN_UNITS_ORD = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_EN_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
             "nineteen")
_EN_TEENS_ORD = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                 "seventeenth", "eighteenth", "nineteenth")
_EN_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_EN_TENS_ORD = ("twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth", "ninetieth")

_HU_UNITS = {"egy": 1, "kettő": 2, "két": 2, "három": 3, "négy": 4, "öt": 5, "hat": 6, "hét": 7, "nyolc": 8,
             "kilenc": 9}
_HU_UNITS_ORD_IN_COMPOUND = {"egyedik": 1, "kettedik": 2, "harmadik": 3, "negyedik": 4, "ötödik": 5, "hatodik": 6,
                             "hetedik": 7, "nyolcadik": 8, "kilencedik": 9}
_HU_UNITS_ORD = {"első": 1, "második": 2, **{w: v for w, v in _HU_UNITS_ORD_IN_COMPOUND.items() if v > 2}}
_HU_TENS = {"tíz": 10, "húsz": 20, "harminc": 30, "negyven": 40, "ötven": 50, "hatvan": 60, "hetven": 70,
            "nyolcvan": 80, "kilencven": 90}
_HU_TENS_BEFORE_UNIT = {"tizen": 10, "huszon": 20, **{w: v for w, v in _HU_TENS.items() if v > 20}}
_HU_TENS_ORD = {"tizedik": 10, "huszadik": 20, "harmincadik": 30, "negyvenedik": 40, "ötvenedik": 50,
                "hatvanadik": 60, "hetvenedik": 70, "nyolcvanadik": 80, "kilencvenedik": 90}
_HU_HUNDRED_FACTORS = ("egy", "két", "három", "négy", "öt", "hat", "hét", "nyolc", "kilenc")  # kétszáz, not kettőszáz

_VALUES: dict[str, int] = {
    **{w: i + 1 for i, w in enumerate(_EN_UNITS)},
    **{w: i + 1 for i, w in enumerate(_EN_UNITS_ORD)},
    **{w: i + 10 for i, w in enumerate(_EN_TEENS)},
    **{w: i + 10 for i, w in enumerate(_EN_TEENS_ORD)},
    **{w: 10 * i + 20 for i, w in enumerate(_EN_TENS)},
    **{w: 10 * i + 20 for i, w in enumerate(_EN_TENS_ORD)},
    "a": 1,  # only in "a hundred"; the grammar below admits it nowhere else
    **_HU_UNITS, **_HU_UNITS_ORD_IN_COMPOUND, **_HU_UNITS_ORD, **_HU_TENS, **_HU_TENS_BEFORE_UNIT, **_HU_TENS_ORD,
}
_HUNDREDS = ("hundred", "hundredth", "száz", "századik")  # multiply what precedes them (or 1) by 100
_HU_ATOMS = sorted([*_HU_UNITS, *_HU_UNITS_ORD_IN_COMPOUND, *_HU_UNITS_ORD, *_HU_TENS, *_HU_TENS_BEFORE_UNIT,
                    *_HU_TENS_ORD, "száz", "századik"], key=len, reverse=True)


def _alt(words: Iterable[str]) -> str:
    """Alternation of words, longest first (so a regex never settles for "seven" in "seventeen")."""
    return "(?:" + "|".join(sorted(words, key=len, reverse=True)) + ")"


_SEP = r"(?:\s*-\s*|\s+)"  # "twenty-three", "twenty three"
_U, _UO = _alt(_EN_UNITS), _alt(_EN_UNITS_ORD)
_T, _TO = _alt(_EN_TEENS), _alt(_EN_TEENS_ORD)
_X, _XO = _alt(_EN_TENS), _alt(_EN_TENS_ORD)
_EN_BELOW_100 = rf"(?:{_X}(?:{_SEP}{_U})?|{_T}|{_U})"
_EN_BELOW_100_ORD = rf"(?:{_X}{_SEP}{_UO}|{_XO}|{_TO}|{_UO})"
_EN_HUNDRED = rf"(?:(?:{_U}|a)\s+)?hundred"
EN_CARDINAL = rf"(?:{_EN_HUNDRED}(?:\s+(?:and\s+)?{_EN_BELOW_100})?|{_EN_BELOW_100})"
EN_ORDINAL = rf"(?:{_EN_HUNDRED}\s+(?:and\s+)?{_EN_BELOW_100_ORD}|{_EN_HUNDRED}th|{_EN_BELOW_100_ORD})"

_HU_HUNDRED = rf"(?:{_alt(_HU_HUNDRED_FACTORS)}?száz)"
_HU_BELOW_100 = rf"(?:{_alt(_HU_TENS_BEFORE_UNIT)}{_alt(_HU_UNITS)}|{_alt(_HU_TENS)}|{_alt(_HU_UNITS)})"
_HU_BELOW_100_ORD_IN_COMPOUND = (
    rf"(?:{_alt(_HU_TENS_BEFORE_UNIT)}{_alt(_HU_UNITS_ORD_IN_COMPOUND)}|{_alt(_HU_TENS_ORD)}"
    rf"|{_alt(_HU_UNITS_ORD_IN_COMPOUND)})"
)
HU_CARDINAL = rf"(?:{_HU_HUNDRED}{_HU_BELOW_100}?|{_HU_BELOW_100})"
HU_ORDINAL = (
    rf"(?:{_HU_HUNDRED}{_HU_BELOW_100_ORD_IN_COMPOUND}|{_alt(_HU_HUNDRED_FACTORS)}?századik"
    rf"|{_alt(_HU_TENS_BEFORE_UNIT)}{_alt(_HU_UNITS_ORD_IN_COMPOUND)}|{_alt(_HU_TENS_ORD)}|{_alt(_HU_UNITS_ORD)})"
)

CARDINAL = rf"(?:{EN_CARDINAL}|{HU_CARDINAL})"
"""A spelled cardinal, English or Hungarian (regex source, no groups; compile with ``re.IGNORECASE``)."""
ORDINAL = rf"(?:{EN_ORDINAL}|{HU_ORDINAL})"
"""A spelled ordinal, English or Hungarian (regex source, no groups; compile with ``re.IGNORECASE``)."""

_CARDINAL_RE = re.compile(CARDINAL, re.IGNORECASE)
_ORDINAL_RE = re.compile(ORDINAL, re.IGNORECASE)


def is_spelled_ordinal(text: str) -> bool:
    """Whether ``text`` is exactly one spelled ordinal ("third", "twenty-third", "harmadik", "huszonharmadik")."""
    return _ORDINAL_RE.fullmatch(text.strip()) is not None


def spelled_number(text: str) -> int | None:
    """The value of a spelled cardinal or ordinal (English or Hungarian, 1–999); None for anything else.

    >>> [spelled_number(t) for t in ("twenty-third", "one hundred and one", "huszonharmadik", "tizenkét", "Pierre")]
    [23, 101, 23, 12, None]
    """
    phrase = text.strip()
    if not (_CARDINAL_RE.fullmatch(phrase) or _ORDINAL_RE.fullmatch(phrase)):
        return None
    total = 0
    for word in re.split(r"[\s-]+", phrase.casefold()):
        if word == "and":
            continue
        for atom in _atoms(word):
            total = (total or 1) * 100 if atom in _HUNDREDS else total + _VALUES[atom]
    return total


def _atoms(word: str) -> list[str]:
    """An English word is one atom; a Hungarian compound splits into its parts, longest first ("huszon|harmadik")."""
    if word in _VALUES or word in _HUNDREDS:
        return [word]
    atoms: list[str] = []
    rest = word
    while rest:
        atom = next(a for a in _HU_ATOMS if rest.startswith(a))  # the grammar matched, so some atom fits
        atoms.append(atom)
        rest = rest[len(atom):]
    return atoms
