"""Hungarian nominal inflection of proper names, for gazetteer-style NER.

Hungarian glues case suffixes onto names ("Gergely" → "Gergelynek", "Eger" → "Egerbe"), so a rule- or
list-based recogniser that only knows base forms misses most mentions. :func:`inflect` produces the
case forms of a name's last token with vowel harmony, final-vowel lengthening and the assimilating
-val/-vel and -vá/-vé suffixes. It is deliberately a generator of *surface forms*, not a morphological
analyser: it never has to decide what a word in running text is, only what a known name can look like.

Old family names keep historical spellings: a final ``y`` after a vowel or most consonants is the
vowel i ("Mekcsey", "Tinódy"), while ``ly``, ``ny``, ``gy``, ``ty`` are consonant digraphs
("Gergely", "Héttorony"). ``archaic=True`` adds the 1909 spelling of doubled digraphs
("Gergelylyel" next to "Gergellyel"), which texts of Gárdonyi's time use.
"""

from __future__ import annotations

import logging
from enum import StrEnum

logger = logging.getLogger(__name__)

BACK_VOWELS = frozenset("aáoóuú")
FRONT_UNROUNDED_VOWELS = frozenset("eéií")
FRONT_ROUNDED_VOWELS = frozenset("öőüű")
VOWELS = BACK_VOWELS | FRONT_UNROUNDED_VOWELS | FRONT_ROUNDED_VOWELS
# i, í and é do not decide harmony when a back vowel precedes them: "Bálint" → "Bálintnak", "kávé" → "kávénak".
_NEUTRAL_VOWELS = frozenset("ií" + "é")

# Modern digraphs (and the trigraph dzs), longest first so "dzs" wins over "zs".
_DIGRAPHS = ("dzs", "cs", "dz", "gy", "ly", "ny", "sz", "ty", "zs")
# Historical spellings in family names, doubled whole before -val/-vá: "Balogh" → "Baloghgal" (AkH 12, 215).
# The value is the sound that gets repeated, written the modern way.
_HISTORICAL_FINALS = {"ch": "cs", "cz": "c", "gh": "g", "th": "t", "ts": "cs"}
# After these final consonants (preceded by a vowel) the accusative is a bare -t: "Gergelyt", "Egert", "Tamást".
_DIRECT_T_FINALS = frozenset({"j", "l", "ly", "n", "ny", "r", "s", "sz", "z", "zs"})
_LENGTHENED = {"a": "á", "e": "é"}
# Title words used inside aliases ("Bálint úr", "Cecey uram") whose stems lower their vowel before -t
# ("urat", not "úrt"); "ur" is the 1909 spelling of "úr". Only the listed cases differ from the rules.
_IRREGULAR: dict[str, dict[str, list[str]]] = {
    "úr": {"accusative": ["urat"]},
    "ur": {"accusative": ["urat"]},
    "uram": {"accusative": ["uramat"]},
}


class Harmony(StrEnum):
    """Vowel-harmony class of a word, which picks the suffix variant (-nak/-nek/-nek, -hoz/-hez/-höz)."""

    BACK = "back"
    FRONT = "front"
    FRONT_ROUNDED = "front_rounded"


# case name → (back, front, front-rounded) variant, for suffixes that attach the same way after any stem.
_HARMONIC_SUFFIXES: dict[str, tuple[str, str, str]] = {
    "dative": ("nak", "nek", "nek"),
    "inessive": ("ban", "ben", "ben"),
    "illative": ("ba", "be", "be"),
    "elative": ("ból", "ből", "ből"),
    "sublative": ("ra", "re", "re"),
    "delative": ("ról", "ről", "ről"),
    "allative": ("hoz", "hez", "höz"),
    "ablative": ("tól", "től", "től"),
    "adessive": ("nál", "nél", "nél"),
    "terminative": ("ig", "ig", "ig"),
    "causal": ("ért", "ért", "ért"),
    "possessive": ("é", "é", "é"),
}
_HARMONY_INDEX = {Harmony.BACK: 0, Harmony.FRONT: 1, Harmony.FRONT_ROUNDED: 2}
CASES = (
    "nominative",
    "accusative",
    *_HARMONIC_SUFFIXES,
    "superessive",
    "instrumental",
    "translative",
)
"""Case names :func:`case_forms` always returns; ``place=True`` adds ``locative``, ``place=False`` adds ``family``."""


def _final_y_is_vowel(word: str) -> bool:
    """Whether a word-final ``y`` is the old spelling of the vowel i ("Mekcsey") rather than part of ly/ny/gy/ty."""
    return len(word) >= 2 and word[-1].lower() == "y" and word[-2].lower() not in "lngt"


def _vowels(word: str) -> list[str]:
    """The vowel letters of ``word`` in order, an old-spelling final ``y`` counted as i."""
    found = [ch for ch in word.lower() if ch in VOWELS]
    if _final_y_is_vowel(word):
        found.append("i")
    return found


def harmony(word: str) -> Harmony:
    """Return the vowel-harmony class of ``word`` (the part after its last hyphen decides).

    The last vowel that is not a neutral i/í/é decides back vs front; rounding follows the very last vowel.
    A word with only neutral vowels ("Pécs", "Szelim") is front.
    """
    vowels = _vowels(word.rsplit("-", 1)[-1])
    if not vowels:
        return Harmony.FRONT
    if vowels[-1] in FRONT_ROUNDED_VOWELS:
        return Harmony.FRONT_ROUNDED
    for vowel in reversed(vowels):
        if vowel in _NEUTRAL_VOWELS:
            continue
        return Harmony.BACK if vowel in BACK_VOWELS else Harmony.FRONT
    return Harmony.FRONT


def ends_in_vowel(word: str) -> bool:
    """Whether ``word`` ends in a vowel sound (an old-spelling final ``y`` counts: "Zoltay", "Tinódy")."""
    return bool(word) and (word[-1].lower() in VOWELS or _final_y_is_vowel(word))


def _final_consonant(word: str) -> str:
    """The last consonant sound's spelling: a digraph ("ly", "cs"), a historical final ("gh"), or one letter."""
    lower = word.lower()
    for final in (*_HISTORICAL_FINALS, *_DIGRAPHS):
        if lower.endswith(final):
            return final
    return lower[-1:]


def _stem(word: str) -> str:
    """``word`` with a final short a/e lengthened, as every suffix requires ("Éva" → "Évá", "Imre" → "Imré")."""
    if word and word[-1] in _LENGTHENED:
        return word[:-1] + _LENGTHENED[word[-1]]
    return word


def _assimilated(word: str, vowel_final_suffix: str, tail: str, *, archaic: bool) -> list[str]:
    """Forms of a -v- suffix (-val/-vel, -vá/-vé) that assimilates to a final consonant.

    ``vowel_final_suffix`` is the whole suffix after a vowel ("val"); ``tail`` is what follows the doubled
    consonant ("al"). Modern spelling doubles only a digraph's first letter ("Gergellyel"); 1909 spelling
    and historical name finals double the whole digraph ("Gergelylyel", "Baloghgal").
    """
    if ends_in_vowel(word):
        return [_stem(word) + vowel_final_suffix]
    final = _final_consonant(word)
    if final in _HISTORICAL_FINALS:
        return [word + _HISTORICAL_FINALS[final] + tail]
    if final in _DIGRAPHS:
        forms = [word[: -len(final)] + final[0] + final + tail]
        if archaic:
            forms.append(word + final + tail)
        return forms
    if final == "x":
        return [word + "sz" + tail]
    if len(word) >= 2 and word[-1].lower() == word[-2].lower():
        # A name already ending in a double letter keeps it and the third copy goes after a hyphen: "Kiss-sel".
        return [word + "-" + final + tail]
    return [word + final + tail]


def _accusative(word: str, harmony_class: Harmony) -> str:
    if ends_in_vowel(word):
        return _stem(word) + "t"
    final = _final_consonant(word)
    before_final = word[: -len(final)][-1:].lower()
    if final in _DIRECT_T_FINALS and before_final in VOWELS:
        return word + "t"
    return word + {Harmony.BACK: "ot", Harmony.FRONT: "et", Harmony.FRONT_ROUNDED: "öt"}[harmony_class]


def _superessive(word: str, harmony_class: Harmony) -> str:
    if ends_in_vowel(word):
        return _stem(word) + "n"
    return word + {Harmony.BACK: "on", Harmony.FRONT: "en", Harmony.FRONT_ROUNDED: "ön"}[harmony_class]


def case_forms(word: str, *, archaic: bool = False, place: bool = False) -> dict[str, list[str]]:
    """Return the case forms of one word, keyed by case name (see :data:`CASES`).

    Args:
        word: a single proper-name token, e.g. "Gergely" or "Eger".
        archaic: also give 1909 spellings of doubled digraphs ("Gergelylyel").
        place: add the town locative -ott/-ett/-ött ("Pécsett", "Szigetvárott") for consonant-final words,
            and leave out the family form "-ék", which only people have.

    Raises:
        ValueError: when ``word`` is empty or contains whitespace.
    """
    if not word or any(ch.isspace() for ch in word):
        raise ValueError(f"case_forms() takes one non-empty token, got {word!r}; use inflect() for multi-word names")
    harmony_class = harmony(word)
    index = _HARMONY_INDEX[harmony_class]
    stem = _stem(word)
    forms: dict[str, list[str]] = {
        "nominative": [word],
        "accusative": [_accusative(word, harmony_class)],
    }
    for case, variants in _HARMONIC_SUFFIXES.items():
        forms[case] = [stem + variants[index]]
    forms["superessive"] = [_superessive(word, harmony_class)]
    back = harmony_class is Harmony.BACK
    forms["instrumental"] = _assimilated(word, "val" if back else "vel", "al" if back else "el", archaic=archaic)
    forms["translative"] = _assimilated(word, "vá" if back else "vé", "á" if back else "é", archaic=archaic)
    forms.update(_IRREGULAR.get(word, {}))
    if place:
        if not ends_in_vowel(word):
            suffix = {Harmony.BACK: "ott", Harmony.FRONT: "ett", Harmony.FRONT_ROUNDED: "ött"}[harmony_class]
            forms["locative"] = [word + suffix]
    else:
        forms["family"] = [stem + "ék"]
    return forms


def inflect(name: str, *, archaic: bool = False, place: bool = False) -> list[str]:
    """Return the base form of ``name`` followed by its case forms, inflecting only the last token.

    "Dobó István" → ["Dobó István", "Dobó Istvánt", "Dobó Istvánnak", …]. Duplicates are dropped, order is
    stable (nominative first, then :data:`CASES` order). See :func:`case_forms` for ``archaic`` and ``place``.

    Raises:
        ValueError: when ``name`` is blank.
    """
    tokens = name.split()
    if not tokens:
        raise ValueError(f"inflect() needs a non-blank name, got {name!r}")
    prefix = " ".join(tokens[:-1])
    result: list[str] = []
    for variants in case_forms(tokens[-1], archaic=archaic, place=place).values():
        for form in variants:
            full = f"{prefix} {form}" if prefix else form
            if full not in result:
                result.append(full)
    return result
