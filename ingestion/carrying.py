"""A book's people carried to the occurrences of their names that the NER left unlabelled.

A statistical NER decides each occurrence from its sentence alone, so a character it labels PERSON a hundred times
is missed wherever one sentence looks unusual ("Tuppence nodded." after a line of dialogue). Once resolution has
decided, from all of a book's mentions, that a name is a person's, every other occurrence of that name *as written*
is that person too — the "one sense per discourse" of word-sense disambiguation, applied to names. Measured on
LitBank's five folds (docs/quality.md): named-people recall 0.848 → 0.885 for 0.3 points of precision.

What keeps it from inventing mentions:

- only aliases of PERSON entities that the stage keeps, and only aliases that belong to one entity (a name two
  people or a person and a place share is carried nowhere);
- an alias must be a name as written: capitalised words (lowercase particles — "de", "von" — between them), no
  quotes or dashes glued on, its first word no sentence opener;
- an occurrence must be capitalised as the alias is (case-sensitive), a whole word, and outside every span the NER
  labelled — whatever that span's label, the NER's reading of that one stands;
- a one-word alias that the book also writes in lowercase ("Will", "Hope", "Good") is carried nowhere: casing
  cannot tell the name from the word ("Will you go?"; carried inside sentences only, such aliases cost LitBank's
  five folds 0.6 points of precision and found no name the other carries missed; ``common_words``).

Pure Python over one text: the entities stage runs it in Spark over the chunks (``ingestion.stages.entities``), the
LitBank scorer over a book's pieces (``ingestion.training.ner_scores``), so the measured figure is the pipeline's.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

import regex

from ingestion.names import PERSON_LABELS

logger = logging.getLogger(__name__)

# Words that may stand lowercase between the capitalised words of a name ("Charles de Gaulle", "Ludwig van
# Beethoven", "Tess of the d'Urbervilles" is no name but "Mary of Teck" is): connectors, never a name's ends.
_PARTICLES = frozenset({"de", "da", "di", "du", "del", "della", "der", "den", "van", "von", "la", "le", "of", "y",
                        "zu", "ten", "ter", "bin", "ibn", "al"})
# A name word: letters, with inner apostrophes, hyphens and a final full stop ("Mr.", "O'Hara", "Jean-Paul").
_NAME_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['’.-](?=[^\W_]))*\.?")
_WORD_START = re.compile(r"(?<![\w'’])[^\W\d_]")
# Unicode's Uppercase property: every character ``str.isupper`` accepts (a wider set only costs a check)
_CAPITAL = regex.compile(r"\p{Uppercase}")
# Where a sentence ends between two offsets: the carried mention's sentence is then not its neighbour's.
_SENTENCE_END = re.compile(r"[.!?…][\"'’”)\]]*\s")


@dataclass(frozen=True)
class Carried:
    """One carried mention: ``[start, end)`` of the text it was found in, as written, and its entity."""

    start: int
    end: int
    text: str
    entity_id: str


def is_name_as_written(alias: str, sentence_openers: Collection[str] = ()) -> bool:
    """Whether ``alias`` reads as a name written in prose: capitalised words (particles between them), nothing
    glued on, its first word not one the book capitalises only at a sentence's start ("Meanwhile Pierre")."""
    words = alias.split(" ")
    if not words or len(alias) < 2 or words[0] in sentence_openers:
        return False
    for index, word in enumerate(words):
        if _NAME_WORD.fullmatch(word) is None:
            return False
        inner = 0 < index < len(words) - 1
        if not word[0].isupper() and not (inner and word in _PARTICLES):
            return False
    return True


def carriable_aliases(
    entities: Iterable[tuple[str, str, Iterable[str]]],
    other_forms: Iterable[tuple[str, str]] = (),
    sentence_openers: Collection[str] = (),
    common_words: Collection[str] = (),
) -> dict[str, str]:
    """alias → entity id for the aliases that may be carried.

    ``entities``: the kept entities as (entity id, label, aliases); only PERSON ones give aliases.
    ``other_forms``: more (alias, entity id) pairs that make an alias ambiguous when their entity differs (the
    forms of entities that are not kept, or not people). An alias of two entities is carried for neither.
    ``common_words``: one-word aliases the book also writes in lowercase (``one_word_aliases`` are the candidates
    to ask the book about), carried for no one.
    """
    owners: dict[str, set[str]] = {}
    people: dict[str, str] = {}
    for entity_id, label, aliases in entities:
        for alias in aliases:
            owners.setdefault(alias, set()).add(entity_id)
            if label in PERSON_LABELS:
                people[alias] = entity_id
    for alias, entity_id in other_forms:
        owners.setdefault(alias, set()).add(entity_id)
    return {
        alias: entity_id
        for alias, entity_id in people.items()
        if len(owners[alias]) == 1 and alias not in common_words and is_name_as_written(alias, sentence_openers)
    }


def one_word_aliases(entities: Iterable[tuple[str, str, Iterable[str]]]) -> set[str]:
    """The one-word aliases of the PERSON ``entities``: the words whose lowercase use ``carriable_aliases`` needs."""
    return {alias for _, label, aliases in entities if label in PERSON_LABELS for alias in aliases if " " not in alias}


class Carrier:
    """Finds the carried mentions of one scope's aliases in texts (built once, run on every chunk)."""

    def __init__(self, aliases: Mapping[str, str]) -> None:
        """``aliases``: alias → entity id (``carriable_aliases``)."""
        # first word → (the lengths of its aliases, longest first; alias → entity id): at a position, the longest
        # alias that the text holds there wins, found by one lookup per length rather than a comparison per alias
        # ("Prince" opens dozens of a library's names)
        self._by_first: dict[str, tuple[list[int], dict[str, str]]] = {}
        for alias, entity_id in aliases.items():
            lengths, named = self._by_first.setdefault(alias.split(" ")[0], ([], {}))
            named[alias] = entity_id
        for lengths, named in self._by_first.values():
            lengths.extend(sorted({len(alias) for alias in named}, reverse=True))

    def __bool__(self) -> bool:
        return bool(self._by_first)

    def find(self, text: str, labelled: Iterable[tuple[int, int]] = ()) -> list[Carried]:
        """The occurrences of the aliases in ``text`` outside the ``labelled`` spans, left to right."""
        if not self._by_first:
            return []
        spans = sorted(labelled)
        out: list[Carried] = []
        position = 0
        # Only a capital can begin an alias: the ``regex`` package finds the capitals in C, and each is checked as
        # a word start here (a Python step per word of the text was most of the carrying's time).
        for match in _CAPITAL.finditer(text):
            start = match.start()
            if start < position or not text[start].isupper() or _WORD_START.match(text, start) is None:
                continue
            word = _NAME_WORD.match(text, start)
            if word is None:
                continue
            first = word.group(0)
            if first.endswith(("'s", "’s")):  # "Pierre's": the name word ends before the possessive
                first = first[:-2]
            candidates = self._by_first.get(first) or self._by_first.get(first.rstrip("."))
            if not candidates:
                continue
            lengths, named = candidates
            for length in lengths:
                end = start + length
                if end > len(text):  # a slice would stop at the text's end and could still equal a shorter alias
                    continue
                alias = text[start:end]
                if alias not in named or (end < len(text) and _continues(text, end)):
                    continue
                if _overlaps(spans, start, end):
                    break
                out.append(Carried(start, end, alias, named[alias]))
                position = end
                break
        return out


def _continues(text: str, end: int) -> bool:
    """Whether the word goes on after ``end`` ("Anna" in "Annabel", "Jo" in "Jo-Jo")."""
    char = text[end]
    return char.isalnum() or char == "_" or (char in "-’'" and end + 1 < len(text) and text[end + 1].isalpha()
                                             and text[end : end + 2] not in ("'s", "’s"))


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    from bisect import bisect_left

    index = bisect_left(spans, (end, end))
    return any(s < end and start < e for s, e in spans[max(index - 8, 0) : index])


def sentence_of(
    text: str, start: int, end: int, neighbours: Iterable[tuple[int, int, int]]
) -> int | None:
    """The sentence index of a carried mention at ``[start, end)``, from the NER mentions around it.

    ``neighbours``: (start, end, sentence index) of the text's NER mentions. The carried mention is in the sentence
    of the mention before it when no sentence ends between the two, else in the sentence of the one after it on the
    same condition; ``None`` when neither holds (a sentence with no NER mention in it).
    """
    before = after = None
    for s, e, index in neighbours:
        if e <= start and (before is None or e > before[1]):
            before = (s, e, index)
        elif s >= end and (after is None or s < after[0]):
            after = (s, e, index)
    if before is not None and _SENTENCE_END.search(text, before[1], start) is None:
        return before[2]
    if after is not None and _SENTENCE_END.search(text, end, after[0]) is None:
        return after[2]
    return None
