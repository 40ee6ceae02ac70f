"""Whom a "his", "her", "he" or "she" in a relation's sentence stands for, taken only where little else could be
meant: a pronoun linked to the wrong person makes a wrong relation, and no link makes none.

Two reaches, the second only when the first finds nobody:

- ``sentence``: the one person named before the pronoun in its own sentence whose sex fits ("Mr. Hale came with
  Ellen, his daughter").
- ``previous``: nobody of fitting sex is named before it in its sentence; then the one person of the pronoun's sex
  named in the sentence before (in the same paragraph) and in the pronoun's own sentence taken together ("Mrs. Pryor
  kept the lighthouse. Ellen Pryor, her daughter, trimmed the lamp."), and only when the pronoun's link of
  ``ingestion.coref`` (which reads the whole story so far) names that person too. Alone, either is wrong too often:
  the one named person of a sex is often not the one the story speaks of ("He was less tidy than John … his
  sister Alethea", where "he" is Theobald), and a link alone is right about three times in four.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ingestion.relations.sentences import PLACEHOLDER, Sentence
from ingestion.relations.sexes import FEMALE, MALE

logger = logging.getLogger(__name__)

PRONOUN_SEX = {"his": MALE, "her": FEMALE, "he": MALE, "she": FEMALE}
SENTENCE, PREVIOUS = "sentence", "previous"


@dataclass(frozen=True)
class Antecedent:
    """The person a pronoun stands for and how far back it was found (``SENTENCE`` or ``PREVIOUS``)."""

    entity_id: str
    reach: str


def _fitting(entities: set[str], sexes: dict[str, str], wanted: str) -> list[str]:
    """The entities whose sex is ``wanted`` or unknown: an unknown one could be meant as well."""
    return sorted(entity for entity in entities if sexes.get(entity, "") in (wanted, ""))


def _one_of(fitting: list[str], sexes: dict[str, str], wanted: str) -> str | None:
    return fitting[0] if len(fitting) == 1 and sexes.get(fitting[0]) == wanted else None


def antecedent(
    sentence: Sentence,
    pronoun_at: int,
    exclude: int | None,
    sexes: dict[str, str],
    pronoun: str,
    previous: Sentence | None = None,
    linked: str | None = None,
) -> Antecedent | None:
    """The person ``pronoun`` at template offset ``pronoun_at`` of ``sentence`` stands for (module docstring), never
    the mention ``exclude`` (the relation's other side) nor its entity. ``previous``: the sentence before it in its
    paragraph when that names someone; ``linked``: the entity ``ingestion.coref`` links the pronoun to, if any.
    ``None`` when two could be meant, the one's sex is unknown, or the sentence before is needed and the link
    disagrees."""
    wanted = PRONOUN_SEX[pronoun.casefold()]
    excluded = sentence.mentions[exclude].entity_id if exclude is not None else None
    before = {
        sentence.mentions[int(match.group(1))].entity_id
        for match in PLACEHOLDER.finditer(sentence.template, 0, pronoun_at)
        if int(match.group(1)) != exclude
    } - {excluded}
    fitting = _fitting(before, sexes, wanted)
    if fitting:
        found = _one_of(fitting, sexes, wanted)
        return Antecedent(found, SENTENCE) if found else None
    if previous is None or linked is None:
        return None
    around = {mention.entity_id for mention in previous.mentions + sentence.mentions} - {excluded}
    found = _one_of(_fitting(around, sexes, wanted), sexes, wanted)
    return Antecedent(found, PREVIOUS) if found and found == linked else None
