"""Where a document's quotations are: (start, end) offsets into its text, the quotation marks included.

Pure Python over one document's text. The rules are typographic conventions of printed fiction, not of one book:

- *Paragraphs* are runs of non-blank lines; a text with no blank line at all has one paragraph per line.
- *Double quotation marks* (“…”, „…”, «…», straight "…") are a book's dialogue marks unless its paragraphs open far
  more often with a single mark; then *single marks* (‘…’, '…') are. Marks of the other kind are only ever nested
  inside a quotation (“He said ‘no’.”) and a nested quotation is part of the outer one, so they are never read: an
  apostrophe (don’t, the boys’, ’tis) cannot open or close anything in a book whose dialogue is double-quoted.
- In single-mark books an opening mark is one at a word's start, and the closing one the first mark after it that
  follows punctuation ("‘Come,’ he said") and no letter follows; only without such a mark in the paragraph does a mark
  after a letter close it (‘I saw the boys’ — the elided end of a plural possessive is rarer than a quotation's).
- *Several paragraphs*: a quotation still open at the end of its paragraph goes on when the next paragraph opens with
  a mark of the same kind (the printer's convention: no closing mark until the last paragraph); otherwise it ends
  with its paragraph (a missing closing mark must not swallow the book).
- *Dash dialogue* (Hungarian, French, Russian translations, Joyce): a paragraph that opens with a dash (-, –, —)
  and has no quotation mark is speech up to the next dash set off by spaces, where the narrator's words begin
  ("- Derdő, - mondja a fiunak, - uttyunk."); the next such dash reopens speech.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ingestion.quotes.speech import WORD, is_speech_verb

logger = logging.getLogger(__name__)

__all__ = ["Paragraph", "Quotation", "find_quotations", "paragraphs"]

# Opening double marks and the marks that close each ("„…”" is Hungarian and German, "„…“" German too).
DOUBLE_CLOSERS: dict[str, str] = {"“": "”", "„": "”“", "«": "»", '"': '"'}
SINGLE_MARKS = "‘’'"
# Every double mark that opens or closes a quotation.
_DOUBLE_MARK = re.compile(f"[{re.escape(''.join(sorted({*DOUBLE_CLOSERS, *''.join(DOUBLE_CLOSERS.values())})))}]")
DASHES = "-–—"
# A paragraph that opens with a dash and a space or a letter: "- Derdő", "—Come up, Kinch!"
DASH_OPENING = re.compile(r"(?:--|[-–—])\s?(?=[\w„“\"'‘¿¡.…])")
# The dash that hands the paragraph to the narrator or back: set off by a space on both sides, or after a comma.
DASH_SEPARATOR = re.compile(r"(?<=\s)[-–—](?=\s)|(?<=[,;.!?…])\s*[-–—](?=\s)")
# A single mark opens a quotation at a word's start when a letter, digit or opening punctuation follows.
SINGLE_OPENING = re.compile(r"(?:(?<=^)|(?<=[\s(\[—–-]))[‘'](?=[\w¿¡.…—-])")
# It closes one after punctuation (the quotation's own ',', '.', '!', '?', '—') with no letter after it.
SINGLE_CLOSING = re.compile(r"(?<=[,.!?;:…—–-])[’'](?![\w])")
SINGLE_CLOSING_LOOSE = re.compile(r"(?<=\w)[’'](?![\w])")
SAID_CLAUSE_START = re.compile(r"(?<=[,!?.…])\s+(?=[\w])")
SENTENCE_AFTER_CLAUSE = re.compile(r"[.!?:;]")
DASH_SKIP = re.compile(r"[\s,;.!?…]*(?:--|[-–—])?\s*")
PHRASE = re.compile(r"[^,;:.!?…\-–—]*")
MENTION_MAX_WORDS = 4
# How many more paragraphs must open with a single mark than with a double one for a book to quote with single marks.
SINGLE_MARK_MAJORITY = 2


@dataclass(frozen=True)
class Paragraph:
    """A paragraph's offsets in the document's text (``end`` exclusive, surrounding whitespace left out)."""

    start: int
    end: int


@dataclass(frozen=True)
class Quotation:
    """A quotation: ``text[start:end]`` with its marks (or its opening dash); ``paragraph`` is the index of the
    paragraph it starts in; ``dash`` whether it is dash-introduced speech."""

    start: int
    end: int
    paragraph: int
    dash: bool = False


def paragraphs(text: str) -> list[Paragraph]:
    """The text's paragraphs: runs of non-blank lines, or single lines when the text has no blank line."""
    if not re.search(r"\n[ \t\r]*\n", text):
        pattern = re.compile(r"[^\n]*\S[^\n]*")
    else:
        pattern = re.compile(r"\S(?:.*\S)?(?:\n[ \t\r]*\S(?:.*\S)?)*")
    result = []
    for match in pattern.finditer(text):
        body = match.group()
        start = match.start() + (len(body) - len(body.lstrip()))
        result.append(Paragraph(start, match.start() + len(body.rstrip())))
    return result


def find_quotations(text: str) -> list[Quotation]:
    """Every quotation of ``text`` in order, nested ones inside their outer quotation (module docstring)."""
    parts = paragraphs(text)
    single = _quotes_with_single_marks(text, parts)
    quotations: list[Quotation] = []
    open_at: tuple[int, int, str] | None = None  # a quotation carried into the next paragraph: start, paragraph, closer
    for index, part in enumerate(parts):
        body = text[part.start : part.end]
        if open_at is None and _dash_paragraph(body, single):
            quotations.extend(_dash_quotations(text, part, index))
            continue
        scan = _single_marks(text, part, open_at) if single else _double_marks(text, part, open_at)
        for start, end, closer in scan:
            first = open_at[1] if open_at and start == open_at[0] else index  # where a carried quotation began
            open_at = None
            if end >= 0:
                quotations.append(Quotation(start, end, first))
            elif _continues(text, parts, index, closer, single):
                open_at = (start, first, closer)
            else:
                quotations.append(Quotation(start, part.end, first))
    return [quote for quote in quotations if quote.dash or not _mentioned(text, quote, parts[quote.paragraph])]


def _mentioned(text: str, quote: Quotation, part: Paragraph) -> bool:
    """Whether marks set off a word or a title inside the narrator's sentence rather than speech: a few words, no
    punctuation of their own before the closing mark, not opening the paragraph, no verb of saying beside them
    ("the “elevator” of the town", "a copy of “Peerages”")."""
    inside = text[quote.start + 1 : quote.end - 1].rstrip()
    if quote.start == part.start or len(WORD.findall(inside)) > MENTION_MAX_WORDS or inside[-1:] in ",.!?;:…—–-":
        return False
    before = WORD.findall(text, max(part.start, quote.start - 40), quote.start)[-1:]
    ends_before = not text[part.start : quote.start].rstrip(" \n,:")[-1:].isalpha()
    after = WORD.findall(text, quote.end, min(part.end, quote.end + 40))[:3]
    # "he said, “Yes”" (the verb just before) or "“Yes” he said" (a verb among the next words) is speech
    return not any(is_speech_verb(word) for word in after + ([] if ends_before else before))


def _quotes_with_single_marks(text: str, parts: list[Paragraph]) -> bool:
    """Whether the book's paragraphs open with a single mark clearly more often than with a double one."""
    single = sum(1 for part in parts if text[part.start] in "‘'")
    double = sum(1 for part in parts if text[part.start] in DOUBLE_CLOSERS)
    return single > SINGLE_MARK_MAJORITY * max(double, 1)


def _dash_paragraph(body: str, single: bool) -> bool:
    marks = "‘’'" if single else '“”„«»"'
    return bool(DASH_OPENING.match(body)) and not any(mark in body for mark in marks)


def _dash_quotations(text: str, part: Paragraph, index: int) -> Iterator[Quotation]:
    """Speech and narration alternate at each separating dash; speech comes first. Within speech, a said-clause
    without dashes ("—Thanks, old chap, he cried briskly. That will do.") is narration up to its sentence's end; a
    narration that is such a clause and goes on after its sentence goes on in speech ("- Bujjunk el! - mondja
    dideregve. Bujjunk el!")."""
    bounds = [part.start] + [m.start() for m in DASH_SEPARATOR.finditer(text, part.start + 2, part.end)] + [part.end]
    for i in range(len(bounds) - 1):
        start, stop = bounds[i], bounds[i + 1]
        if i % 2:
            start = DASH_SKIP.match(text, start, stop).end()  # type: ignore[union-attr]
            said = _said_clause(text, start, stop, at_start=True)
            if said is None:
                continue
            start = said[1]
        while start < stop:
            start += len(text[start:stop]) - len(text[start:stop].lstrip())
            said = _said_clause(text, start, stop)
            end = start + len(text[start : said[0] if said else stop].rstrip())
            if re.search(r"\w", text[start:end]):
                yield Quotation(start, end, index, dash=True)
            if said is None:
                break
            start = said[1]


def _said_clause(text: str, start: int, stop: int, at_start: bool = False) -> tuple[int, int] | None:
    """The first narrator's clause in ``text[start:stop]``: a phrase starting after ',', '!', '?' or '.' (or at
    ``start`` when ``at_start``) whose first three words, before any punctuation, hold a verb of saying ("he cried",
    "said Stephen", "Stephen said quietly"); it runs to its sentence's end."""
    if at_start:
        marks: Iterator[int] = iter([start])
    else:
        marks = (m.end() for m in SAID_CLAUSE_START.finditer(text, start + 1, stop))
    for begin in marks:
        phrase = PHRASE.match(text, begin, stop)
        words = WORD.findall(phrase.group() if phrase else "")[:3]
        if any(is_speech_verb(word) for word in words):
            end = SENTENCE_AFTER_CLAUSE.search(text, begin, stop)
            return begin, end.end() if end else stop
        if at_start:
            return None
    return None


def _double_marks(text: str, part: Paragraph, open_at: tuple[int, int, str] | None) -> Iterator[tuple[int, int, str]]:
    """(start, end, closer) of each quotation in the paragraph; end -1 for one still open at the paragraph's end."""
    start, closer = (open_at[0], open_at[2]) if open_at else (-1, "")
    position = part.start + 1 if open_at and text[part.start] in DOUBLE_CLOSERS else part.start
    for mark in _DOUBLE_MARK.finditer(text, position, part.end):  # the other characters change nothing
        offset, char = mark.start(), mark.group()
        if start >= 0 and (char in closer or char == '"'):
            yield start, offset + 1, closer
            start = -1
        elif char in DOUBLE_CLOSERS:
            if start >= 0:  # a second opening mark: the first quotation's closing mark is missing
                yield start, offset, closer
            start, closer = offset, DOUBLE_CLOSERS[char]
    if start >= 0:
        yield start, -1, closer


def _single_marks(text: str, part: Paragraph, open_at: tuple[int, int, str] | None) -> Iterator[tuple[int, int, str]]:
    """As ``_double_marks``, for a book that quotes with single marks (module docstring)."""
    position = part.start
    start = -1
    if open_at:
        start = open_at[0]
        if text[part.start] in "‘'":
            position += 1
    while position < part.end:
        if start < 0:
            opening = SINGLE_OPENING.search(text, position, part.end)
            if opening is None:
                return
            start, position = opening.start(), opening.end()
        closing = SINGLE_CLOSING.search(text, position, part.end) or _loose_close(text, position, part)
        if closing is None:
            yield start, -1, "’'"
            return
        yield start, closing.end(), "’'"
        start, position = -1, closing.end()


def _loose_close(text: str, position: int, part: Paragraph) -> re.Match[str] | None:
    """The last mark after a letter that no letter follows, when no mark after punctuation closes the quotation."""
    found = None
    for found in SINGLE_CLOSING_LOOSE.finditer(text, position, part.end):  # noqa: B007 - the last one is wanted
        pass
    return found


def _continues(text: str, parts: list[Paragraph], index: int, closer: str, single: bool) -> bool:
    """Whether the next paragraph reopens a quotation left open at the end of paragraph ``index``."""
    if index + 1 >= len(parts):
        return False
    first = text[parts[index + 1].start]
    if single:
        return first in "‘'"
    return first in DOUBLE_CLOSERS and (first == '"') == ('"' in closer)
