"""Typed relations between the people of one document, read from its text and its resolved person mentions: the
sentence patterns of ``patterns.py`` with the kinship words of ``kinship.py``, the couples of ``couples.py``, the
kinship descriptions of ``descriptions.py`` and, given the document's quotations, the kinship vocatives of
``vocatives.py``; no model.

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
from ingestion.relational import beside
from ingestion.relations.antecedents import PREVIOUS, Antecedent, antecedent
from ingestion.relations.couples import couple_statements
from ingestion.relations.descriptions import Families, agreed, description_statements
from ingestion.relations.patterns import (
    APPOSITION_CLOSES,
    CALLED_OUT,
    CLAUSE_START,
    HYPOTHETICAL,
    LIST_GOES_ON,
    Pattern,
    patterns_for,
)
from ingestion.relations.sentences import PLACEHOLDER, PersonMention, Sentence, sentence_spans, sentences_with_people
from ingestion.relations.sexes import person_sexes
from ingestion.relations.speech import Speakers, SpokenQuote, paragraph_speakers, quote_at
from ingestion.relations.statements import RelationMention
from ingestion.relations.vocatives import SPEAKER_TOLD, vocative_statements

logger = logging.getLogger(__name__)

# A pronoun's antecedent found in the sentence before its own (``antecedents.PREVIOUS``): more often wrong than one
# named in the relation's own sentence (``patterns.PRONOUN``).
PREVIOUS_SENTENCE = 0.5
DESCRIPTIONS = True  # kinship descriptions linked through the possessor's family name (``descriptions``)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
# Sentences with people from which a document's second half is read beside its first (``relational.beside``): a
# novel alone in its batch (War and Peace: 11,298), whose sending costs ~0.1 s, not a chapter.
SPLIT_SENTENCES = 2_000


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
    # pronouns linked beyond their sentence (``ingestion.coref``): document offset -> entity
    pronouns: Mapping[int, str] = field(default_factory=dict)
    # the quotes stage's quotations, sorted, and their starts: whom "your" is said to
    quotes: Sequence[SpokenQuote] = ()
    quote_starts: Sequence[int] = ()

    def speaker_at(self, offset: int) -> str | None:
        """The speaker of the quotation at document ``offset`` when a speech verb tells who it is (``SPEAKER_TOLD``):
        "I am X's wife" is no evidence when the turn-taking guessed who says it."""
        quote = quote_at(self.quotes, self.quote_starts, offset)
        return quote.speaker_id if quote and quote.attribution in SPEAKER_TOLD else None

    def addressee_at(self, offset: int) -> str | None:
        """The one person the quotation at document ``offset`` names as its addressee, if it names one."""
        quote = quote_at(self.quotes, self.quote_starts, offset)
        return quote.addressee_ids[0] if quote and len(set(quote.addressee_ids)) == 1 else None


def _dst(
    sentence: Sentence, match: re.Match[str], src: int | None, document: _Document, previous: Sentence | None
) -> tuple[str | None, str | None]:
    """The entity the match's other side names and, for a pronoun, how far back it was found."""
    groups = match.groupdict()
    if groups.get("pron"):
        pron_at = match.start("pron")
        linked = document.pronouns.get(sentence.offsets[pron_at])
        found = antecedent(sentence, pron_at, src, document.sexes, match.group("pron"), previous, linked)
        return (found.entity_id, found.reach) if found else (None, None)
    if groups.get("my"):
        return document.speakers.speaker_at(sentence.offsets[match.start("my")]), None
    if groups.get("your"):
        return document.addressee_at(sentence.offsets[match.start("your")]), None
    return sentence.mentions[int(match.group("dst"))].entity_id, None


def _sources(
    sentence: Sentence, match: re.Match[str], document: _Document, previous: Sentence | None
) -> list[tuple[int | None, Antecedent]]:
    """Each src of a match: its mention's index (``None`` for a pronoun) and its entity; a list gives several, a
    pronoun its antecedent or none."""
    groups = match.groupdict()
    if groups.get("me"):
        speaker = document.speaker_at(sentence.offsets[match.start("me")])
        return [(None, Antecedent(speaker, ""))] if speaker else []
    if groups.get("list"):
        indexes = [int(index) for index in PLACEHOLDER.findall(match.group("list"))]
    elif groups.get("psrc"):
        dst = int(match.group("dst"))
        linked = document.pronouns.get(sentence.offsets[match.start("psrc")])
        found = antecedent(sentence, match.start("psrc"), dst, document.sexes, match.group("psrc"), previous, linked)
        return [(None, found)] if found else []
    else:
        indexes = [int(match.group("src"))]
    return [(index, Antecedent(sentence.mentions[index].entity_id, "")) for index in indexes]


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
    sentence: Sentence, match: re.Match[str], pattern: Pattern, document: _Document, previous: Sentence | None
) -> Iterator[RelationMention]:
    """The relations one match states: one per src (a list gives several), none where the other side is unknown,
    is src itself, or where the kinship word's sex is not src's. A pronoun taken from the sentence before lowers
    the statement's confidence to ``PREVIOUS_SENTENCE`` and is named in its pattern."""
    kin = _relation_type(match, document.words)
    said_to_anyone = match.groupdict().get("my") and match.group("kin").casefold() in document.forms_of_address
    if said_to_anyone or _set_off_badly(sentence, match):
        return
    start, end = sentence.offsets[match.start()], sentence.offsets[match.end() - 1] + 1
    for index, src in _sources(sentence, match, document, previous):
        dst_id, reach = _dst(sentence, match, index, document, previous)
        src_sex = document.sexes.get(src.entity_id, "")
        if dst_id is None or dst_id == src.entity_id or (kin.sex and src_sex and src_sex != kin.sex):
            continue
        name, confidence = pattern.name, pattern.confidence
        if PREVIOUS in (reach, src.reach):
            name, confidence = f"{name}+{PREVIOUS}", min(confidence, PREVIOUS_SENTENCE)
        chunk = sentence.mentions[index if index is not None else int(match.group("dst"))].chunk_id
        yield RelationMention(src.entity_id, kin.type, dst_id, start, end, chunk, name, confidence)


def _previous(text: str, last: Sentence | None, sentence: Sentence) -> Sentence | None:
    """The sentence right before ``sentence`` in its paragraph, when it names someone (``last``: the one before
    that did)."""
    if last is None or last.end < sentence.start or _PARAGRAPH_BREAK.search(text, last.start, sentence.start):
        return None
    return last


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
    person, give nothing. ``pronouns`` (start of a pronoun in ``text`` -> entity: ``ingestion.coref``'s links, the
    quotes stage's pronoun rows) confirm a pronoun's one fitting person in the sentence before
    (``antecedents.PREVIOUS``); without them a pronoun is read in its own sentence only. ``quotes`` (the quotes
    stage's quotations with their speakers and addressees) give whom "your KIN" is said to, and the kinship
    vocatives (``vocatives``). Couples named "Mr. and Mrs. X" are read from the names' forms (``couples``). English
    kinship descriptions ("her father", "George's mother") name the one member of the possessor's family the word
    fits (``descriptions``), where those of one pair agree and no other source relates the pair otherwise."""
    patterns_for(language)  # an unknown language fails here, before any work
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
    spans = list(sentence_spans(text))
    sentences = list(sentences_with_people(text, mentions, KIN_TITLES[language], spans))
    # a long document's second half read beside its first, in a process of the run's pool when it has one
    half = len(sentences) // 2 if len(sentences) >= SPLIT_SENTENCES else 0
    later = None
    if half:
        later = beside(sentence_statements, text, sentences[half:], sentences[half - 1], document, language)
    found += sentence_statements(text, sentences[:half] if later else sentences, None, document, language)
    found += later.result() if later else []
    if language == "en" and DESCRIPTIONS:
        families = Families.of(text, mentions, document.sexes)
        titles = KIN_TITLES[language]
        described = description_statements(
            text, mentions, document.words, families, document.pronouns, document.speaker_at, titles, spans
        )
        found += agreed(described, found)
    return sorted(set(found), key=lambda row: (row.start, row.end, row.src_id, row.type, row.dst_id))


def sentence_statements(
    text: str, sentences: Sequence[Sentence], last: Sentence | None, document: _Document, language: str
) -> list[RelationMention]:
    """The statements the patterns of ``language`` find in ``sentences`` (consecutive sentences with people, in
    order; ``last``: the one before the first, if any). A sentence's statements depend on it and the one before
    only, so a document's sentences may be read in parts."""
    patterns = patterns_for(language)
    found: list[RelationMention] = []
    for sentence in sentences:
        previous = _previous(text, last, sentence)
        for pattern in patterns:
            for match in pattern.regex.finditer(sentence.template):
                if (pattern.event or match.groupdict().get("cop")) and _hypothetical(sentence, match.start(), language):
                    continue
                found.extend(_statements(sentence, match, pattern, document, previous))
        last = sentence
    return found


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
