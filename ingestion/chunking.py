"""Split a prepared document into units (parts, chapters) and paragraph-sized chunks.

Every offset is a character offset into the text the caller passes — the normalised, Gutenberg-stripped document
from ``ingestion.text`` — and ``document[start:end]`` is always exactly the unit's or chunk's text, so entity spans
found in a chunk map back to the document by adding ``chunk.start``. Standard library only: Spark stages call these
functions inside pandas UDFs.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

logger = logging.getLogger(__name__)

UNIT_KINDS: tuple[str, ...] = ("part", "chapter", "document")
FRONT_MATTER_TITLE = "Front matter"
WHOLE_DOCUMENT_TITLE = "Document"
# Longer lines are prose, whatever words they start with.
MAX_HEADING_CHARS = 120


@dataclass(frozen=True, slots=True)
class Unit:
    """A contiguous stretch of the document: a part heading (with any introduction), a chapter, or front matter.

    ``kind`` is one of ``UNIT_KINDS``; ``part_title`` is the heading of the enclosing part (a part's own heading
    for a part unit), ``None`` outside parts.
    """

    index: int
    kind: str
    title: str
    start: int
    end: int
    part_title: str | None


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of whole paragraphs inside one unit; ``text == document[start:end]``, with no outer whitespace."""

    index: int
    unit_index: int
    start: int
    end: int
    text: str


# --------------------------------------------------------------------------------------------------------------
# Heading patterns
# --------------------------------------------------------------------------------------------------------------

_ROMAN = r"(?=[IVXLCDM])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
_EN_UNITS = "one|two|three|four|five|six|seven|eight|nine"
_EN_NUMBER = (
    rf"(?:\d+|{_ROMAN}|(?:{_EN_UNITS}|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen"
    rf"|nineteen|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:{_EN_UNITS}))?))"
)
_EN_ORDINAL = r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final)"
_HU_ORDINAL = (
    r"(?:(?:tizen|huszon)?(?:első|egyedik|második|kettedik|harmadik|negyedik|ötödik|hatodik|hetedik|nyolcadik"
    r"|kilencedik)|tizedik|huszadik|harmincadik|utolsó)"
)
# An optional title after the number: "BOOK ONE: 1805", "CHAPTER 12. Title", "ELSŐ RÉSZ. HOL TEREM A MAGYAR VITÉZ?"
_TITLE_TAIL = r"(?:\s*[:.\-–—]\s*.*)?"


@dataclass(frozen=True, slots=True)
class UnitPatterns:
    """Regexes that recognise a part and a chapter heading; each must match a whole (stripped) line."""

    part: re.Pattern[str]
    chapter: re.Pattern[str]

    @classmethod
    def english(cls) -> UnitPatterns:
        """Headings of English novels: "BOOK ONE: 1805", "FIRST EPILOGUE", "PART II", "CHAPTER I", "Chapter 12. X"."""
        return cls(
            part=re.compile(
                rf"(?i:(?:book|part|volume)\s+{_EN_NUMBER}|{_EN_ORDINAL}\s+(?:book|part|volume|epilogue)){_TITLE_TAIL}"
            ),
            chapter=re.compile(rf"(?i:chapter\s+{_EN_NUMBER}|prologue|epilogue){_TITLE_TAIL}"),
        )

    @classmethod
    def hungarian(cls) -> UnitPatterns:
        """Headings of Hungarian novels: "ELSŐ RÉSZ. …", "II. KÖNYV"; chapters "XII." alone, "3. fejezet", "Befejezés."

        A bare upper-case Roman numeral or a number, each with its dot ("XII.", "3."), is a chapter heading on a
        line of its own, as in Egri csillagok; so are the named headings (Befejezés, Előszó, …).
        """
        return cls(
            part=re.compile(rf"(?:(?i:{_HU_ORDINAL})|(?:\d+|{_ROMAN})\.)\s+(?i:rész|könyv){_TITLE_TAIL}"),
            chapter=re.compile(
                rf"(?:{_ROMAN}|\d{{1,3}})\."
                rf"|(?:(?i:{_HU_ORDINAL})|(?:\d+|{_ROMAN})\.)\s+(?i:fejezet){_TITLE_TAIL}"
                r"|(?i:befejezés|bevezetés|előszó|utószó|előhang|utóhang|zárszó|epilógus|prológus)\.?"
            ),
        )

    @classmethod
    def auto(cls, language: str | None) -> UnitPatterns:
        """Return the preset for ``language`` ("en", "hu"), or both presets combined when it is ``None``."""
        if language == "en":
            return cls.english()
        if language == "hu":
            return cls.hungarian()
        if language is None:
            english, hungarian = cls.english(), cls.hungarian()
            return cls(
                part=re.compile(f"(?:{english.part.pattern})|(?:{hungarian.part.pattern})"),
                chapter=re.compile(f"(?:{english.chapter.pattern})|(?:{hungarian.chapter.pattern})"),
            )
        raise ValueError(f"no unit patterns for language {language!r}; valid: 'en', 'hu' or None (both)")


# --------------------------------------------------------------------------------------------------------------
# Units
# --------------------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Heading:
    start: int
    kind: str
    title: str
    has_body: bool = False


def split_units(text: str, *, patterns: UnitPatterns | None = None) -> list[Unit]:
    """Split ``text`` into units at part and chapter headings; the units cover ``text`` exactly, in order.

    A heading is a whole line, at most ``MAX_HEADING_CHARS`` long, after a blank line (or at the start) that
    matches ``patterns`` (default: English and Hungarian combined). Each heading starts a unit running to the next
    one. Non-blank text before the first heading is a ``"document"`` unit (front matter); blank text there joins
    the first unit. A chapter heading with no text before the next heading (a table-of-contents entry) starts no
    unit. Without headings the whole text is one ``"document"`` unit.
    """
    headings = [h for h in _find_headings(text, patterns or UnitPatterns.auto(None)) if h.kind == "part" or h.has_body]
    if not headings:
        return [Unit(0, "document", WHOLE_DOCUMENT_TITLE, 0, len(text), None)]
    units: list[Unit] = []
    if text[: headings[0].start].strip():
        units.append(Unit(0, "document", FRONT_MATTER_TITLE, 0, headings[0].start, None))
    part_title: str | None = None
    for position, heading in enumerate(headings):
        start = heading.start if units else 0
        end = headings[position + 1].start if position + 1 < len(headings) else len(text)
        if heading.kind == "part":
            part_title = heading.title
        units.append(Unit(len(units), heading.kind, heading.title, start, end, part_title))
    return units


def _find_headings(text: str, patterns: UnitPatterns) -> list[_Heading]:
    headings: list[_Heading] = []
    position = 0
    previous_blank = True
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped:
            kind = None
            if previous_blank and len(stripped) <= MAX_HEADING_CHARS:
                if patterns.part.fullmatch(stripped):
                    kind = "part"
                elif patterns.chapter.fullmatch(stripped):
                    kind = "chapter"
            if kind is not None:
                headings.append(_Heading(position + line.index(stripped[0]), kind, " ".join(stripped.split())))
            elif headings:
                headings[-1].has_body = True
        previous_blank = not stripped
        position += len(line) + 1
    return headings


def unit_id(doc_id: str, index: int) -> str:
    """Return the stable id of unit ``index`` of document ``doc_id``, e.g. ``doc_…:u0007``."""
    return f"{doc_id}:u{index:04d}"


# --------------------------------------------------------------------------------------------------------------
# Chunks
# --------------------------------------------------------------------------------------------------------------

_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
# A sentence ends at . ! ? or … (plus closing quotes/brackets) followed by whitespace.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s)")


def chunk_unit(
    text: str, unit: Unit, *, max_chars: int = 1500, min_chars: int = 200, start_index: int = 0
) -> list[Chunk]:
    """Cut ``unit`` of ``text`` into chunks of whole paragraphs, numbered from ``start_index``.

    Paragraphs (separated by blank lines) are packed greedily while the chunk, separators included, stays within
    ``max_chars``. Only a paragraph longer than ``max_chars`` is split: at sentence ends, else at whitespace, else
    hard. A last chunk shorter than ``min_chars`` is merged into the unit's previous chunk (which may then hold up
    to ``max_chars + min_chars``). Chunks never include outer whitespace; blank stretches give no chunk.
    """
    _check_sizes(max_chars, min_chars)
    if not 0 <= unit.start <= unit.end <= len(text):
        raise ValueError(f"unit {unit.index} span [{unit.start}, {unit.end}) is outside the text (length {len(text)})")
    spans: list[tuple[int, int]] = []
    for start, end in _pieces(text, unit.start, unit.end, max_chars):
        if spans and end - spans[-1][0] <= max_chars:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    if len(spans) > 1:
        (prev_start, _), (tail_start, tail_end) = spans[-2], spans[-1]
        if tail_end - tail_start < min_chars and tail_end - prev_start <= max_chars + min_chars:
            spans[-2:] = [(prev_start, tail_end)]
    return [
        Chunk(start_index + offset, unit.index, start, end, text[start:end])
        for offset, (start, end) in enumerate(spans)
    ]


def chunk_document(text: str, units: Sequence[Unit], *, max_chars: int = 1500, min_chars: int = 200) -> list[Chunk]:
    """Chunk every unit of ``text`` (see ``chunk_unit``); chunk indices run over the whole document."""
    chunks: list[Chunk] = []
    for unit in units:
        chunks.extend(chunk_unit(text, unit, max_chars=max_chars, min_chars=min_chars, start_index=len(chunks)))
    return chunks


def chunk_id(doc_id: str, index: int) -> str:
    """Return the stable id of chunk ``index`` of document ``doc_id``, e.g. ``doc_…:c00042``."""
    return f"{doc_id}:c{index:05d}"


def _check_sizes(max_chars: int, min_chars: int) -> None:
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    if not 0 <= min_chars <= max_chars:
        raise ValueError(f"min_chars must be between 0 and max_chars ({max_chars}), got {min_chars}")


def _pieces(text: str, start: int, end: int, max_chars: int) -> Iterator[tuple[int, int]]:
    """Yield trimmed paragraph spans in [start, end); a paragraph over ``max_chars`` comes as several pieces."""
    paragraph_start = start
    for match in _PARAGRAPH_BREAK.finditer(text, start, end):
        yield from _paragraph_pieces(text, paragraph_start, match.start(), max_chars)
        paragraph_start = match.end()
    yield from _paragraph_pieces(text, paragraph_start, end, max_chars)


def _paragraph_pieces(text: str, start: int, end: int, max_chars: int) -> Iterator[tuple[int, int]]:
    start, end = _trim(text, start, end)
    if start == end:
        return
    if end - start <= max_chars:
        yield start, end
        return
    piece_start = piece_end = start
    for sentence_start, sentence_end in _sentences(text, start, end):
        if sentence_end - piece_start <= max_chars:
            piece_end = sentence_end
            continue
        if piece_end > piece_start:
            yield piece_start, piece_end
        if sentence_end - sentence_start <= max_chars:
            piece_start, piece_end = sentence_start, sentence_end
        else:
            *whole, (piece_start, piece_end) = _split_at_whitespace(text, sentence_start, sentence_end, max_chars)
            yield from whole
    yield piece_start, piece_end


def _sentences(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    sentence_start = start
    for match in _SENTENCE_END.finditer(text, start, end):
        yield sentence_start, match.end()
        sentence_start = _trim(text, match.end(), end)[0]
    if sentence_start < end:
        yield sentence_start, end


def _split_at_whitespace(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    pieces = []
    while end - start > max_chars:
        limit = start + max_chars
        cut = max(text.rfind(" ", start + 1, limit + 1), text.rfind("\n", start + 1, limit + 1))
        cut = cut if cut > start else limit  # one "word" longer than max_chars: cut it hard
        piece_end = _trim(text, start, cut)[1]
        pieces.append((start, piece_end))
        start = _trim(text, cut, end)[0]
    pieces.append((start, end))
    return pieces


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Narrow [start, end) to exclude leading and trailing whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
