"""The structural units (parts, chapters) of the ingested books, how a user names them, and who appears in them.

A user points at a unit as "chapter 12", "Chapter XII", "chapter twelve", "the twelfth chapter", "12. fejezet",
"a tizenkettedik fejezet" or "chapter 3 of book 2" / "the third chapter of the second book" / "második rész 3.
fejezet" (spelled numbers: ``tools.retrieval.numbers``). ``parse_reference`` turns that into numbers;
``UnitCatalog.find`` matches them against the numbers in the units' titles (arabic, roman or spelled), so War and
Peace's "CHAPTER III" under "BOOK TWO: 1805" and a Hungarian "III." under "MÁSODIK RÉSZ" are found alike. Chapter
numbers restart in every part: a reference without a part may therefore match several units, and the caller decides
(the page tool asks which one).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from graph.errors import GraphDataError
from graph.lakehouse import Lakehouse
from graph.model import read_table
from graph.tables import MENTION_ENTITIES, UNIT_PATH_SEPARATOR
from tools.retrieval.chunks import Chunk
from tools.retrieval.numbers import CARDINAL, ORDINAL, spelled_number

logger = logging.getLogger(__name__)

_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
# A number after the noun ("chapter 12", "chapter XII", "chapter twelve", "fejezet tizenkettő"): any form.
_NUM = r"(\d+|[ivxlcdm]+|" + CARDINAL + "|" + ORDINAL + r")"
# A number before the noun is an ordinal: "the third chapter", "the 3rd chapter"; "three chapters" counts them.
_EN_ORD = r"(\d+(?:st|nd|rd|th)|" + ORDINAL + r")"
# Hungarian: "3. fejezet", "III. fejezet", "a harmadik fejezet"; "három fejezet" / "tizenkét fejezet" count them.
_HU_ORD = r"(\d+|[ivxlcdm]+|" + ORDINAL + r")"
_CHAPTER = [re.compile(p, re.IGNORECASE) for p in (
    r"\bchapter\s+" + _NUM + r"\b", r"\b" + _EN_ORD + r"\s+chapter\b",
    r"\b" + _HU_ORD + r"\.?\s+fejezet", r"\bfejezet\s+" + _NUM + r"\b",
)]
_PART = [re.compile(p, re.IGNORECASE) for p in (
    r"\b(book|part|volume|epilogue)\s+" + _NUM + r"\b", r"\b" + _EN_ORD + r"\s+(book|part|volume|epilogue)\b",
    r"\b" + _HU_ORD + r"\.?\s+(rész|könyv)", r"\b(rész)\s+" + _NUM + r"\b",
)]
# Title words, a spelled number taken whole ("BOOK TWENTY-ONE"), else one word at a time.
_TITLE_TOKEN = re.compile(r"\b(?:" + CARDINAL + "|" + ORDINAL + r")\b|[^\W_]+", re.IGNORECASE)


def to_number(token: str) -> int | None:
    """An arabic ("12", "12.", "12th"), roman or spelled-out number; None if it is none of these.

    Spelled: English or Hungarian, cardinal or ordinal, up to 999 ("twelve", "twenty-third", "tizenkettedik").
    """
    token = token.casefold().strip().strip(".")
    if token.isdigit():
        return int(token)
    suffixed = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", token)
    if suffixed:
        return int(suffixed.group(1))
    spelled = spelled_number(token)
    if spelled is not None:
        return spelled
    if token and all(ch in _ROMAN for ch in token):
        total = 0
        for ch, nxt in zip(token, [*token[1:], ""], strict=True):
            value = _ROMAN[ch]
            total += -value if nxt and _ROMAN[nxt] > value else value
        return total
    return None


@dataclass(frozen=True, slots=True)
class UnitReference:
    """What the user pointed at: a chapter number and, optionally, the number of the part (book) it is in."""

    chapter: int
    part: int | None = None
    part_kind: str | None = None  # the word naming the part ("book", "rész"): "book two" is not "second epilogue"


def parse_reference(text: str) -> UnitReference | None:
    """Find a chapter reference (and its part) in ``text``; None when the text names no chapter."""
    chapter = _first_number(_CHAPTER, text)
    if chapter is None:
        return None
    for pattern in _PART:
        for match in pattern.finditer(text):
            groups = [g for g in match.groups() if g]
            word = next((g for g in groups if to_number(g) is None), None)
            number = next((to_number(g) for g in groups if to_number(g) is not None), None)
            if number is not None and word is not None:
                return UnitReference(chapter, number, word.casefold())
    return UnitReference(chapter)


def _first_number(patterns: Sequence[re.Pattern[str]], text: str) -> int | None:
    for pattern in patterns:
        for match in pattern.finditer(text):
            number = to_number(match.group(1))
            if number is not None:
                return number
    return None


def title_number(title: str) -> int | None:
    """The first number in a unit or part title ("CHAPTER XII", "Chapter 3. Up the River", "MÁSODIK RÉSZ")."""
    for token in _TITLE_TOKEN.findall(title):
        if all(ch in _ROMAN for ch in token.casefold()) and not token.isupper():
            continue  # "mild", "civil": lowercase words made of roman letters are words
        number = to_number(token)
        if number is not None:
            return number
    return None


def part_number(part_title: str, kind: str | None = None) -> int | None:
    """The number of the part a unit is in, from its path ("VOLUME I › BOOK SECOND"): of the innermost
    part, or of the innermost one named ``kind`` ("volume" → 1, "book" → 2)."""
    segments = [s for s in part_title.split(UNIT_PATH_SEPARATOR.strip()) if s.strip()]
    if kind:
        named = [s for s in segments if kind in s.casefold()]
        segments = named or segments
    return title_number(segments[-1]) if segments else None


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit of a document in book order, with its chunks."""

    unit_id: str
    doc_id: str
    unit_index: int
    unit_kind: str
    title: str
    part_title: str
    chunk_ids: tuple[str, ...]

    @property
    def label(self) -> str:
        """The unit's path, ``volume › book › chapter``, for answers and clarification options."""
        if self.unit_kind == "part" and self.part_title:
            return self.part_title  # a part's path ends with its own title
        return UNIT_PATH_SEPARATOR.join(p for p in (self.part_title, self.title) if p)


class UnitCatalog:
    """Units of the lakehouse's documents, and the entities mentioned in each (from ``mention_entities``)."""

    def __init__(self, chunks: Sequence[Chunk], chunk_entities: dict[str, list[str]] | None = None) -> None:
        units: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            units.setdefault(chunk.unit_id, []).append(chunk)
        self.units = sorted(
            (Unit(uid, cs[0].doc_id, cs[0].unit_index, cs[0].unit_kind, cs[0].unit_title, cs[0].part_title,
                  tuple(c.chunk_id for c in sorted(cs, key=lambda c: c.chunk_index))) for uid, cs in units.items()),
            key=lambda u: (u.doc_id, u.unit_index),
        )
        self._chunk_entities = chunk_entities or {}

    @classmethod
    def from_lakehouse(cls, root: Lakehouse, chunks: Sequence[Chunk]) -> UnitCatalog:
        """The catalogue of ``chunks`` with the resolved names the lakehouse ``root`` published (not the pronoun and
        description rows of ``mention_entities``: who appears in a chapter is who is named there, as in the graph)."""
        try:
            rows = read_table(root, MENTION_ENTITIES.name, MENTION_ENTITIES.pick("chunk_id", "entity_id"),
                              optional=("kind",))
        except GraphDataError:
            logger.warning("no mention_entities table under %s: units will list no entities", root.uri())
            rows = []
        by_chunk: dict[str, list[str]] = {}
        for row in rows:
            if row.get("kind") in (None, "name"):
                by_chunk.setdefault(row["chunk_id"], []).append(row["entity_id"])
        return cls(chunks, by_chunk)

    def find(self, reference: UnitReference) -> list[Unit]:
        """The chapters whose title carries the reference's number (and whose part's title its part number)."""
        found = [u for u in self.units if u.unit_kind == "chapter" and title_number(u.title) == reference.chapter]
        if reference.part is not None:
            found = [u for u in found if part_number(u.part_title, reference.part_kind) == reference.part]
            if reference.part_kind:
                named = [u for u in found if reference.part_kind in u.part_title.casefold()]
                found = named or found
        return found

    def entity_counts(self, unit: Unit) -> Counter[str]:
        """Entity id → resolved mentions in the unit."""
        counts: Counter[str] = Counter()
        for chunk_id in unit.chunk_ids:
            counts.update(self._chunk_entities.get(chunk_id, ()))
        return counts
