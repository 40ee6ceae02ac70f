"""Given names and their pet forms: the nickname table (``names.given_name_variant``) and, in English, the other
spellings of its diminutives (``diminutive_spellings``), which the table lists one way only."""

from __future__ import annotations

from functools import lru_cache

from ingestion.names import common_given_name_sex, given_name_variant, nickname_partners

# An English diminutive ends in -ie, -y or -ey, interchangeably ("Nellie", "Nelly"); the stem left must be a name's
# (three letters at least: "Amy" is no diminutive of "Am").
_DIMINUTIVE_ENDINGS = ("ie", "ey", "y")
_STEM_MIN = 3
_VOWELS = frozenset("aeiouy")


@lru_cache(maxsize=8192)
def diminutive_spellings(name: str) -> frozenset[str]:
    """The ways an English pet name is spelled, the name included: "nelly" → "nellie", "nelley", "nelle"; "stevie" →
    "stevy", "steve" (the short form it extends); "tommy" → "tom" (a consonant doubled before the ending); "mat" →
    "matt" (a short name's last consonant written double, or single: "matt" → "mat").

    Evidence: the casefolded name's letters only; what it is a form of is the nickname table's to say
    (``spelled_variant``)."""
    out = {name}
    for ending in _DIMINUTIVE_ENDINGS:
        stem = name[: -len(ending)]
        if name.endswith(ending) and len(stem) >= _STEM_MIN:
            out.update(stem + other for other in ("ie", "ey", "y", "e"))
            if stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
                out.add(stem[:-1])
            break
    if len(name) == _STEM_MIN and name[-1] not in _VOWELS:
        out.add(name + name[-1])
    if len(name) == _STEM_MIN + 1 and name[-1] == name[-2] and name[-1] not in _VOWELS:
        out.add(name[:-1])
    return frozenset(out)


def spelled_variant(a: str, b: str, language: str, spellings: bool) -> bool:
    """Whether two different casefolded given names are a name and one of its nicknames (``given_name_variant``), or,
    in English with ``spellings``, one spelling of the other's diminutive or a nickname of it ("nelly" and "ellen",
    through the table's "nellie"; "nelly" and "nellie")."""
    if a == b:
        return False
    if given_name_variant(a, b, language):
        return True
    if language != "en" or not spellings:
        return False
    spelled_a, spelled_b = diminutive_spellings(a), diminutive_spellings(b)
    if a in spelled_b or b in spelled_a:
        return True
    return any(given_name_variant(x, y, language) for x in spelled_a for y in spelled_b)


def spelled_partners(name: str, language: str, spellings: bool) -> frozenset[str]:
    """The given names ``spelled_variant`` can relate to ``name`` (a superset: each is checked again), so that
    resolution looks them up instead of trying every name of a book."""
    if language != "en" or not spellings:
        return nickname_partners(name)
    found: set[str] = set()
    for spelled in diminutive_spellings(name):
        found |= {spelled} | nickname_partners(spelled)
    return frozenset({other for partner in found for other in diminutive_spellings(partner)} - {name})


# A clipped given name keeps this many letters at least ("Balt" of "Baltus"): "Jo", "Al" are too short to tell.
_CLIPPED_MIN = 4


def clipped_given_names(a: str, b: str) -> bool:
    """Whether one of two different casefolded given names is the other cut short, as a pet name is made when no
    table lists the name: "balt" of "baltus", "fred" of "frederick". Asked of two full names of one family by
    ``joins.given_name_forms``, where the rest of the names already agree.

    Keeps apart: a name and its feminine made by an ending ("paul", "paula"; "louis", "louisa"): where the world's
    bearers give either name a sex (``names.common_given_name_sex``), both must have it and the same one.

    Evidence: the letters of the two names (``_CLIPPED_MIN`` kept at least) and the sexes of their bearers in the
    world."""
    short, long = sorted((a, b), key=len)
    if len(short) < _CLIPPED_MIN or short == long or not long.startswith(short):
        return False
    return common_given_name_sex(short) == common_given_name_sex(long)
