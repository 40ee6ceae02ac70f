"""Cut a prepared document's units (``ingestion.structure``) into paragraph-sized chunks.

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

from ingestion.structure import (
    FRONT_MATTER_TITLE,
    MAX_HEADING_CHARS,
    UNIT_KINDS,
    WHOLE_DOCUMENT_TITLE,
    Unit,
    UnitPatterns,
    split_units,
    unit_id,
)

logger = logging.getLogger(__name__)

__all__ = [
    "FRONT_MATTER_TITLE", "MAX_HEADING_CHARS", "UNIT_KINDS", "WHOLE_DOCUMENT_TITLE", "Chunk", "Unit", "UnitPatterns",
    "chunk_document", "chunk_id", "chunk_unit", "split_units", "unit_id",
]


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of whole paragraphs inside one unit; ``text == document[start:end]``, with no outer whitespace."""

    index: int
    unit_index: int
    start: int
    end: int
    text: str


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

    The unit's heading is in no chunk: chunks start at ``unit.text_start`` (its title is ``unit.title``), so a
    heading never reaches NER or retrieval as story text. Paragraphs (separated by blank lines) are packed greedily
    while the chunk, separators included, stays within ``max_chars``. Only a paragraph longer than ``max_chars`` is
    split: at sentence ends, else at whitespace, else hard. A last chunk shorter than ``min_chars`` is merged into
    the unit's previous chunk (which may then hold up to ``max_chars + min_chars``). Chunks never include outer
    whitespace; blank stretches give no chunk.
    """
    _check_sizes(max_chars, min_chars)
    if not 0 <= unit.start <= unit.text_start <= unit.end <= len(text):
        raise ValueError(f"unit {unit.index} span [{unit.start}, {unit.end}) is outside the text (length {len(text)})")
    spans: list[tuple[int, int]] = []
    for start, end in _pieces(text, unit.text_start, unit.end, max_chars):
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
