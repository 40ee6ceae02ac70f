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

from ingestion.names import FEMALE, MALE, pronoun_gender
from ingestion.quotes.detection import paragraphs
from ingestion.relations.sentences import PersonMention, sentence_spans
from ingestion.relations.sexes import person_sexes

logger = logging.getLogger(__name__)

__all__ = ["NOMINAL", "PRONOUN", "Reference", "Speech", "resolve_references"]

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


@dataclass(frozen=True)
class _Seen:
    """A mention already read: where, whom, in which sentence and paragraph, and whether inside a quotation."""

    start: int
    entity_id: str
    sentence: int
    paragraph: int
    quoted: bool
    possessive: bool = False
    end: int = 0


def resolve_references(
    text: str, people: Sequence[PersonMention], speeches: Sequence[Speech] = ()
) -> list[Reference]:
    """The pronouns and descriptions of ``text`` linked to the entities of ``people`` (module docstring)."""
    if not people:
        return []
    context = _Context(text, people, speeches)
    events: list[tuple[int, int, PersonMention | re.Match[str]]] = sorted(
        [(m.start, 0, m) for m in people]
        + [(m.start(), 1, m) for m in _PRONOUN.finditer(text)]
        + [(m.start(1), 2, m) for m in _DESCRIPTION.finditer(text)],
        key=lambda event: (event[0], event[1], -event[2].end if isinstance(event[2], PersonMention) else 0),
    )
    found = _read(context, events)
    for _ in range(PASSES - 1):
        if not context.learn_sexes(found):
            break
        found = _read(context, events)
    return found


def _read(context: _Context, events: Sequence[tuple[int, int, PersonMention | re.Match[str]]]) -> list[Reference]:
    """One pass over the names, pronouns and descriptions in order, each reference linked from what came before."""
    seen: list[_Seen] = []
    found: list[Reference] = []
    covered_to = -1
    for start, kind, item in events:
        if isinstance(item, PersonMention):
            if start >= covered_to:
                seen.append(context.seen(start, item.entity_id, item.end))
                covered_to = item.end
            continue
        if start < covered_to:
            continue  # a word inside a name ("Mr. He") is the name's
        reference = context.pronoun(item, seen) if kind == 1 else context.description(item, seen)
        if reference is not None:
            found.append(reference)
            seen.append(context.seen(reference.start, reference.entity_id, reference.end))
    return found


class _Context:
    """What one document says about its people, read once: sexes, sentences, paragraphs, quotations."""

    def __init__(self, text: str, people: Sequence[PersonMention], speeches: Sequence[Speech]) -> None:
        self.text = text
        self.sexes = person_sexes(text, people)
        self.sentence_starts = [start for start, _ in sentence_spans(text)]
        self.paragraph_starts = [p.start for p in paragraphs(text)] or [0]
        self.speeches = sorted(speeches, key=lambda s: s.start)
        self.speech_starts = [s.start for s in self.speeches]
        self.people = sorted(people, key=lambda m: m.start)
        self.people_starts = [m.start for m in self.people]
        self.name_words: dict[str, list[int]] = {}
        for mention in people:
            for word in re.findall(r"[A-Z][a-z-]+", text[mention.start : mention.end]):
                self.name_words.setdefault(word.casefold(), []).append(mention.start)
                if said := TITLE_WORDS.get(word.casefold()):
                    self.name_words.setdefault(said, []).append(mention.start)

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

    def pronoun(self, match: re.Match[str], seen: Sequence[_Seen]) -> Reference | None:
        """The entity a pronoun stands for, or None."""
        word = match.group().casefold()
        speech = self.speech(match.start())
        if word in FIRST_PERSON or word in SECOND_PERSON:
            if speech is None:
                return None
            entity = speech.speaker_id if word in FIRST_PERSON else _only(speech.addressee_ids)
            return Reference(match.start(), match.end(), entity, PRONOUN) if entity else None
        avoid: set[str | None] = {speech.speaker_id, *speech.addressee_ids} if speech is not None else set()
        if word in POSSESSIVES and seen and _APPOSITION.fullmatch(self.text, seen[-1].end, match.start()):
            avoid.add(seen[-1].entity_id)  # "Ellen, her daughter": the apposition is someone else's kin
        sex = THIRD_PERSON[word]
        entity = self.antecedent(match.start(), sex, seen, avoid, nearest=word in REFLEXIVES,
                                 possessive=word in POSSESSIVES)
        entity = entity or self.postcedent(match.end(), sex, avoid)
        return Reference(match.start(), match.end(), entity, PRONOUN) if entity else None

    def antecedent(
        self, offset: int, sex: str, seen: Sequence[_Seen], avoid: set[str | None], *, nearest: bool,
        possessive: bool = False,
    ) -> str | None:
        """The mention a third-person pronoun at ``offset`` of ``sex`` points to, searched sentence by sentence."""
        sentence, paragraph = self.sentence(offset), self.paragraph(offset)
        narrated = self.speech(offset) is None
        fitting = [m for m in _window(seen, sentence) if m.entity_id not in avoid and paragraph - m.paragraph
                   <= PARAGRAPH_REACH]
        pool = [m for m in fitting if self.sexes.get(m.entity_id) == sex
                or (not self.sexes.get(m.entity_id) and sentence - m.sentence <= UNKNOWN_REACH)]
        # each register first: a narrator's pronoun the names of the narration, a speaker's those said in speech
        if any(m.quoted == (not narrated) for m in pool):
            pool = [m for m in pool if m.quoted == (not narrated)]
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
    first = next((m for m in inside if not m.possessive), inside[0]).entity_id
    if SALIENCE_RATIO:
        mentions = Counter(m.entity_id for m in pool)
        salient = max((m for m in inside if not m.possessive), key=lambda m: mentions[m.entity_id], default=None)
        if salient is not None and mentions[salient.entity_id] >= SALIENCE_RATIO * mentions[first]:
            return salient.entity_id
    return first


def _only(ids: Sequence[str]) -> str | None:
    return ids[0] if len(set(ids)) == 1 else None
