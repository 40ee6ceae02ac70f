"""Speakers a text never names: "the guide", "the doctor", "the girl" — descriptions that speak in the text itself.

A novel's minor characters often speak under a description only ("“Which?” repeated the doctor."). Which words are
people is not taken from a list: a description's head word is a person when the text makes it the subject of a verb
of saying somewhere (``ingestion.quotes.attribution`` finds those said-clauses). Every other occurrence of that head
after a determiner, in narration, is then a mention of someone a later "he said" may point to; its sex is what the
pronouns after the head's occurrences say (as for a name), unknown when they disagree.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ingestion.names import FEMALE, MALE, PRONOUN_PATTERNS, PRONOUN_WINDOW, pronoun_gender, title_gender
from ingestion.quotes.detection import Quotation
from ingestion.quotes.speech import (
    DESCRIPTION_STOPS,
    DETERMINERS,
    FEMALE_NOUNS,
    MALE_NOUNS,
    SUBJECT_PRONOUNS,
    is_speech_verb,
)

logger = logging.getLogger(__name__)

__all__ = ["Unnamed", "noun_sex", "unnamed_people", "unnamed_people_of"]

Span = tuple[int, int]
# Where a sentence's or a clause's subject stands: at a paragraph's or sentence's start, after a closing quotation
# mark, after a conjunction ("and the doctor smiled") or a verb of saying ("cried the girl"); an object ("interrupted
# her cousin") is no one speaking.
SUBJECT_PLACE = re.compile(r"(?:^|\n|[.!?;:”\"’]\s{1,2}|\b(?:and|but|then)\s)$")
# Or right before a verb in the past or an auxiliary, wherever the clause starts ("Amid the smoke, a girl was
# dancing", "the elf-girl paused"); the rest of a hyphenated head first.
VERB_AFTER = re.compile(r"[a-z-]*\s+(?:was|were|had|is|has|did|could|would|[a-z]+ed)\b")
# Words between the determiner and the head: "the old doctor", "the tall young man".
MAX_MODIFIERS = 2
_DETERMINER = re.compile(rf"\b(?i:{'|'.join(sorted(DETERMINERS, key=len, reverse=True))})\s+")
# The head and the modifiers before it: the first of the next MAX_MODIFIERS + 1 lowercase words that is a head.
_FOLLOWING = re.compile(r"([a-z-]+)" + r"(?:\s+([a-z-]+))?" * MAX_MODIFIERS + r"\b")


@dataclass(frozen=True)
class Unnamed:
    """Occurrences of speaking descriptions in narration (determiner to head), in text order, with each head's sex."""

    spans: list[Span]
    heads: list[str]
    sexes: dict[str, str]
    starts: list[int] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "starts", [start for start, _ in self.spans])

    def latest(self, offset: int, sex: str, reach: int) -> tuple[Span, str] | None:
        """The latest occurrence before ``offset`` and at most ``reach`` characters before it of ``sex`` (known: a
        description of unknown sex is nobody's "he" or "she"), with its head word."""
        for i in range(bisect.bisect_left(self.starts, offset) - 1, -1, -1):
            if self.spans[i][1] < offset - reach:
                break
            if self.sexes.get(self.heads[i]) == sex:
                return self.spans[i], self.heads[i]
        return None


def unnamed_people(text: str, heads: Iterable[str], quotations: Sequence[Quotation]) -> Unnamed:
    """Every occurrence outside ``quotations`` of a determiner, at most ``MAX_MODIFIERS`` words and one of
    ``heads`` (casefolded words), and each head's sex by the pronouns after its occurrences."""
    return unnamed_people_of(text, [heads], quotations)[0]


def unnamed_people_of(
    text: str, head_sets: Sequence[Iterable[str]], quotations: Sequence[Quotation]
) -> list[Unnamed]:
    """``unnamed_people`` of each set of heads, in one pass over the text's determiners."""
    wanted = [
        frozenset(h for h in heads if h.isalpha() and h not in SUBJECT_PRONOUNS and h not in DESCRIPTION_STOPS)
        for heads in head_sets
    ]
    found = [_Occurrences() for _ in wanted]
    union = frozenset().union(*wanted)
    quote_starts = [q.start for q in quotations]
    for match in _determiners_before(union).finditer(text) if union else ():
        following = _FOLLOWING.match(text, match.end())
        if following is None:
            continue
        # a head is a word or a hyphenated word's first part ("the man-servant": man)
        bases = [word.split("-")[0] if word else "" for word in following.groups()]
        if union.isdisjoint(bases):
            continue
        for heads, occurrences in zip(wanted, found, strict=True):
            group = next((g for g, base in enumerate(bases, 1) if base in heads), 0)
            if not group:
                continue
            head = bases[group - 1]
            start, end = match.start(), following.start(group) + len(head)
            at = bisect.bisect_right(quote_starts, start) - 1
            if at >= 0 and quotations[at].end > start or not _subject_place(text, start, end):
                continue
            occurrences.add(text, start, end, head)
    return [occurrences.unnamed() for occurrences in found]


def _determiners_before(heads: frozenset[str]) -> re.Pattern[str]:
    """``_DETERMINER`` where one of the next ``MAX_MODIFIERS`` + 1 words is one of ``heads`` or starts with one and a
    hyphen: the regular expression skips the rest of a novel's determiners, which name no one."""
    words = "|".join(sorted(map(re.escape, heads), key=len, reverse=True))
    return re.compile(rf"{_DETERMINER.pattern}(?=(?:[a-z-]+\s+){{0,{MAX_MODIFIERS}}}(?:{words})(?![a-z]))")


class _Occurrences:
    """The occurrences of speaking descriptions found so far, and the pronouns after each head's."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.heads: list[str] = []
        self.counts: dict[str, list[int]] = {}

    def add(self, text: str, start: int, end: int, head: str) -> None:
        self.spans.append((start, end))
        self.heads.append(head)
        window = text[end : end + PRONOUN_WINDOW]
        tally = self.counts.setdefault(head, [0, 0])
        tally[0] += len(re.findall(PRONOUN_PATTERNS["he"], window))
        tally[1] += len(re.findall(PRONOUN_PATTERNS["she"], window))

    def unnamed(self) -> Unnamed:
        sexes = {head: noun_sex(head) or pronoun_gender(*tally) for head, tally in self.counts.items()}
        return Unnamed(self.spans, self.heads, sexes)


def noun_sex(head: str) -> str:
    """The sex a person noun says by itself ("girl", "father"), ``""`` when none or not one sex ("widow")."""
    if head in MALE_NOUNS:
        return MALE
    if head in FEMALE_NOUNS:
        return FEMALE
    sex = title_gender(head)
    return sex if sex in (MALE, FEMALE) else ""


def _subject_place(text: str, start: int, end: int) -> bool:
    """Whether a description from ``start`` to its head's ``end`` stands where a subject does: after
    ``SUBJECT_PLACE`` or a verb of saying, or before a verb (``VERB_AFTER``)."""
    before = text[max(start - 20, 0) : start]
    words = before.split()
    if SUBJECT_PLACE.search(before) or words and before.endswith(" ") and is_speech_verb(words[-1]):
        return True
    return VERB_AFTER.match(text, end) is not None
