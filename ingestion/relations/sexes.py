"""The sex of each person a document names, which decides whom "his" and "her" can point to and which kinship word
fits whom ("his daughter" is a woman).

Evidence, strongest first: the titles written with the entity's names ("Mr.", "Countess"), the pronouns after its
mentions up to the sentence's end (English), its given name in the table of common given names.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from ingestion.names import (
    FEMALE,
    MALE,
    PRONOUN_CLAUSE,
    PRONOUN_PATTERNS,
    PRONOUN_WINDOW,
    common_given_name_sex,
    pronoun_gender,
    title_gender,
)
from ingestion.relations.sentences import PersonMention

logger = logging.getLogger(__name__)

_CLAUSE = re.compile(PRONOUN_CLAUSE)
_HE, _SHE = re.compile(PRONOUN_PATTERNS["he"]), re.compile(PRONOUN_PATTERNS["she"])
_WORD = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*")


def _sex_of_words(words: list[str], language: str) -> tuple[str, str]:
    """The sex a title says (the first word in English, the last in Hungarian) and the one a given name says."""
    if not words:
        return "", ""
    title = words[0] if language == "en" else words[-1]
    by_title = title_gender(title.casefold())
    by_title = FEMALE if by_title.startswith(FEMALE) else by_title  # Mrs and Miss are women here
    given = words[1] if by_title and len(words) > 1 else words[0]
    return by_title, common_given_name_sex(given.casefold()) if language == "en" else ""


def person_sexes(text: str, mentions: Sequence[PersonMention], language: str = "en") -> dict[str, str]:
    """``m``, ``f`` or ``""`` for each entity of ``mentions``: a title's sex when its titles agree, else the sex its
    pronouns clearly say, else its given name's."""
    titles: dict[str, Counter[str]] = defaultdict(Counter)
    given: dict[str, Counter[str]] = defaultdict(Counter)
    he: Counter[str] = Counter()
    she: Counter[str] = Counter()
    for mention in mentions:
        by_title, by_name = _sex_of_words(_WORD.findall(text[mention.start : mention.end]), language)
        titles[mention.entity_id][by_title] += 1
        given[mention.entity_id][by_name] += 1
        if language == "en":
            clause = _CLAUSE.match(text[mention.end : mention.end + PRONOUN_WINDOW])  # "^" anchors at a slice only
            after = clause.group() if clause else ""
            he[mention.entity_id] += len(_HE.findall(after)) > 0
            she[mention.entity_id] += len(_SHE.findall(after)) > 0
    sexes = {}
    for entity_id in titles:
        said = set(titles[entity_id]) - {""}
        named = set(given[entity_id]) - {""}
        if len(said) == 1:
            sexes[entity_id] = said.pop()
        elif not said and (by_pronouns := pronoun_gender(he[entity_id], she[entity_id])):
            sexes[entity_id] = by_pronouns
        else:
            sexes[entity_id] = named.pop() if len(named) == 1 and not said else ""
    return sexes


__all__ = ["FEMALE", "MALE", "person_sexes"]
