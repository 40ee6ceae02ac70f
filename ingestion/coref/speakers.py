"""Speakers given as "he said" / "she said": the entity the pronoun is linked to (``ingestion.coref.references``).

The quotations' attribution resolves such a pronoun to the latest name of its sex outside quotations
(``ingestion.quotes.attribution``); the pronoun's link, which follows the chain of pronouns before it, is right more
often on LitBank (docs/decisions/0020), so it takes precedence where there is one.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from ingestion.coref.references import THIRD_PERSON, Reading, Resolution, Speech, resolve
from ingestion.quotes import Attribution
from ingestion.relations.sentences import PersonMention

logger = logging.getLogger(__name__)

__all__ = ["pronoun_speakers", "speaker_links"]

ANAPHORIC = "anaphoric"


def pronoun_speakers(
    text: str,
    attributions: Sequence[Attribution],
    people: Sequence[PersonMention],
    entity_at: Mapping[tuple[int, int], str],
) -> dict[int, str]:
    """Index of each attribution whose cue is a third-person pronoun ("he said") → the entity it is linked to.

    ``entity_at``: the entity of each name span, which turns the attributions' speakers into the quotations' speakers
    for the links of "I" and "you"."""
    return speaker_links(text, attributions, people, entity_at)[0]


def speaker_links(
    text: str,
    attributions: Sequence[Attribution],
    people: Sequence[PersonMention],
    entity_at: Mapping[tuple[int, int], str],
    reading: Reading | None = None,
) -> tuple[dict[int, str], Resolution | None]:
    """``pronoun_speakers``, and the resolution it made (none when no cue is a third-person pronoun); ``reading``: the
    text's ``Reading`` of ``people`` when made already."""
    cued = {
        attribution.cue: index
        for index, attribution in enumerate(attributions)
        if attribution.cue and (attribution.speaker == attribution.cue or attribution.speaker in entity_at)
        and text[attribution.cue[0] : attribution.cue[1]].casefold() in THIRD_PERSON
    }
    if not cued:
        return {}, None
    speeches = [
        Speech(a.quote.start, a.quote.end, entity_at.get(a.speaker) if a.speaker else None,
               tuple(entity_at[s] for s in a.addressees if s in entity_at))
        for a in attributions
    ]
    resolution = resolve(text, people, speeches, reading=reading)
    links = {
        cued[(reference.start, reference.end)]: reference.entity_id
        for reference in resolution.references
        if (reference.start, reference.end) in cued
    }
    return links, resolution
