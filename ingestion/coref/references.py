"""Who "he", "her" or "the count" is: pronouns and descriptions of people linked to the entities a document names.

Pure Python over one document's text, its resolved person-name mentions and its quotations with their speakers (no
model, no list of a book's characters). English only: the pronoun words are a language resource.

- *Inside a quotation* "I/me/my/mine/myself" is its speaker and "you/your/yours/yourself" its addressee when it
  calls exactly one person; a third-person pronoun there is never the speaker or the addressee.
- *Third person* (he/him/his/himself, she/her/hers/herself): the candidates are the names and the pronouns already
  linked whose sex fits (``ingestion.relations.sexes``: titles, then the pronouns after the name's mentions, then
  the given name; an entity still unknown after a first reading takes the sex its linked pronouns clearly say, and
  the text is read again: ``PASSES``) within ``SENTENCE_REACH`` sentences back, or whose sex is unknown within
  ``UNKNOWN_REACH``, none across more than ``PARAGRAPH_REACH`` paragraph breaks. The latest sentence holding one
  wins, and in it the first mention that is not a possessive (its subject, most often: "Tom met John and he …"),
  unless another person of that sentence was mentioned ``SALIENCE_RATIO`` times as often within the reach (the one
  the passage is about). A reflexive takes the nearest, and so does a possessive when its own sentence holds a
  candidate ("Edward married Eliza, a girl of an indolent temper: her virtues …": ``POSSESSIVE_NEAREST``). A
  possessive right after a name and a comma is not that name's ("Ellen, her daughter"). A narrator's pronoun skips
  names said inside quotations when one outside fits, and a pronoun inside a quotation those of the narration when
  one said in a quotation fits. No candidate before it: the first name of its sex after it, within
  ``CATAPHORA_REACH`` sentences and in its register ("His mother called him. Stephen ran"); none there either: no
  link.
- *Descriptions*: "the count", "the old colonel", "the doctor" — a lowercase word after "the" (and an adjective)
  that is a capitalised word of a recent name ("Count Rostov"), or the word of its abbreviated title ("Dr. Archie"),
  links to the latest name holding it.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ingestion.names import FEMALE, MALE, pronoun_gender
from ingestion.quotes.detection import paragraphs
from ingestion.relations.sentences import PersonMention, sentence_spans
from ingestion.relations.sexes import person_sexes

logger = logging.getLogger(__name__)

__all__ = ["NOMINAL", "PRONOUN", "Reading", "Reference", "Resolution", "Speech", "resolve", "resolve_references"]

PRONOUN, NOMINAL = "pronoun", "nominal"
# How far back a third-person pronoun looks: sentences, and paragraph breaks crossed; a person of unknown sex only
# UNKNOWN_REACH sentences back, because the NER's names no title, given name or pronoun marks as a man or a woman
# are often no person at all ("Somersetshire", "Thither") and would take every pronoun of a page. Chosen 5-fold on
# LitBank's coreference with csillag's NER names (bench/quality_coref.py --tune): 40 (three folds of five; two 25),
# no paragraph limit (100 in effect, all folds), 1 (four folds).
SENTENCE_REACH = 10
PARAGRAPH_REACH = 100
UNKNOWN_REACH = 1
# How far ahead a pronoun no earlier person fits looks for the first person of its sex (known sex only): a story, a
# chapter or a scene often says "he" before the name. Chosen 5-fold like the reaches above (bench --tune).
CATAPHORA_REACH = 100
# Two people in the sentence a pronoun goes back to: the one mentioned this many times as often as the sentence's first
# within the reach wins (0: the first always); and whether a possessive takes the nearest person of its own sentence.
# Chosen 5-fold like the reaches above.
SALIENCE_RATIO = 1.5
POSSESSIVE_NEAREST = 1
# Abbreviated titles and the word a description says for them: "Dr. Archie" is "the doctor".
TITLE_WORDS = {
    "dr": "doctor", "capt": "captain", "col": "colonel", "gen": "general", "lieut": "lieutenant", "prof": "professor",
    "sgt": "sergeant",
}
PASSES = 2  # readings of the text: the second with the sexes the first one's links taught
THIRD_PERSON = {
    "he": MALE, "him": MALE, "his": MALE, "himself": MALE,
    "she": FEMALE, "her": FEMALE, "hers": FEMALE, "herself": FEMALE,
}
POSSESSIVES = frozenset({"his", "her", "hers"})
_APPOSITION = re.compile(r"\s*,\s*")
REFLEXIVES = frozenset({"himself", "herself"})
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself"})
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself"})
# "I" only as a capital letter (a lowercase "i" is no pronoun); the others in any case.
_PRONOUN = re.compile(
    r"\b(?:I|(?i:me|my|mine|myself|you|your|yours|yourself|he|him|his|himself|she|her|hers|herself))\b"
)
# A description: "the" and at most one adjective before a lowercase head word.
_DESCRIPTION = re.compile(r"\b[Tt]he\s+(?:(?:old|young|little|poor|good|dear|elder|younger)\s+)?([a-z][a-z-]+)\b")


@dataclass(frozen=True)
class Speech:
    """A quotation of the document: its offsets, its speaker and the people it addresses (entity ids)."""

    start: int
    end: int
    speaker_id: str | None = None
    addressee_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reference:
    """A pronoun or a description at ``text[start:end]`` linked to ``entity_id``; ``kind`` is pronoun or nominal."""

    start: int
    end: int
    entity_id: str
    kind: str


class _Seen(NamedTuple):
    """A mention already read: where, whom, in which sentence and paragraph, and whether inside a quotation (a tuple:
    one is made per name and per link of a novel)."""

    start: int
    entity_id: str
    sentence: int
    paragraph: int
    quoted: bool
    possessive: bool = False
    end: int = 0


def resolve_references(
    text: str, people: Sequence[PersonMention], speeches: Sequence[Speech] = (), *, reading: Reading | None = None
) -> list[Reference]:
    """The pronouns and descriptions of ``text`` linked to the entities of ``people`` (module docstring).

    ``reading``: a ``Reading`` made already — what resolving with other speeches shares; used when it is of this text
    and these people, made again otherwise."""
    return resolve(text, people, speeches, reading=reading).references


@dataclass(frozen=True)
class Resolution:
    """The references a resolution found, and how: its reading, its quotations, and for each pass over the text the
    sexes it read with and each event's reference — what a resolution of the same reading with other speakers
    follows (``resolve``'s ``after``)."""

    references: list[Reference]
    reading: Reading | None = None
    speeches: tuple[Speech, ...] = ()
    passes: tuple[_Pass, ...] = ()


class _Pass(NamedTuple):
    """One reading of the events: the sexes it knew, each event's reference (None: none, or not a reference), and
    whether the mentions it saw stayed in sentence order (``_Memory.ordered``)."""

    sexes: dict[str, str]
    outputs: list[Reference | None]
    ordered: bool


def resolve(
    text: str,
    people: Sequence[PersonMention],
    speeches: Sequence[Speech] = (),
    *,
    reading: Reading | None = None,
    after: Resolution | None = None,
) -> Resolution:
    """``resolve_references`` and how it resolved them. ``after``: a resolution of the same reading whose quotations
    differ only in their speakers and addressees: a pronoun is then linked as there — not resolved again — where
    nothing that decides its link differs (``_Guide``), and the links are the same as without it."""
    if not people:
        return Resolution([])
    if reading is None or not reading.of(text, people):
        reading = Reading(text, people)
    context = _Context(reading, speeches)
    passes: list[_Pass] = []
    found: list[Reference] = []
    for number in range(PASSES):
        if number and not context.learn_sexes(found):
            break
        guide = _Guide.of(after, context, number) or _Guide.learnt(passes[-1] if passes else None, context)
        sexes = dict(context.sexes)
        found, outputs, ordered = _read(context, reading.events, guide)
        passes.append(_Pass(sexes, outputs, ordered))
    return Resolution(found, reading, tuple(context.speeches), tuple(passes))


class Reading:
    """What resolving the references of one text needs that its quotations do not change, made once: the sexes its
    people's names say, its sentences and paragraphs, the people in order, the words of their names, and the names,
    pronouns and descriptions in text order (the events a resolution reads)."""

    def __init__(self, text: str, people: Sequence[PersonMention]) -> None:
        self.text = text
        self.given = tuple(people)
        self.entries: dict[tuple[tuple[int, int], ...], dict[tuple[int, str, int], _Seen]] = {}
        self.sexes = person_sexes(text, people)
        self.sentence_starts = [start for start, _ in sentence_spans(text)]
        self.paragraph_starts = [p.start for p in paragraphs(text)] or [0]
        self.people = sorted(people, key=lambda m: m.start)
        self.people_starts = [m.start for m in self.people]
        self.name_words: dict[str, list[int]] = {}
        for mention in people:
            for word in re.findall(r"[A-Z][a-z-]+", text[mention.start : mention.end]):
                self.name_words.setdefault(word.casefold(), []).append(mention.start)
                if said := TITLE_WORDS.get(word.casefold()):
                    self.name_words.setdefault(said, []).append(mention.start)
        self.events: list[tuple[int, int, PersonMention | re.Match[str]]] = sorted(
            [(m.start, 0, m) for m in people]
            + [(m.start(), 1, m) for m in _PRONOUN.finditer(text)]
            + [(m.start(1), 2, m) for m in _DESCRIPTION.finditer(text)],
            key=lambda event: (event[0], event[1], -event[2].end if isinstance(event[2], PersonMention) else 0),
        )

    def of(self, text: str, people: Sequence[PersonMention]) -> bool:
        """Whether this is the reading of ``text`` and ``people`` (in that order)."""
        return self.given == tuple(people) and self.text == text


def _read(
    context: _Context, events: Sequence[tuple[int, int, PersonMention | re.Match[str]]], guide: _Guide | None = None
) -> tuple[list[Reference], list[Reference | None], bool]:
    """One pass over the names, pronouns and descriptions in order, each reference linked from what came before (or
    as ``guide`` says it was); the references, each event's, and whether the mentions stayed in sentence order."""
    seen = _Memory()
    found: list[Reference] = []
    outputs: list[Reference | None] = []
    covered_to = -1
    for index, (start, kind, item) in enumerate(events):
        reference = None
        if isinstance(item, PersonMention):
            if start >= covered_to:
                seen.add(context.seen(start, item.entity_id, item.end))
                covered_to = item.end
        elif start >= covered_to:  # else a word inside a name ("Mr. He"): the name's
            if guide is not None and guide.follows(index, start, seen):
                reference = guide.outputs[index]
            else:
                reference = context.pronoun(item, seen) if kind == 1 else context.description(item, seen.mentions)
                if guide is not None:
                    guide.compare(index, reference)
            if reference is not None:
                found.append(reference)
                seen.add(context.seen(reference.start, reference.entity_id, reference.end))
        outputs.append(reference)
    return found, outputs, seen.ordered


class _Guide:
    """An earlier pass over the same events with the same quotation spans: another resolution's with the same sexes,
    whose quotations' speakers or addressees differed in some (``of``), or the pass before of the same resolution,
    which knew fewer sexes (``learnt``). An event's reference is the one it had there when nothing that decides it
    can differ — the event is in no quotation whose speakers differ, no sentence naming or linking a person whose
    sex the passes differ on lies within ``SENTENCE_REACH`` sentences before it or ``CATAPHORA_REACH`` after it, the
    pronoun's window (``SENTENCE_REACH`` sentences back, in sentence order in both passes) and the mention before it
    hold no mention of a sentence where the two passes' references differed, and the link ahead (``postcedent``)
    reads names, sexes and spans only."""

    def __init__(
        self, outputs: list[Reference | None], context: _Context, differing: set[int],
        learnt_sentences: Sequence[int] = (),
    ) -> None:
        self.outputs = outputs
        self.context = context
        self.differing = differing  # the starts of the quotations whose speakers or addressees differ
        # the sentences, in order, naming or linking a person whose sex the passes differ on
        self.learnt_sentences = learnt_sentences
        self.changed = -1  # the latest sentence of a reference that differs

    @classmethod
    def of(cls, after: Resolution | None, context: _Context, number: int) -> _Guide | None:
        """The guide pass ``number`` of ``after`` gives a pass of ``context`` with its current sexes, if any."""
        if after is None or after.reading is not context.reading or number >= len(after.passes):
            return None
        before = after.passes[number]
        spans = [(s.start, s.end) for s in after.speeches]
        if not before.ordered or before.sexes != context.sexes or spans != [(s.start, s.end) for s in context.speeches]:
            return None
        pairs = zip(context.speeches, after.speeches, strict=True)
        differing = {mine.start for mine, theirs in pairs if mine != theirs}
        return cls(before.outputs, context, differing)

    @classmethod
    def learnt(cls, before: _Pass | None, context: _Context) -> _Guide | None:
        """The guide the pass ``before`` gives the next pass of the same resolution, which reads with the sexes
        ``before``'s links taught: a person's sex decides only the pronouns whose window (``SENTENCE_REACH``
        sentences back) holds a mention of them, or whose look-ahead (``CATAPHORA_REACH`` sentences) names them."""
        if before is None or not before.ordered:
            return None
        sexes = context.sexes
        differ = {entity for entity in {*before.sexes, *sexes} if before.sexes.get(entity) != sexes.get(entity)}
        starts = [m.start for m in context.people if m.entity_id in differ]
        starts += [r.start for r in before.outputs if r is not None and r.entity_id in differ]
        return cls(before.outputs, context, set(), sorted({context.sentence(start) for start in starts}))

    def follows(self, index: int, start: int, seen: _Memory) -> bool:
        """Whether the event ``index`` at ``start`` is linked as in the guide's pass."""
        if not seen.ordered:
            return False
        if self.learnt_sentences:
            sentence = self.context.sentence(start)
            at = bisect.bisect_left(self.learnt_sentences, sentence - SENTENCE_REACH)
            if at < len(self.learnt_sentences) and self.learnt_sentences[at] <= sentence + CATAPHORA_REACH:
                return False
        speech = self.context.speech(start)
        if speech is not None and speech.start in self.differing:
            return False
        if self.changed < 0:
            return True
        last = seen.mentions[-1] if seen.mentions else None  # a possessive's apposition reads it
        return self.context.sentence(start) - SENTENCE_REACH > self.changed and last is not None and (
            last.sentence > self.changed
        )

    def compare(self, index: int, reference: Reference | None) -> None:
        """Note where an event resolved again links otherwise than in the guide's pass."""
        theirs = self.outputs[index]
        if reference != theirs:
            starts = [r.start for r in (reference, theirs) if r is not None]
            self.changed = max(self.changed, *(self.context.sentence(start) for start in starts))


class _Memory:
    """The mentions read so far, in text order, with their sentences: the window a pronoun looks back over is found
    by bisection while the sentences never go back (they do not only when a description's "the" comes before a
    mention read earlier)."""

    __slots__ = ("mentions", "ordered", "sentences")

    def __init__(self) -> None:
        self.mentions: list[_Seen] = []
        self.sentences: list[int] = []
        self.ordered = True

    def add(self, mention: _Seen) -> None:
        if self.sentences and mention.sentence < self.sentences[-1]:
            self.ordered = False
        self.mentions.append(mention)
        self.sentences.append(mention.sentence)

    def window(self, sentence: int) -> list[_Seen]:
        """``_window(self.mentions, sentence)``."""
        if self.ordered:
            return self.mentions[bisect.bisect_left(self.sentences, sentence - SENTENCE_REACH) :]
        return _window(self.mentions, sentence)


class _Context:
    """What one document says about its people (its ``Reading``) and its quotations, and the sexes a resolution has
    learnt."""

    def __init__(self, reading: Reading, speeches: Sequence[Speech]) -> None:
        self.reading = reading
        self.text = reading.text
        self.sexes = dict(reading.sexes)
        self.sentence_starts = reading.sentence_starts
        self.paragraph_starts = reading.paragraph_starts
        self.speeches = sorted(speeches, key=lambda s: s.start)
        self.speech_starts = [s.start for s in self.speeches]
        self.people = reading.people
        self.people_starts = reading.people_starts
        self.name_words = reading.name_words
        # the mentions placed (``seen``): every pass, and every resolution whose quotations have these spans, makes
        # the same ones
        self.entries = reading.entries.setdefault(tuple((s.start, s.end) for s in self.speeches), {})

    def learn_sexes(self, found: Sequence[Reference]) -> bool:
        """Give each person of unknown sex the sex its linked third-person pronouns clearly say; whether any was."""
        he: Counter[str] = Counter()
        she: Counter[str] = Counter()
        for reference in found:
            sex = THIRD_PERSON.get(self.text[reference.start : reference.end].casefold())
            if sex and not self.sexes.get(reference.entity_id):
                (he if sex == MALE else she)[reference.entity_id] += 1
        learnt = {entity: pronoun_gender(he[entity], she[entity]) for entity in {*he, *she}}
        learnt = {entity: sex for entity, sex in learnt.items() if sex}
        self.sexes.update(learnt)
        return bool(learnt)

    def seen(self, start: int, entity_id: str, end: int) -> _Seen:
        """A mention at ``text[start:end]`` of ``entity_id``, placed in its sentence, paragraph and quotation, and
        whether it is a possessive ("his", "Tom's"), which is no sentence's subject."""
        key = (start, entity_id, end)
        if (known := self.entries.get(key)) is None:
            known = self.entries[key] = self._seen(start, entity_id, end)
        return known

    def _seen(self, start: int, entity_id: str, end: int) -> _Seen:
        word = self.text[start:end].casefold()
        possessive = word in POSSESSIVES or self.text.startswith(("'s", "’s"), end) or word.endswith(("'s", "’s"))
        return _Seen(start, entity_id, self.sentence(start), self.paragraph(start), self.speech(start) is not None,
                     possessive, end)

    def sentence(self, offset: int) -> int:
        return bisect.bisect_right(self.sentence_starts, offset) - 1

    def paragraph(self, offset: int) -> int:
        return bisect.bisect_right(self.paragraph_starts, offset) - 1

    def speech(self, offset: int) -> Speech | None:
        at = bisect.bisect_right(self.speech_starts, offset) - 1
        return self.speeches[at] if at >= 0 and offset < self.speeches[at].end else None

    def pronoun(self, match: re.Match[str], seen: _Memory) -> Reference | None:
        """The entity a pronoun stands for, or None."""
        word = match.group().casefold()
        start = match.start()
        speech = self.speech(start)
        if word in FIRST_PERSON or word in SECOND_PERSON:
            if speech is None:
                return None
            entity = speech.speaker_id if word in FIRST_PERSON else _only(speech.addressee_ids)
            return Reference(start, match.end(), entity, PRONOUN) if entity else None
        avoid: set[str | None] = {speech.speaker_id, *speech.addressee_ids} if speech is not None else set()
        last = seen.mentions[-1] if seen.mentions else None
        if word in POSSESSIVES and last is not None and _APPOSITION.fullmatch(self.text, last.end, start):
            avoid.add(last.entity_id)  # "Ellen, her daughter": the apposition is someone else's kin
        sex = THIRD_PERSON[word]
        entity = self.antecedent(start, sex, seen, avoid, nearest=word in REFLEXIVES, possessive=word in POSSESSIVES,
                                 quoted=speech is not None)
        entity = entity or self.postcedent(match.end(), sex, avoid)
        return Reference(start, match.end(), entity, PRONOUN) if entity else None

    def antecedent(
        self, offset: int, sex: str, seen: _Memory, avoid: set[str | None], *, nearest: bool,
        possessive: bool = False, quoted: bool,
    ) -> str | None:
        """The mention a third-person pronoun at ``offset`` (inside a quotation: ``quoted``) of ``sex`` points to,
        searched sentence by sentence."""
        sentence, paragraph = self.sentence(offset), self.paragraph(offset)
        sexes, unknown_from = self.sexes, sentence - UNKNOWN_REACH
        pool = [
            m for m in seen.window(sentence)
            if m.entity_id not in avoid and paragraph - m.paragraph <= PARAGRAPH_REACH
            and ((known := sexes.get(m.entity_id)) == sex or (not known and m.sentence >= unknown_from))
        ]
        # each register first: a narrator's pronoun the names of the narration, a speaker's those said in speech
        same = [m for m in pool if m.quoted == quoted]
        pool = same or pool
        if not pool:
            return None
        if possessive and POSSESSIVE_NEAREST and pool[-1].sentence == sentence:
            return pool[-1].entity_id  # "his", "her" qualify a noun of the clause that named its owner last
        return _pick(pool, nearest)

    def postcedent(self, offset: int, sex: str, avoid: set[str | None]) -> str | None:
        """The first person named after ``offset``, within ``CATAPHORA_REACH`` sentences, whose known sex is ``sex``
        and who is said in the same register (narration or quotation) — for a pronoun no earlier person fits."""
        sentence, narrated = self.sentence(offset), self.speech(offset) is None
        for mention in self.people[bisect.bisect_left(self.people_starts, offset) :]:
            if self.sentence(mention.start) - sentence > CATAPHORA_REACH:
                break
            if (self.sexes.get(mention.entity_id) == sex and mention.entity_id not in avoid
                    and (self.speech(mention.start) is None) == narrated):
                return mention.entity_id
        return None

    def description(self, match: re.Match[str], seen: Sequence[_Seen]) -> Reference | None:
        """The latest name holding the description's head word as a capitalised word ("the count": Count Rostov)."""
        holders = self.name_words.get(match.group(1), [])
        at = bisect.bisect_left(holders, match.start()) - 1
        if at < 0 or self.sentence(match.start()) - self.sentence(holders[at]) > SENTENCE_REACH * 4:
            return None
        holder = next((m for m in reversed(seen) if m.start == holders[at]), None)
        if holder is None:
            return None
        return Reference(match.start(), match.end(), holder.entity_id, NOMINAL)


def _window(seen: Sequence[_Seen], sentence: int) -> list[_Seen]:
    """The mentions of the last ``SENTENCE_REACH`` sentences up to ``sentence``."""
    out = []
    for mention in reversed(seen):
        if sentence - mention.sentence > SENTENCE_REACH:
            break
        out.append(mention)
    out.reverse()
    return out


def _pick(pool: list[_Seen], nearest: bool) -> str:
    """The latest sentence's first mention that is no possessive, or the one of its mentions ``SALIENCE_RATIO`` times
    as frequent in ``pool`` (the nearest one for a reflexive)."""
    latest = pool[-1].sentence
    inside = [m for m in pool if m.sentence == latest]
    if nearest:
        return inside[-1].entity_id
    subjects = [m for m in inside if not m.possessive]
    first = (subjects[0] if subjects else inside[0]).entity_id
    candidates = {m.entity_id for m in subjects}
    if SALIENCE_RATIO and len(candidates) > 1:  # one person alone is the first one: no need to count
        ids = [m.entity_id for m in pool]
        mentions = {entity: ids.count(entity) for entity in candidates}
        salient = max(subjects, key=lambda m: mentions[m.entity_id])
        if mentions[salient.entity_id] >= SALIENCE_RATIO * mentions[first]:
            return salient.entity_id
    return first


def _only(ids: Sequence[str]) -> str | None:
    return ids[0] if len(set(ids)) == 1 else None
