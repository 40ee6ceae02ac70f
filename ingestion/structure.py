"""A book's structure: nested units (volume › book › chapter …) and the text that is not the story.

``split_units`` cuts a prepared document (normalised, Gutenberg-stripped: ``ingestion.text``) into units that tile
it exactly. Prose units are ``part`` (any container level: volume, part, book, with its own introduction), ``chapter``
(the innermost level, and named sections such as a prologue or a preface) and ``document`` (a text without headings,
or a real opening before the first heading). Non-prose units (``NON_PROSE_UNIT_KINDS``) are kept, marked, so that
NER, the graph, "first mention" and retrieval can leave them out: ``front_matter`` (title page, credits, dedication
before the first heading), ``contents`` (a table of contents or list of illustrations, wherever it occurs — also one
at the start of every volume) and ``back_matter`` (notes, transcriber's notes, index, a Project Gutenberg licence).

How it reads a book, with nothing configured per book:

- The text is read as blocks (paragraphs between blank lines). A heading is the first line of a block matching
  ``UnitPatterns`` (at most ``MAX_HEADING_CHARS``); a title wrapped over more lines, or on a short title line of
  its own after a bare "CHAPTER I.", belongs to it. Headings stacked in one block ("VOLUME I / CHAPTER I.") are
  several headings. The line may be in italics ("_Chapter I_"), and a title may follow a heading word and its
  number after a space alone ("CHAPTER I IN WHICH …") when it is set as a title.
- A number without a heading word ("XII", "IV. THE INTERVIEW", "II The Little Shop-Window", "01 My Early Home",
  "_One_") heads a chapter when its line is a paragraph of its own (or ends a paragraph of headings) and it belongs
  to a run numbered 1, 2, 3 … whose sections average 200 words; between two container headings only the longest
  run counts. In a book whose chapters are headed with a word, such numbers are sections, but for those going on
  from its last chapter's number ("ADVENTURE VI", then "VII. THE ADVENTURE OF …").
- Levels come from the book: container words (volume, part, book, phase, and their Hungarian forms) rank in the
  order the book first uses them; chapters are innermost; epilogues and prologues with chapters of their own sit at
  the top level. A heading closes every open unit of its level or deeper, so chapter numbers may restart in every
  book and the path (``part_title``: "VOLUME I › BOOK SECOND") tells them apart.
- A heading is real when text follows it. Headings followed only by other headings are entries of a table of
  contents: of the headings before a paragraph, the real ones are the last and the containers of strictly higher
  level just before it; two or more entries left over form a ``contents`` unit. After a "Contents" label only a
  paragraph of prose ends the table, so titles listed between its entries do not count as text.
- Headings are not part of any chunk: a unit's text for chunks starts at ``body_start``, after its title, so a heading
  never reaches NER as prose; the title is kept whole in ``title``.

Standard library only (and the number grammar of ``tools.retrieval.numbers``): Spark stages call this inside pandas
UDFs.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from graph.tables import NON_PROSE_UNIT_KINDS, UNIT_PATH_SEPARATOR
from tools.retrieval.numbers import EN_CARDINAL, EN_ORDINAL, HU_ORDINAL, spelled_number

logger = logging.getLogger(__name__)

UNIT_KINDS: tuple[str, ...] = ("part", "chapter", "document", *sorted(NON_PROSE_UNIT_KINDS))
FRONT_MATTER_TITLE = "Front matter"
OPENING_TITLE = "Opening"
WHOLE_DOCUMENT_TITLE = "Document"
CONTENTS_TITLE = "Contents"
LICENCE_TITLE = "Project Gutenberg licence"
PATH_SEPARATOR = UNIT_PATH_SEPARATOR
# Longer lines are prose, whatever words they start with.
MAX_HEADING_CHARS = 120


@dataclass(frozen=True, slots=True)
class Unit:
    """A contiguous stretch of the document: a container (part) with any introduction, a chapter, or non-prose.

    ``kind`` is one of ``UNIT_KINDS``; ``part_title`` is the path of the enclosing containers, outermost first,
    joined by " › " (a container's own title included for a part unit), ``None`` outside containers. ``body_start``
    is where the unit's text starts after its heading (``None``: at ``start``, the unit has no heading).
    """

    index: int
    kind: str
    title: str
    start: int
    end: int
    part_title: str | None
    body_start: int | None = None

    @property
    def text_start(self) -> int:
        """Where the unit's text (what chunks hold) starts: after the heading, if it has one."""
        return self.start if self.body_start is None else self.body_start

    @property
    def path(self) -> str:
        """The unambiguous label, e.g. ``VOLUME I › BOOK SECOND › CHAPTER III`` (a part's path is its part_title)."""
        if self.kind == "part" and self.part_title:
            return self.part_title
        return PATH_SEPARATOR.join(p for p in (self.part_title, self.title) if p)

    @property
    def is_prose(self) -> bool:
        """Whether the unit is story text (NER, graph and retrieval use only these)."""
        return self.kind not in NON_PROSE_UNIT_KINDS


# --------------------------------------------------------------------------------------------------------------
# Heading patterns
# --------------------------------------------------------------------------------------------------------------

_ROMAN = r"(?=[IVXLCDM])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
# "CHAPTER XII", "Book 2", "BOOK ONE", "Book Second", "Book the First", "CHAPTER THE TWENTY-FIRST"
_EN_NUMBER = rf"(?:the\s+)?(?:\d+|{_ROMAN}|{EN_ORDINAL}|{EN_CARDINAL})\b"
_HU_ORDINAL = rf"(?:{HU_ORDINAL}|utolsó)"
# An optional title after the number: "BOOK ONE: 1805", "CHAPTER 12. Title", "VOLUME I—FANTINE", "ELSŐ RÉSZ. …"
_TITLE_TAIL = r"(?:\s*[:.\-–—]\s*.*)?"
_EN_CONTAINERS = "book|part|volume|phase"
_EN_NAMED = "prologue|epilogue|preface|introduction|foreword|afterword|conclusion"
_HU_NAMED = "befejezés|bevezetés|előszó|utószó|előhang|utóhang|zárszó|epilógus|prológus"


@dataclass(frozen=True, slots=True)
class UnitPatterns:
    """Regexes that recognise a container (part) and a chapter heading; each must match a whole (stripped) line."""

    part: re.Pattern[str]
    chapter: re.Pattern[str]

    @classmethod
    def english(cls) -> UnitPatterns:
        """English headings: "VOLUME I—FANTINE", "BOOK ONE: 1805", "Book Second", "FIRST EPILOGUE", "PART II";
        chapters "CHAPTER I", "Chapter 12. X", "CHAPTER THE FIRST", "Letter 4", "PROLOGUE", "PREFACE"."""
        return cls(
            part=re.compile(
                rf"(?i:(?:{_EN_CONTAINERS})\s+{_EN_NUMBER}|{EN_ORDINAL}\s+(?:{_EN_CONTAINERS}|epilogue)){_TITLE_TAIL}"
            ),
            chapter=re.compile(
                rf"(?i:(?:chapter|chap\.|letter|adventure|stave)\s+{_EN_NUMBER}|{EN_ORDINAL}\s+chapter"
                rf"|{_EN_NAMED}){_TITLE_TAIL}"
            ),
        )

    @classmethod
    def hungarian(cls) -> UnitPatterns:
        """Hungarian headings: "ELSŐ KÖTET", "ELSŐ RÉSZ. …", "II. KÖNYV"; chapters "XII." alone, "3. fejezet",
        "Első fejezet", "Befejezés.".

        A bare upper-case Roman numeral or a number, each with its dot ("XII.", "3."), is a chapter heading on a
        line of its own, as in Egri csillagok; so are the named headings (Befejezés, Előszó, …).
        """
        return cls(
            part=re.compile(rf"(?:(?i:{_HU_ORDINAL})|(?:\d+|{_ROMAN})\.)\s+(?i:rész|könyv|kötet){_TITLE_TAIL}"),
            chapter=re.compile(
                rf"(?:{_ROMAN}|\d{{1,3}})\."
                rf"|(?:(?i:{_HU_ORDINAL})|(?:\d+|{_ROMAN})\.)\s+(?i:fejezet){_TITLE_TAIL}"
                rf"|(?i:{_HU_NAMED})\.?"
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


_ALL_PATTERNS = UnitPatterns.auto(None)
# Container words and the level they stand for; a word not listed (a domain's own pattern) is its own level.
_CONTAINER_WORD = re.compile(r"(?i)\b(volume|kötet|part|rész|book|könyv|phase|epilogue|epilógus|prologue|prológus)\b")
_SAME_LEVEL = {"kötet": "volume", "rész": "part", "könyv": "book", "epilógus": "epilogue", "prológus": "prologue"}
# Containers that stand beside the book's top level rather than inside it ("FIRST EPILOGUE" after fifteen BOOKs).
_TOP_LEVEL = frozenset({"epilogue", "prologue"})
# Labels of non-prose sections, each a whole line of its own.
_CONTENTS_LABEL = re.compile(
    r"(?i:(?:table\s+of\s+)?contents|list\s+of\s+(?:illustrations|plates|figures|maps)|illustrations"
    r"|tartalom(?:jegyzék)?|képek\s+jegyzéke)[.:]?"
)
_BACK_LABEL = re.compile(
    r"(?i:foot-?notes|end-?notes|notes|transcriber['’]?s\s+notes?|index|glossary"
    r"|jegyzetek|lábjegyzetek|(?:név|tárgy)?mutató)[.:]?"
)
_TRANSCRIBER = re.compile(r"(?i)\[?\s*transcriber['’]?s\s+note")
_LICENCE = re.compile(r"(?i)project\s+gutenberg|gutenberg\.org|gutenberg-tm")
# A footnote or endnote: "[1] …", "[Footnote 1: …]", "(2) …", "* …".
_NOTE = re.compile(r"(?i)\s*(?:\[\s*(?:\d+|[a-z]|footnote)|\(\d+\)|[*†‡])")
_WORD = re.compile(r"[^\W\d_]+")
_DIGIT = re.compile(r"\d")
_SAMPLE_CHARS = 400
_SENTENCE_END = re.compile(r"[.!?…][\"'”’»)\]]*$")
_OPENING_PUNCT = tuple("\"'“‘«„(—–-[_")
# The region before the first heading is an opening of the story (prose), not front matter, from this much prose on.
_OPENING_MIN_WORDS = 150
# A numbered heading with no heading word: "XII", "7", "IV. THE INTERVIEW", "II The Little Shop-Window", "01 My
# Early Home" — a paragraph of one line. Such a line is a heading only inside a run numbered 1, 2, 3 … whose
# sections average at least _NUMBERED_MIN_WORDS words (a poem's numbered stanzas are shorter).
_NUMBERED = re.compile(rf"(?P<number>{_ROMAN}|\d{{1,3}}|(?i:{EN_CARDINAL}))(?:\.?\s+(?P<title>\S.*)|\.?)")
_NUMBERED_MIN_WORDS = 200
# "CHAPTER I IN WHICH I THROW AMBS-ACE": a heading's kind and number, then its title after a space only.
_HEAD_AND_TITLE = re.compile(
    r"(?P<head>(?i:chapter|chap\.|letter|adventure|stave|book|part|volume|phase)\s+\S+)\s+(?P<title>\S.*)"
)
# Italics around a whole line: "_Chapter I_".
_ITALIC_LINE = re.compile(r"_(?P<inner>[^_]+)_")
# A book that heads two or more chapters with a word ("CHAPTER IV") numbers sections inside them with bare numbers.
_CHAPTER_WORD = re.compile(r"(?i)(?:chapter|chap\.|letter|adventure|stave)\s|.*\bfejezet\b")


# --------------------------------------------------------------------------------------------------------------
# Reading the text: blocks, lines, items
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Line:
    start: int  # offset of the first non-blank character
    end: int  # offset after the last non-blank character
    text: str  # the stripped line


@dataclass(slots=True)
class _Heading:
    start: int
    body_start: int
    title: str
    container: bool
    word: str | None  # the container word ("volume", "book" …), None for a chapter
    rank: float = math.inf


class _Text:
    """A paragraph (or the rest of one, under a heading) of text; whether it reads as prose is worked out on demand
    (only tables of contents, back matter and the opening need it)."""

    __slots__ = ("_prose", "lines", "start")

    def __init__(self, lines: Sequence[_Line]) -> None:
        self.lines = lines
        self.start = lines[0].start if lines else 0
        self._prose: bool | None = None

    @property
    def prose(self) -> bool:
        """Story text is sentences: enough words, mostly lower-case (titles and index entries are capitalised), few
        digits. The opening of a long paragraph tells as well as the whole."""
        if self._prose is None:
            sample = self._sample()
            words = _WORD.findall(sample)
            lower = sum(1 for word in words if word[0].islower())
            self._prose = (
                len(words) >= 8 and lower >= 0.5 * len(words) and len(_DIGIT.findall(sample)) * 5 < sum(map(len, words))
            )
        return self._prose

    @property
    def words(self) -> int:
        """Whitespace-separated words."""
        return sum(len(line.text.split()) for line in self.lines)

    @property
    def note(self) -> bool:
        """Whether it starts like a footnote or endnote."""
        return bool(self.lines) and bool(_NOTE.match(self.lines[0].text))

    def _sample(self) -> str:
        head: list[str] = []
        size = 0
        for line in self.lines:
            head.append(line.text)
            size += len(line.text) + 1
            if size >= _SAMPLE_CHARS:
                break
        return " ".join(head)[:_SAMPLE_CHARS]


@dataclass(slots=True)
class _Label:
    start: int
    kind: str  # "contents", "back" or "licence"
    title: str


_Item = _Heading | _Text | _Label


def _blocks(text: str) -> Iterator[list[_Line]]:
    """Paragraphs: maximal runs of non-blank lines, each line with its offsets."""
    block: list[_Line] = []
    position = 0
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped:
            start = position + line.index(stripped[0])
            block.append(_Line(start, start + len(stripped), stripped))
        elif block:
            yield block
            block = []
        position += len(line) + 1
    if block:
        yield block


def _roman_value(numeral: str) -> int:
    values = [{"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}[c] for c in numeral]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _numbered_value(line: str) -> int | None:
    """The number of a line that reads as a numbered heading ("XII", "IV. THE INTERVIEW", "Twelve"), else None."""
    found = _NUMBERED.fullmatch(_unwrap(line)) if len(line) <= MAX_HEADING_CHARS else None
    if found is None or (found["title"] and not _numbered_title(found["title"])):
        return None
    number = found["number"]
    if number.isdigit():
        return int(number)
    return _roman_value(number) if re.fullmatch(_ROMAN, number) else spelled_number(number)


def _numbered_title(title: str) -> bool:
    """A title after a number: set as a title, or capitalised but for a word or two ("On Shell-heap Island")."""
    if _title_like(title):
        return True
    words = [w for w in _WORD.findall(title) if len(w) > 3]
    capitalised = sum(1 for w in words if w[0].isupper())
    return title[0].isupper() and capitalised * 3 >= len(words) * 2 and not _SENTENCE_END.search(title)


def _numbered_candidates(blocks: Sequence[Sequence[_Line]], patterns: UnitPatterns) -> Iterator[tuple[int, int, int]]:
    """(block index, line start, number) of each line that may be a numbered heading: a paragraph of its own, or
    the last line of a paragraph of headings ("Part I" over "01 My Early Home")."""
    for index, block in enumerate(blocks):
        value = _numbered_value(block[-1].text)
        if value is not None and all(_match_heading(line.text, patterns) for line in block[:-1]):
            yield index, block[-1].start, value


def _worded_chapter(line: str) -> bool:
    """Whether a line heads a chapter with a word and a number ("CHAPTER IV", "3. fejezet"), whatever the patterns
    in use: a book's bare numbers are sections when its chapters are headed so."""
    return bool(_CHAPTER_WORD.match(line)) and _match_heading(line, _ALL_PATTERNS) == (False, None)


def _numbered_headings(
    blocks: Sequence[Sequence[_Line]], patterns: UnitPatterns, heads: Sequence[tuple[bool, str | None] | None]
) -> set[int]:
    """Start offsets of the lines that are numbered headings without a heading word (``heads``: each block's first
    line matched by ``_match_heading``).

    Each candidate extends the longest open run (the latest on a tie) that ends at the number before its own; a 1
    opens a new run (numbers restart in every part). A run counts when it has two headings or more and its sections
    average ``_NUMBERED_MIN_WORDS`` words: a lone "I" of dialogue or poetry, a numbered list and a poem's stanzas
    stay text. In a book whose chapters are headed with a word, bare numbers are sections of those chapters: only
    numbers going on from its last one are headings (``_continuations``).
    """
    worded = [index for index, block in enumerate(blocks) if _worded_chapter(block[0].text)]
    if len(worded) >= 2:
        return _continuations(blocks, patterns, worded[-1])
    runs: list[list[tuple[int, int, int]]] = []
    for candidate in _numbered_candidates(blocks, patterns):
        open_runs = [run for run in runs if run[-1][2] == candidate[2] - 1]
        if open_runs:
            max(reversed(open_runs), key=len).append(candidate)
        elif candidate[2] == 1:
            runs.append([candidate])
    words, containers = [0], [0]
    for block in blocks:
        words.append(words[-1] + sum(len(line.text.split()) for line in block))
    for head in heads:
        containers.append(containers[-1] + (head or (False,))[0])
    # Of runs between the same two container headings, only the longest: "PROLOGUE" / I–IV, then I–XX (sections
    # of the prologue, then the chapters).
    longest: dict[int, list[tuple[int, int, int]]] = {}
    for run in runs:
        if len(run) >= 2 and words[run[-1][0]] - words[run[0][0] + 1] >= _NUMBERED_MIN_WORDS * (len(run) - 1):
            segment = containers[run[0][0]]
            if len(run) > len(longest.get(segment, [])):
                longest[segment] = run
    return {start for run in longest.values() for _, start, _ in run}


def _continuations(blocks: Sequence[Sequence[_Line]], patterns: UnitPatterns, last: int) -> set[int]:
    """Numbered headings going on from the last chapter headed with a word, block ``last`` ("ADVENTURE VI. …", then
    "VII. THE ADVENTURE OF THE BLUE CARBUNCLE" …), up to a number 1 (sections)."""
    words = _unwrap(blocks[last][0].text).split()
    number = words[1].rstrip(".:-–—") if len(words) > 1 else ""
    value = int(number) if number.isdigit() else _roman_value(number) if re.fullmatch(_ROMAN, number) else None
    accepted: set[int] = set()
    for index, start, candidate in _numbered_candidates(blocks, patterns):
        if value is None or index <= last:
            continue
        if candidate == 1:  # numbering restarts: sections of something the patterns do not know, not chapters
            break
        if candidate == value + 1:
            accepted.add(start)
            value = candidate
    return accepted


def _unwrap(line: str) -> str:
    """The line without italics around it ("_Chapter I_" → "Chapter I")."""
    found = _ITALIC_LINE.fullmatch(line)
    return found["inner"].strip() if found else line


def _match_heading(line: str, patterns: UnitPatterns) -> tuple[bool, str | None] | None:
    """(container?, container word) when ``line`` is a heading, else None.

    The line may be in italics, and a title may follow the kind and number after a space alone ("CHAPTER I IN
    WHICH …") when it is set as a title (capitals or Title Case, no full stop): a sentence never is.
    """
    if len(line) > MAX_HEADING_CHARS:
        return None
    line = _unwrap(line)
    found = _match_line(line, patterns)
    if found is None and (split := _HEAD_AND_TITLE.fullmatch(line)):
        found = _match_line(split["head"], patterns)
        return found if found and _title_like(split["title"]) else None
    return found


def _match_line(line: str, patterns: UnitPatterns) -> tuple[bool, str | None] | None:
    if patterns.part.fullmatch(line):
        found = _CONTAINER_WORD.search(line)
        word = found.group(1).casefold() if found else (_WORD.findall(line) or ["part"])[0].casefold()
        return True, _SAME_LEVEL.get(word, word)
    if patterns.chapter.fullmatch(line):
        return False, None
    return None


def _is_bare(line: str) -> bool:
    """Whether a heading line carries no title, only its kind and number ("CHAPTER I.", "BOOK ONE: 1805", "XII.")."""
    for word in _WORD.findall(line):
        low = word.casefold()
        if _CONTAINER_WORD.fullmatch(word) or low in {"chapter", "chap", "the", "fejezet", "letter"}:
            continue
        if spelled_number(low) is not None or re.fullmatch(_ROMAN, word):
            continue
        return False
    return True


def _all_caps(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return len(letters) >= 2 and not any(c.islower() for c in letters)


def _title_like(line: str) -> bool:
    """A short line set as a title: ALL CAPS, or Title Case without a closing full stop ("The Period")."""
    if len(line) > 100 or line.startswith(_OPENING_PUNCT) or line.endswith((",", ";", ":")):
        return False
    if _all_caps(line):
        return True
    significant = [w for w in _WORD.findall(line) if len(w) > 3]
    return bool(significant) and all(w[0].isupper() for w in significant) and not _SENTENCE_END.search(line)


def _continues_title(line: _Line, block_lines: int, patterns: UnitPatterns) -> bool:
    """Whether a line right under a heading line (same paragraph) is the rest of its title, not the story."""
    if _match_heading(line.text, patterns) or len(line.text) > MAX_HEADING_CHARS:
        return False
    if block_lines > 3:  # the story follows the heading without a blank line: only capitals are still title
        return _all_caps(line.text)
    return _all_caps(line.text) or not (_SENTENCE_END.search(line.text) and len(_WORD.findall(line.text)) >= 6)


def _join_title(heading: str, rest: Sequence[str]) -> str:
    title = " ".join(heading.split())
    for part in rest:
        part = " ".join(part.split())
        # "CHAPTER I" + "The Period": a separate title; "… OF THE" + "BISHOP": a wrapped one.
        separator = " " if title.endswith((".", ":", "—", "–", "-")) or not _is_bare(title) else ". "
        title = f"{title}{separator}{part}"
    return title


def _items(text: str, patterns: UnitPatterns) -> list[_Item]:
    """Headings, labels and text paragraphs in document order."""
    items: list[_Item] = []
    blocks = list(_blocks(text))
    consumed = -1  # a block taken whole as the title of the heading before it
    heads = [_match_heading(block[0].text, patterns) for block in blocks]
    numbered = _numbered_headings(blocks, patterns, heads)
    for number, block in enumerate(blocks):
        if number == consumed:
            continue
        first = block[0].text
        if any("utenberg" in line.text or "UTENBERG" in line.text for line in block) and _LICENCE.search(
            " ".join(line.text for line in block)
        ):
            items.append(_Label(block[0].start, "licence", LICENCE_TITLE))
            continue
        if _CONTENTS_LABEL.fullmatch(first) or _BACK_LABEL.fullmatch(first) or _TRANSCRIBER.match(first):
            kind = "contents" if _CONTENTS_LABEL.fullmatch(first) else "back"
            items.append(_Label(block[0].start, kind, " ".join(first.split()).rstrip(".:")))
            if len(block) > 1:
                items.append(_Text(block[1:]))
            continue
        position = 0
        # Heading lines may stack in one paragraph ("VOLUME I / CHAPTER I. / A BOARDING SCHOOL."); the first line
        # that is neither heading nor title starts the story.
        while position < len(block):
            found = heads[number] if position == 0 else _match_heading(block[position].text, patterns)
            if found is None and block[position].start in numbered:
                found = False, None
            if found is None:
                items.append(_Text(block[position:]))
                break
            head = block[position]
            rest: list[_Line] = []
            position += 1
            while (position < len(block) and len(rest) < 2 and block[position].start not in numbered
                   and _continues_title(block[position], len(block), patterns)):
                rest.append(block[position])
                position += 1
            following = blocks[number + 1] if number + 1 < len(blocks) else None
            if not rest and position == len(block) and following and following[0].start not in numbered:
                title = _title_paragraph(head.text, following, patterns)
                if title:
                    rest, consumed = title, number + 1
            title_text = _join_title(_unwrap(head.text), [r.text for r in rest])
            items.append(_Heading(head.start, (rest[-1] if rest else head).end, title_text, *found))
    return items


def _title_paragraph(heading: str, following: Sequence[_Line], patterns: UnitPatterns) -> list[_Line]:
    """The paragraph after a bare heading ("CHAPTER I." / "The Period") when it is its title, else nothing."""
    if not _is_bare(heading) or len(following) > 2:
        return []
    for line in following:
        text = line.text
        if not _title_like(text) or _match_heading(text, patterns) or _CONTENTS_LABEL.fullmatch(text):
            return []
        if _BACK_LABEL.fullmatch(text) or _LICENCE.search(text):
            return []
    return list(following)


# --------------------------------------------------------------------------------------------------------------
# Which headings are real, where contents and back matter run
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Marker:
    """Where a unit starts: a real heading, a non-prose region, or the story resuming after a region."""

    start: int
    kind: str  # "heading", "contents", "back_matter" or "resume"
    title: str = ""
    heading: _Heading | None = None


def _rank(items: Sequence[_Item]) -> None:
    """Set each heading's level: containers in the order the book first uses their word, chapters innermost."""
    order: dict[str | None, int] = {}
    for item in items:
        if isinstance(item, _Heading) and item.container and item.word not in _TOP_LEVEL:
            order.setdefault(item.word, len(order))
    for item in items:
        if isinstance(item, _Heading) and item.container:
            item.rank = -1 if item.word in _TOP_LEVEL else order[item.word]


def _heading_key(title: str) -> str:
    """What a table of contents and the heading it lists share: the kind and number ("chapter i", "book first")."""
    return " ".join(re.findall(r"\w+", title.casefold())[:2])


def _real(pending: Sequence[_Heading]) -> list[_Heading]:
    """Of headings before a paragraph, the real ones: the last, and the containers of higher level just before it."""
    real = [pending[-1]]
    for heading in reversed(pending[:-1]):
        if not (heading.container and heading.rank < real[0].rank):
            break
        real.insert(0, heading)
    return real


class _Resolver:
    """Walks the items once, deciding which headings are real and where non-prose regions start and end."""

    def __init__(self) -> None:
        self.markers: list[_Marker] = []
        self.pending: list[_Heading] = []
        self.mode = "story"  # "story", "contents", "back" or "licence"
        self.first_entry: str | None = None  # the first heading listed in the current table of contents

    def run(self, items: Sequence[_Item]) -> list[_Marker]:
        for item in items:
            if self.mode == "licence":
                break  # the licence runs to the end
            if isinstance(item, _Heading):
                self._heading(item)
            elif isinstance(item, _Label):
                self._label(item)
            else:
                self._text(item)
        if self.mode == "story":
            self._settle()
        return self.markers

    def _heading(self, item: _Heading) -> None:
        if self.mode == "contents":
            # The table's first entry again is the book itself starting (even if its first paragraphs are short).
            key = _heading_key(item.title)
            if self.first_entry is None:
                self.first_entry = key
            elif key == self.first_entry:
                self.pending, self.mode = [], "story"
        self.pending.append(item)

    def _emit(self, headings: Sequence[_Heading]) -> None:
        self.markers.extend(_Marker(h.start, "heading", h.title, h) for h in headings)

    def _settle(self) -> None:
        """Text follows the pending headings: the real ones start units, two or more entries left are contents."""
        if not self.pending:
            return
        real = _real(self.pending)
        entries = self.pending[: len(self.pending) - len(real)]
        if len(entries) >= 2:
            self.markers.append(_Marker(entries[0].start, "contents", CONTENTS_TITLE))
            self._emit(real)
        else:
            self._emit(self.pending)
        self.pending = []

    def _text(self, item: _Text) -> None:
        if self.mode == "story":
            self._settle()
            return
        # In a region only prose ends it: a table's titles and a note's text are not the story resuming.
        if not item.prose or (self.mode == "back" and (item.note or not self.pending)):
            return
        if self.pending:
            self._emit(_real(self.pending))
        else:
            self.markers.append(_Marker(item.start, "resume"))
        self.pending, self.mode = [], "story"

    def _label(self, item: _Label) -> None:
        has_heading = any(m.kind == "heading" for m in self.markers) or (self.mode == "story" and self.pending)
        if item.kind == "licence" and not has_heading:
            self._text(_Text([]))  # a header before the book: front matter (not prose: no lines)
            return
        if self.mode == "story":
            self._settle()
        self.pending = []  # headings inside a region are its entries
        self.first_entry = None
        if item.kind == "contents":
            self.markers.append(_Marker(item.start, "contents", item.title or CONTENTS_TITLE))
        else:
            self.markers.append(_Marker(item.start, "back_matter", item.title))
        self.mode = item.kind


# --------------------------------------------------------------------------------------------------------------
# Units
# --------------------------------------------------------------------------------------------------------------


def split_units(text: str, *, patterns: UnitPatterns | None = None) -> list[Unit]:
    """Split ``text`` into units (see the module docstring); the units cover ``text`` exactly, in order.

    A heading is the first line of a paragraph (after a blank line, or at the start), at most
    ``MAX_HEADING_CHARS`` long, that matches ``patterns`` (default: English and Hungarian combined). Non-blank text
    before the first unit is ``front_matter`` (or, with at least ``_OPENING_MIN_WORDS`` words of prose, a ``document``
    unit titled "Opening"); blank text there joins the first unit. Without headings or labels the whole text is one
    ``document`` unit.
    """
    items = _items(text, patterns or UnitPatterns.auto(None))
    _rank(items)
    markers = _Resolver().run(items)
    if not markers:
        return [Unit(0, "document", WHOLE_DOCUMENT_TITLE, 0, len(text), None)]
    units: list[Unit] = []
    if text[: markers[0].start].strip():
        prose = sum(i.words for i in items if isinstance(i, _Text) and i.start < markers[0].start and i.prose)
        opening = prose >= _OPENING_MIN_WORDS
        units.append(Unit(0, "document" if opening else "front_matter",
                          OPENING_TITLE if opening else FRONT_MATTER_TITLE, 0, markers[0].start, None))
    stack: list[_Heading] = []
    last: Unit | None = units[-1] if units and units[-1].kind == "document" else None
    for position, marker in enumerate(markers):
        start = marker.start if units else 0
        end = markers[position + 1].start if position + 1 < len(markers) else len(text)
        enclosing = PATH_SEPARATOR.join(h.title for h in stack) or None
        heading = marker.heading
        if heading is not None and heading.container:
            while stack and stack[-1].rank >= heading.rank:
                stack.pop()
            stack.append(heading)
            unit = Unit(len(units), "part", heading.title, start, end, PATH_SEPARATOR.join(h.title for h in stack),
                        heading.body_start)
        elif heading is not None:
            unit = Unit(len(units), "chapter", heading.title, start, end, enclosing, heading.body_start)
        elif marker.kind == "resume":  # the unit a region interrupted goes on (rare: a table inside a chapter)
            unit = Unit(len(units), last.kind if last else "document", last.title if last else OPENING_TITLE,
                        start, end, last.part_title if last else None)
        else:  # a table of contents stays where it is (a volume's own); notes, index and licence are the book's
            where = enclosing if marker.kind == "contents" else None
            unit = Unit(len(units), marker.kind, marker.title, start, end, where)
        if unit.is_prose:
            last = unit
        units.append(unit)
    return units


def unit_id(doc_id: str, index: int) -> str:
    """Return the stable id of unit ``index`` of document ``doc_id``, e.g. ``doc_…:u0007``."""
    return f"{doc_id}:u{index:04d}"
