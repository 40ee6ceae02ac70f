"""Married couples the forms of their names state: "Mr. and Mrs. Jellyby" (a man's title and "Mrs." sharing one
surname) and "Mrs. John Brooke" (a wife called by her husband's given name and surname).

Both name a person through a form of the document's own mentions: "Mr. and Mrs. Snagsby" relates the entity
nearly all the mentions written "Mr. Snagsby" are resolved to with the one of "Mrs. Snagsby"; no form, a form of
several people, one entity for both (the resolver joined them), or an elder couple ("old Mr. and Mrs. Linton", the
parents of the usual "Mr. Linton") gives nothing. English forms only: the titles are a language resource.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence

from ingestion.names import MALE, common_given_name_sex
from ingestion.relations.sentences import PersonMention
from ingestion.relations.statements import ChunkLookup, RelationMention

logger = logging.getLogger(__name__)

COUPLE = 0.9  # the phrase says marriage outright; what is left to doubt is the resolver's entity of each form
WIFE_BY_HUSBANDS_NAME = 0.8  # the given name's sex is a table's (common_given_name_sex), not the book's
# A man's title that a wife's "Mrs." follows in "<title> and Mrs. <surname>" ("Dr. and Mrs. Skinner").
_HUSBANDS_TITLES = r"(?:Mr|Dr|Doctor|Professor|Colonel|Captain|Major|General|Judge|Squire)"
# "Old Mr. and Mrs. Linton": the parents of the one the book calls "Mr. Linton"
_ELDERS = re.compile(r"(?i)\b(?:old|elder|late|senior)\s+$")
# A form names the entity most of its mentions are resolved to only when that is nearly all of them: "Mr Pontifex"
# is three generations of one family in turn.
FORM_OWNER = 0.8
_SURNAME = r"[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?"
_COUPLE = re.compile(rf"\b(?P<title>{_HUSBANDS_TITLES})\.?\s+and\s+Mrs\.?\s+(?P<surname>{_SURNAME})")
_WIFE_BY_NAME = re.compile(r"Mrs\.?\s+(?P<given>[A-Z][a-z]+)\s+(?P<surname>[A-Z][\w'’-]+)")


def form_key(written: str) -> str:
    """A written name as the couples' lookups compare it: no possessive ending, no title dots, one space."""
    written = re.sub(r"['’]s$", "", written.strip())
    return " ".join(written.replace(".", " ").split()).casefold()


class _Forms:
    """Each form of the document's mentions and the entity most of its mentions are resolved to."""

    def __init__(self, text: str, mentions: Sequence[PersonMention]) -> None:
        votes: dict[str, Counter[str]] = defaultdict(Counter)
        for mention in mentions:
            votes[form_key(text[mention.start : mention.end])][mention.entity_id] += 1
        self.entity = {
            form: tally.most_common(1)[0][0]
            for form, tally in votes.items()
            if tally.most_common(1)[0][1] >= FORM_OWNER * sum(tally.values())
        }


def _couples(text: str, forms: _Forms) -> Iterator[tuple[str, str, int, int, float]]:
    """(husband, wife, start, end, confidence) for every "Mr. and Mrs. X" whose two forms name two entities."""
    for match in _COUPLE.finditer(text):
        if _ELDERS.search(text, max(0, match.start() - 12), match.start()):
            continue
        surname = match.group("surname")
        husband = forms.entity.get(form_key(f"{match.group('title')} {surname}"))
        wife = forms.entity.get(form_key(f"Mrs {surname}"))
        if husband and wife and husband != wife:
            yield husband, wife, match.start(), match.end(), COUPLE


def _wives(text: str, mentions: Sequence[PersonMention], forms: _Forms) -> Iterator[tuple[str, str, int, int, float]]:
    """(husband, wife, start, end, confidence) for every mention written "Mrs. <a man's given name> <surname>"
    whose husband, "<given name> <surname>" or "Mr. <given name> <surname>", is another entity of the document."""
    for mention in mentions:
        match = _WIFE_BY_NAME.fullmatch(text[mention.start : mention.end].strip())
        if not match or common_given_name_sex(match.group("given").casefold()) != MALE:
            continue
        name = f"{match.group('given')} {match.group('surname')}"
        husband = forms.entity.get(form_key(name)) or forms.entity.get(form_key(f"Mr {name}"))
        if husband and husband != mention.entity_id:
            yield husband, mention.entity_id, mention.start, mention.end, WIFE_BY_HUSBANDS_NAME


def couple_statements(text: str, mentions: Sequence[PersonMention], language: str = "en") -> list[RelationMention]:
    """A ``spouse`` statement (husband, spouse, wife) for each couple ``text`` names by the forms of ``mentions``
    (module docstring); none outside English."""
    if language != "en" or not mentions:
        return []
    forms, chunks = _Forms(text, mentions), ChunkLookup(mentions)
    sources = (("mr_and_mrs", _couples(text, forms)), ("wife_by_husbands_name", _wives(text, mentions, forms)))
    return [
        RelationMention(husband, "spouse", wife, start, end, chunks.at(start), pattern, confidence)
        for pattern, found in sources
        for husband, wife, start, end, confidence in found
    ]
