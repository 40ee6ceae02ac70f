"""Typed relations between the people of one document, read from its text and its resolved person mentions: the
sentence patterns of ``patterns.py`` with the kinship words of ``kinship.py``, the couples of ``couples.py`` and,
given the document's quotations, the kinship vocatives of ``vocatives.py``; no model.

``relation_mentions`` gives one row per statement; ``aggregate`` sums them per (src, type, dst) and adds each
stated relation's inverse ("Mary, the daughter of John" also gives "John, the parent of Mary").
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from graph.kinship import FORMS_OF_ADDRESS, INVERSE, KIN_TITLES, Kin, kinship_words
from ingestion.relations.couples import couple_statements
from ingestion.relations.patterns import (
    APPOSITION_CLOSES,
    CALLED_OUT,
    CLAUSE_START,
    HYPOTHETICAL,
    LIST_GOES_ON,
    Pattern,
    patterns_for,
)
from ingestion.relations.sentences import PLACEHOLDER, PersonMention, Sentence, sentences_with_people
from ingestion.relations.sexes import FEMALE, MALE, person_sexes
from ingestion.relations.speech import Speakers, SpokenQuote, paragraph_speakers, quote_at
from ingestion.relations.statements import RelationMention
from ingestion.relations.vocatives import vocative_statements

logger = logging.getLogger(__name__)

_PRONOUN_SEX = {"his": MALE, "her": FEMALE}


@dataclass(frozen=True)
class Relation:
    """A relation summed over its statements: ``count`` of them, their chunks and offsets, a confidence that grows
    with each (``1 - Π(1 - c)``); ``stated`` is false for a row only ever derived as another's inverse, ``inferred``
    true for one composed from two others (``inference.infer``: no statement of its own)."""

    src_id: str
    type: str
    dst_id: str
    count: int
    chunk_ids: tuple[str, ...]
    evidence: tuple[tuple[int, int], ...]
    confidence: float
    stated: bool
    inferred: bool = False


def _antecedent(sentence: Sentence, pronoun_at: int, src: int, sexes: dict[str, str], pronoun: str) -> str | None:
    """The entity "his"/"her" at template offset ``pronoun_at`` points to: the one person named before it in the
    sentence (besides ``src``) whose sex fits; none when two could be meant or the one's sex is unknown."""
    wanted = _PRONOUN_SEX[pronoun.casefold()]
    before = {
        sentence.mentions[int(match.group(1))].entity_id
        for match in PLACEHOLDER.finditer(sentence.template, 0, pronoun_at)
        if int(match.group(1)) != src
    }
    before.discard(sentence.mentions[src].entity_id)
    fitting = [entity for entity in before if sexes.get(entity, "") in (wanted, "")]
    if len(fitting) == 1 and sexes.get(fitting[0]) == wanted:
        return fitting[0]
    return None


def _hypothetical(sentence: Sentence, at: int, language: str) -> bool:
    """Whether the clause before template offset ``at`` makes what follows a condition, a wish or a negation."""
    clause = sentence.template[:at]
    starts = [match.end() for match in CLAUSE_START.finditer(clause)]
    return bool(HYPOTHETICAL[language].search(clause, starts[-1] if starts else 0))


def _relation_type(match: re.Match[str], words: dict[str, Kin]) -> Kin:
    groups = match.groupdict()
    if groups.get("married"):
        return Kin("spouse", "")
    if groups.get("engaged"):
        return Kin("engaged", "")
    return words[match.group("kin").casefold()]


@dataclass(frozen=True)
class _Document:
    """What the patterns' matches are read against: the sexes of the document's people, its paragraphs' speakers,
    the language's kinship words."""

    sexes: dict[str, str]
    speakers: Speakers
    words: dict[str, Kin]
    forms_of_address: frozenset[str]
    # "his"/"her" linked beyond their sentence (``ingestion.coref``): document offset -> entity
    pronouns: Mapping[int, str] = field(default_factory=dict)
    # the quotes stage's quotations, sorted, and their starts: whom "your" is said to
    quotes: Sequence[SpokenQuote] = ()
    quote_starts: Sequence[int] = ()

    def addressee_at(self, offset: int) -> str | None:
        """The one person the quotation at document ``offset`` names as its addressee, if it names one."""
        quote = quote_at(self.quotes, self.quote_starts, offset)
        return quote.addressee_ids[0] if quote and len(set(quote.addressee_ids)) == 1 else None


def _dst(sentence: Sentence, match: re.Match[str], src: int, document: _Document) -> str | None:
    groups = match.groupdict()
    if groups.get("pron"):
        found = _antecedent(sentence, match.start("pron"), src, document.sexes, match.group("pron"))
        linked = document.pronouns.get(sentence.offsets[match.start("pron")])
        return found or (linked if linked != sentence.mentions[src].entity_id else None)
    if groups.get("my"):
        return document.speakers.speaker_at(sentence.offsets[match.start("my")])
    if groups.get("your"):
        return document.addressee_at(sentence.offsets[match.start("your")])
    return sentence.mentions[int(match.group("dst"))].entity_id


def _set_off_badly(sentence: Sentence, match: re.Match[str]) -> bool:
    """Whether a name after a kinship word and a comma is not that word's apposition (``patterns.APPOSITION_CLOSES``):
    a new clause, a list or a call ("her brother, Pierre noticed"; "his wife, Miss Clare?")."""
    groups = match.groupdict()
    if not groups.get("kin") or not groups.get("src") or match.start("src") < match.end("kin"):
        return False
    if "," not in sentence.template[match.end("kin") : match.start("src")]:
        return False
    after = match.end()
    return (
        not APPOSITION_CLOSES.match(sentence.template, after)
        or bool(LIST_GOES_ON.match(sentence.template, after))
        or bool(CALLED_OUT.match(sentence.template, after))
    )


def _statements(
    sentence: Sentence, match: re.Match[str], pattern: Pattern, document: _Document
) -> Iterator[RelationMention]:
    """The relations one match states: one per src (a list gives several), none where the other side is unknown,
    is src itself, or where the kinship word's sex is not src's."""
    if match.groupdict().get("list"):
        sources = [int(index) for index in PLACEHOLDER.findall(match.group("list"))]
    else:
        sources = [int(match.group("src"))]
    kin = _relation_type(match, document.words)
    said_to_anyone = match.groupdict().get("my") and match.group("kin").casefold() in document.forms_of_address
    if said_to_anyone or _set_off_badly(sentence, match):
        return
    start, end = sentence.offsets[match.start()], sentence.offsets[match.end() - 1] + 1
    for index in sources:
        src = sentence.mentions[index]
        dst_id = _dst(sentence, match, index, document)
        src_sex = document.sexes.get(src.entity_id, "")
        if dst_id is None or dst_id == src.entity_id or (kin.sex and src_sex and src_sex != kin.sex):
            continue
        yield RelationMention(
            src.entity_id, kin.type, dst_id, start, end, src.chunk_id, pattern.name, pattern.confidence
        )


def relation_mentions(
    text: str,
    mentions: Sequence[PersonMention],
    language: str = "en",
    pronouns: Mapping[int, str] | None = None,
    quotes: Sequence[SpokenQuote] = (),
) -> list[RelationMention]:
    """Every statement of a relation between two of ``mentions`` (a document's resolved person mentions) in
    ``text``, in text order. A statement in a conditional, wishing or negated clause, one whose pronoun could point
    to two people, one that relates a person to itself, and one whose kinship word is of the other sex than its
    person, give nothing. ``pronouns`` (start of a "his"/"her" in ``text`` -> entity: ``ingestion.coref``'s links)
    answers a pronoun its own sentence leaves open. ``quotes`` (the quotes stage's quotations with their speakers
    and addressees) give whom "your KIN" is said to, and the kinship vocatives (``vocatives``).
    Couples named "Mr. and Mrs. X" are read from the names' forms (``couples``)."""
    patterns = patterns_for(language)
    ordered_quotes = sorted(quotes, key=lambda quote: quote.start)
    document = _Document(
        person_sexes(text, mentions, language),
        paragraph_speakers(text, mentions),
        kinship_words(language),
        FORMS_OF_ADDRESS[language],
        dict(pronouns or {}),
        ordered_quotes,
        [quote.start for quote in ordered_quotes],
    )
    found: list[RelationMention] = couple_statements(text, mentions, language)
    found += vocative_statements(text, ordered_quotes, document.sexes, mentions, language)
    for sentence in sentences_with_people(text, mentions, KIN_TITLES[language]):
        for pattern in patterns:
            for match in pattern.regex.finditer(sentence.template):
                if (pattern.event or match.groupdict().get("cop")) and _hypothetical(sentence, match.start(), language):
                    continue
                found.extend(_statements(sentence, match, pattern, document))
    return sorted(set(found), key=lambda row: (row.start, row.end, row.src_id, row.type, row.dst_id))


def aggregate(statements: Iterable[RelationMention]) -> list[Relation]:
    """One row per (src, type, dst) over ``statements`` and their inverses (``kinship.INVERSE``), sorted."""
    grouped: dict[tuple[str, str, str], list[tuple[RelationMention, bool]]] = defaultdict(list)
    for row in statements:
        grouped[(row.src_id, row.type, row.dst_id)].append((row, True))
        inverse = INVERSE[row.type]
        if inverse is not None:
            grouped[(row.dst_id, inverse, row.src_id)].append((row, False))
    relations = []
    for (src_id, type_, dst_id), rows in sorted(grouped.items()):
        # offsets are per document: the chunk (which names its document) keeps two documents' statements apart
        distinct = {(row.chunk_id, row.start, row.end): row for row, _ in rows}
        doubt = 1.0
        for row in distinct.values():
            doubt *= 1.0 - row.confidence
        relations.append(
            Relation(
                src_id, type_, dst_id, len(distinct), tuple(sorted({row.chunk_id for row in distinct.values()})),
                tuple(sorted({(row.start, row.end) for row in distinct.values()})), round(1.0 - doubt, 4),
                any(stated for _, stated in rows),
            )
        )  # fmt: skip
    return relations


def extract_relations(text: str, mentions: Sequence[PersonMention], language: str = "en") -> list[Relation]:
    """The typed relations ``text`` states between the people of ``mentions``, summed (``aggregate``)."""
    return aggregate(relation_mentions(text, mentions, language))
