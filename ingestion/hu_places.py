"""A place-name feature for the Hungarian NER: a lexeme flag that is on for a word naming a place in a gazetteer.

The gazetteer is ``ingestion/data/hu_places.txt`` (built by ``scripts/build_hu_places.py`` from the PyPI package
``magyar``: Hungary's settlements, the Hungarian names of settlements beyond today's borders, the counties, European
countries and capitals, rivers). A trained pipeline reads the flag as one more hashed attribute of its tok2vec
(``FLAG40`` beside NORM, PREFIX, SUFFIX, SHAPE), so the list is evidence the network weighs in context, never a rule
that labels a span. The config's ``[nlp] after_creation`` names :data:`CALLBACK`, which installs the flag's getter
in the vocabulary; spaCy then computes the flag once per lexeme, when the lexeme is created.

Hungarian inflects a place name by suffixes ("Budapesten", "Kassára", "Pécsett", "Egerrel"), so a word also counts
when it is a listed name followed by a case ending, with the stem's lengthened final vowel (Kassa → Kassá-ra) and the
doubled consonant of the assimilated instrumental (Eger → Egerr-el) undone.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language

logger = logging.getLogger(__name__)

PLACES_FILE = ("data", "hu_places.txt")  # in the ingestion package (read as a resource: Spark ships it in a zip)
PLACE_FLAG = 40  # the lexeme flag's bit; spaCy's own flags use 1-18, and "FLAG40" names it in a tok2vec's attrs
PLACE_ATTR = f"FLAG{PLACE_FLAG}"
CALLBACK = "csillag.hu_place_flag.v1"

# Hungarian case endings in both vowel-harmony forms (grammar, not data): inessive, illative, elative, sublative,
# delative, superessive, adessive, allative, ablative, dative, instrumental, terminative, causal, formal, accusative,
# the locative -t/-ott of some towns ("Pécsett", "Győrött"), genitive -é, essive -ul.
CASE_ENDINGS = (
    "ban", "ben", "ba", "be", "ból", "ből", "ra", "re", "ról", "ről", "on", "en", "ön", "n", "nál", "nél",
    "hoz", "hez", "höz", "tól", "től", "nak", "nek", "val", "vel", "ig", "ért", "ként", "t", "at", "et", "ot",
    "öt", "ott", "ett", "ött", "é", "ul", "ül",
)
_LENGTHENED = {"á": "a", "é": "e"}
MIN_STEM = 3  # a shorter listed name ("Ág", "Aba") is matched only as it stands


@functools.cache
def places() -> frozenset[str]:
    """The gazetteer's single-word names, as written (capitalised). A missing list fails loudly: a pipeline trained
    with the flag would otherwise run with it off everywhere and label places worse, silently."""
    text = resources.files("ingestion").joinpath(*PLACES_FILE).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def names_place(word: str) -> bool:
    """Whether ``word`` is a listed place name, as it stands or followed by a case ending."""
    if not word[:1].isupper():
        return False
    listed = places()
    if word in listed:
        return True
    for ending in CASE_ENDINGS:
        if len(word) - len(ending) >= MIN_STEM and word.endswith(ending):
            if any(stem in listed for stem in _stems(word[: -len(ending)])):
                return True
    if word.endswith(("al", "el")):  # the instrumental assimilated to a consonant: Egerrel, Pesttel
        stem = word[:-2]
        if len(stem) > MIN_STEM and stem[-1] == stem[-2] and stem[:-1] in listed:
            return True
    return False


def _stems(stem: str) -> tuple[str, ...]:
    """The stem as cut, and with a lengthened final vowel shortened (Kassá → Kassa)."""
    short = _LENGTHENED.get(stem[-1])
    return (stem, stem[:-1] + short) if short else (stem,)


def add_place_flag(nlp: Language) -> Language:
    """Install the flag's getter in ``nlp``'s vocabulary (the ``after_creation`` callback)."""
    nlp.vocab.add_flag(names_place, flag_id=PLACE_FLAG)
    return nlp


def register() -> None:
    """Register :data:`CALLBACK` with spaCy (idempotent); ``build_nlp`` calls it before loading any pipeline."""
    from spacy.util import registry

    if not registry.has("callbacks", CALLBACK):
        registry.callbacks.register(CALLBACK, func=_make_callback)


def _make_callback() -> Callable[[Language], Language]:
    return add_place_flag
