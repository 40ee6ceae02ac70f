"""Who says a quotation, as far as a relation needs it: "my sister Margaret" in a quotation is the speaker's sister.

A paragraph is one speaker's turn in a novel's dialogue, so the speaker of a quotation is the one person a speech tag
of its paragraph names ("…," added Amy; Amy said, "…") outside the quotation marks; a paragraph whose tags name
two people, or none, has no speaker here.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ingestion.relations.patterns import SPEECH_VERBS
from ingestion.relations.sentences import PersonMention

logger = logging.getLogger(__name__)

_PARAGRAPH_END = re.compile(r"\n[ \t]*\n")
# A single quote that opens (group 1: not after a word) or closes a quotation; an apostrophe in a word is neither.
_SINGLE_QUOTE = re.compile(r"(?:(?<!\w)(['‘])(?=\w|@)|(?<=[\w,.!?@])['’](?!\w))")
_TAG_BEFORE = re.compile(rf"(?i)\b{SPEECH_VERBS}\s+$")
_TAG_AFTER = re.compile(rf"(?i)^\s+{SPEECH_VERBS}\b")
_TAG_REACH = 25  # characters around a name where its speech verb stands


def in_quotation(text: str) -> bool:
    """Whether the end of ``text`` (a paragraph's or a sentence's beginning) stands inside a quotation: after an odd
    number of straight double quotes, or after an opening curly or single quote not closed since."""
    if text.count('"') % 2:
        return True
    marks = [(match.start(), match.group() == "“") for match in re.finditer(r"[“”]", text)]
    marks += [(match.start(), match.group(1) is not None) for match in _SINGLE_QUOTE.finditer(text)]
    return bool(marks) and max(marks)[1]


@dataclass(frozen=True)
class SpokenQuote:
    """A quotation of the document as the ``quotes`` stage attributed it: its offsets (marks included), its speaker
    and the people it names as addressees (entity ids)."""

    start: int
    end: int
    speaker_id: str | None
    addressee_ids: tuple[str, ...] = ()
    attribution: str = ""  # explicit, anaphoric, implicit or none (ingestion.quotes)


def quote_at(quotes: Sequence[SpokenQuote], starts: Sequence[int], offset: int) -> SpokenQuote | None:
    """The quotation of ``quotes`` (sorted, ``starts`` their starts) that holds ``offset``, if any."""
    index = bisect.bisect_right(starts, offset) - 1
    if index < 0 or offset >= quotes[index].end:
        return None
    return quotes[index]


@dataclass(frozen=True)
class Speakers:
    """The paragraphs of a document (their start offsets) and the speaker of each, or ``None``."""

    text: str
    starts: tuple[int, ...]
    speakers: tuple[str | None, ...]

    def speaker_at(self, offset: int) -> str | None:
        """The speaker of the quotation at document ``offset``; ``None`` outside a quotation or when unknown."""
        index = bisect.bisect_right(self.starts, offset) - 1
        if index < 0 or not in_quotation(self.text[self.starts[index] : offset]):
            return None
        return self.speakers[index]


def paragraph_speakers(text: str, mentions: Sequence[PersonMention]) -> Speakers:
    """Each paragraph's speaker: the one person named beside a speech verb outside its quotations."""
    starts = [0] + [match.end() for match in _PARAGRAPH_END.finditer(text)]
    tagged: dict[int, set[str]] = {}
    for mention in mentions:
        index = bisect.bisect_right(starts, mention.start) - 1
        before = text[max(starts[index], mention.start - _TAG_REACH) : mention.start]
        after = text[mention.end : mention.end + _TAG_REACH]
        if (_TAG_BEFORE.search(before) or _TAG_AFTER.search(after)) and not in_quotation(
            text[starts[index] : mention.start]
        ):
            tagged.setdefault(index, set()).add(mention.entity_id)
    speakers = tuple(
        next(iter(tagged[index])) if len(tagged.get(index, ())) == 1 else None for index in range(len(starts))
    )
    return Speakers(text, tuple(starts), speakers)
