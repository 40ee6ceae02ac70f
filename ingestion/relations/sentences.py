"""Sentences of a document and the person mentions in each, written as a template the relation patterns read:
every mention becomes ``@P<i>@`` (its index among the sentence's mentions), so a pattern says "a person, a comma,
his daughter" without knowing any name.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

logger = logging.getLogger(__name__)

# A sentence ends at . ! ? (with closing quotes) before a space and an uppercase letter or an opening quote, or at a
# blank line; a title's or an initial's dot ("Mr. Hale", "J. Smith") does not end one.
_END = re.compile(r"""[.!?]+['"’”)]*(?=\s+['"‘“(–—]?\s?[A-ZÁÉÍÓÖŐÚÜŰ])|\n\s*\n""")
_NO_END = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|St|Mme|Mlle|Messrs|Prof|Rev|Col|Capt|Gen|Lt|Sr|Jr|M)|\b[A-Z])\.$")
PLACEHOLDER = re.compile(r"@P(\d+)@")
_KIN_TITLE = re.compile(r"([\w-]+)\s+(?=\w)")


@dataclass(frozen=True)
class PersonMention:
    """A resolved mention of a person: offsets into the document's text, the entity it names, its chunk."""

    start: int
    end: int
    entity_id: str
    chunk_id: str = ""


@dataclass(frozen=True)
class Sentence:
    """One sentence: its offsets, its mentions in order, and its text with each mention as ``@P<i>@``."""

    start: int
    end: int
    mentions: tuple[PersonMention, ...]
    template: str
    # where each template character comes from in the document: a placeholder's first character maps to its
    # mention's first, the others to its last, so a match's span maps to the document's
    offsets: tuple[int, ...]


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """The (start, end) offsets of ``text``'s sentences, in order, covering the text."""
    start = 0
    for match in _END.finditer(text):
        if _NO_END.search(text, max(start, match.start() - 12), match.start() + 1):
            continue
        yield start, match.end()
        start = match.end()
    if start < len(text):
        yield start, len(text)


def template(text: str, start: int, end: int, mentions: Sequence[PersonMention], titles: frozenset[str]) -> Sentence:
    """The sentence ``text[start:end]`` with ``mentions`` (in order, not overlapping) as placeholders."""
    parts: list[str] = []
    offsets: list[int] = []
    position = start
    for index, mention in enumerate(mentions):
        written = text[mention.start : mention.end]
        title = _KIN_TITLE.match(written)
        name_start = mention.start + title.end() if title and title.group(1).casefold() in titles else mention.start
        parts.append(text[position:name_start])
        offsets.extend(range(position, name_start))
        placeholder = f"@P{index}@"
        if written.endswith(("'s", "’s")):  # the NER keeps the possessive ending with some names
            placeholder += written[-2:]
        parts.append(placeholder)
        offsets.extend([name_start] + [mention.end - 1] * (len(placeholder) - 1))
        position = mention.end
    parts.append(text[position:end])
    offsets.extend(range(position, end))
    return Sentence(start, end, tuple(mentions), "".join(parts), tuple(offsets))


def sentences_with_people(
    text: str,
    mentions: Sequence[PersonMention],
    titles: frozenset[str] = frozenset(),
    spans: Sequence[tuple[int, int]] | None = None,
) -> Iterator[Sentence]:
    """The sentences of ``text`` that hold at least one of ``mentions``, templated; a mention's first word that is
    one of ``titles`` (casefolded kinship titles: "aunt") stays text before its placeholder; ``spans``: the text's
    ``sentence_spans`` when read already. Overlapping mentions
    keep the first; a mention crossing a sentence end belongs to the sentence it starts in."""
    ordered = sorted(mentions, key=lambda mention: (mention.start, -mention.end))
    cursor = 0
    for start, end in sentence_spans(text) if spans is None else spans:
        inside: list[PersonMention] = []
        while cursor < len(ordered) and ordered[cursor].start < end:
            mention = ordered[cursor]
            cursor += 1
            if mention.start >= start and (not inside or mention.start >= inside[-1].end):
                inside.append(mention)
        if inside:
            yield template(text, start, max(end, inside[-1].end), inside, titles)
