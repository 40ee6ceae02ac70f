"""Units and chunks: small hand-made documents with spans worked out by hand, then invariants on both novels."""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

import pytest

from ingestion.chunking import (
    FRONT_MATTER_TITLE,
    WHOLE_DOCUMENT_TITLE,
    Chunk,
    Unit,
    UnitPatterns,
    chunk_document,
    chunk_id,
    chunk_unit,
    split_units,
    unit_id,
)
from ingestion.text import decode_document, strip_gutenberg

CORPORA = Path(__file__).resolve().parents[3].parent / "shared" / "corpora"


@functools.cache
def _prepared(name: str) -> str:
    path = CORPORA / name
    if not path.is_file():
        pytest.skip(f"corpus file {path} is absent (read-only corpora live in ../shared/corpora)")
    return strip_gutenberg(decode_document(path.read_bytes(), source=name))[0]


@pytest.fixture(params=["war_and_peace.txt", "egri_csillagok.txt"])
def body(request: pytest.FixtureRequest) -> str:
    """The prepared (decoded, Gutenberg-stripped) text of each real novel."""
    return _prepared(request.param)


def _whole(text: str) -> Unit:
    return Unit(0, "document", WHOLE_DOCUMENT_TITLE, 0, len(text), None)


def _spans(chunks: list[Chunk]) -> list[tuple[int, int]]:
    return [(chunk.start, chunk.end) for chunk in chunks]


# ---------------------------------------------------------------------------------------------------- units

ENGLISH_DOC = (
    "A Tale\nby Someone\n\n"
    "BOOK ONE: 1805\n\n"
    "CHAPTER I\n\nFirst chapter text.\n\n"
    "CHAPTER II. The Ball\n\nSecond chapter text.\n\n"
    "FIRST EPILOGUE: 1813 - 20\n\n"
    "Chapter 1\n\nEpilogue text.\n"
)


def test_split_units_english_parts_chapters_and_front_matter() -> None:
    units = split_units(ENGLISH_DOC, patterns=UnitPatterns.english())
    book, ch1, ch2 = ENGLISH_DOC.index("BOOK ONE"), ENGLISH_DOC.index("CHAPTER I\n"), ENGLISH_DOC.index("CHAPTER II")
    epilogue, ep1 = ENGLISH_DOC.index("FIRST EPILOGUE"), ENGLISH_DOC.index("Chapter 1")
    # Issue 14: a title page is front matter (not prose); a unit's text starts after its heading line.
    assert units == [
        Unit(0, "front_matter", FRONT_MATTER_TITLE, 0, book, None),
        Unit(1, "part", "BOOK ONE: 1805", book, ch1, "BOOK ONE: 1805", book + len("BOOK ONE: 1805")),
        Unit(2, "chapter", "CHAPTER I", ch1, ch2, "BOOK ONE: 1805", ch1 + len("CHAPTER I")),
        Unit(3, "chapter", "CHAPTER II. The Ball", ch2, epilogue, "BOOK ONE: 1805", ch2 + len("CHAPTER II. The Ball")),
        Unit(4, "part", "FIRST EPILOGUE: 1813 - 20", epilogue, ep1, "FIRST EPILOGUE: 1813 - 20",
             epilogue + len("FIRST EPILOGUE: 1813 - 20")),
        Unit(5, "chapter", "Chapter 1", ep1, len(ENGLISH_DOC), "FIRST EPILOGUE: 1813 - 20", ep1 + len("Chapter 1")),
    ]


HUNGARIAN_DOC = (
    "ELSŐ RÉSZ. A KEZDET\n\nI.\n\nElső fejezet szövege.\n\nII.\n\nMásodik.\n\n"
    "MÁSODIK RÉSZ. ODA BUDA!\n\nBevezető bekezdés.\n\nI.\n\nHarmadik.\n\n"
    "Befejezés.\n\nVége.\n"
)


def test_split_units_hungarian_numerals_part_intro_and_named_chapter() -> None:
    units = split_units(HUNGARIAN_DOC, patterns=UnitPatterns.hungarian())
    starts = [m.start() for m in re.finditer(r"^(?:ELSŐ RÉSZ|I\.$|II\.$|MÁSODIK RÉSZ|Befejezés)", HUNGARIAN_DOC, re.M)]
    assert [(u.kind, u.title, u.part_title) for u in units] == [
        ("part", "ELSŐ RÉSZ. A KEZDET", "ELSŐ RÉSZ. A KEZDET"),
        ("chapter", "I.", "ELSŐ RÉSZ. A KEZDET"),
        ("chapter", "II.", "ELSŐ RÉSZ. A KEZDET"),
        ("part", "MÁSODIK RÉSZ. ODA BUDA!", "MÁSODIK RÉSZ. ODA BUDA!"),
        ("chapter", "I.", "MÁSODIK RÉSZ. ODA BUDA!"),
        ("chapter", "Befejezés.", "MÁSODIK RÉSZ. ODA BUDA!"),
    ]
    assert [u.start for u in units] == starts
    assert HUNGARIAN_DOC[units[3].start : units[3].end] == "MÁSODIK RÉSZ. ODA BUDA!\n\nBevezető bekezdés.\n\n"


def test_split_units_without_headings_is_one_document_unit() -> None:
    text = "Just a story.\n\nWith two paragraphs.\n"
    assert split_units(text) == [Unit(0, "document", WHOLE_DOCUMENT_TITLE, 0, len(text), None)]


def test_split_units_blank_front_matter_joins_the_first_unit() -> None:
    text = "\n\n  \nCHAPTER I\n\nText.\n"
    assert split_units(text) == [Unit(0, "chapter", "CHAPTER I", 0, len(text), None, text.index("\n\nText"))]


def test_split_units_heading_needs_a_blank_line_before_it() -> None:
    text = "He turned to the\nChapter 7\nof the book and read.\n\nCHAPTER VIII\n\nText.\n"
    units = split_units(text, patterns=UnitPatterns.english())
    assert [(u.kind, u.title) for u in units] == [("front_matter", FRONT_MATTER_TITLE), ("chapter", "CHAPTER VIII")]


def test_split_units_skips_table_of_contents_entries() -> None:
    text = "Contents\n\nCHAPTER I\n\nCHAPTER II\n\nCHAPTER I\n\nOne.\n\nCHAPTER II\n\nTwo.\n"
    units = split_units(text, patterns=UnitPatterns.english())
    real_first = text.index("CHAPTER I\n\nOne")
    assert [(u.kind, u.start) for u in units] == [
        ("contents", 0),
        ("chapter", real_first),
        ("chapter", text.index("CHAPTER II\n\nTwo")),
    ]
    assert units[0].end == real_first


def test_split_units_long_line_is_never_a_heading() -> None:
    text = "intro\n\nCHAPTER I. " + "word " * 40 + "\n\nbody\n"
    assert [u.kind for u in split_units(text, patterns=UnitPatterns.english())] == ["document"]


def test_unit_patterns_auto_picks_the_preset_and_refuses_unknown_languages() -> None:
    assert UnitPatterns.auto("en") == UnitPatterns.english()
    assert UnitPatterns.auto("hu") == UnitPatterns.hungarian()
    both = UnitPatterns.auto(None)
    assert both.chapter.fullmatch("CHAPTER IV") and both.chapter.fullmatch("XII.")
    with pytest.raises(ValueError, match="'de'.*'en', 'hu'"):
        UnitPatterns.auto("de")


@pytest.mark.parametrize("line", ["BOOK ONE: 1805", "BOOK FIVE: 1806 - 07", "SECOND EPILOGUE", "Part II", "VOLUME 3"])
def test_unit_patterns_english_part_headings(line: str) -> None:
    assert UnitPatterns.english().part.fullmatch(line)


@pytest.mark.parametrize("line", ["CHAPTER I", "Chapter 1", "CHAPTER 12. Title", "Chapter Twenty-One", "EPILOGUE"])
def test_unit_patterns_english_chapter_headings(line: str) -> None:
    assert UnitPatterns.english().chapter.fullmatch(line)


@pytest.mark.parametrize("line", ["Chapter and verse", "BOOK ONE of them", "I.", "Part of it was gone."])
def test_unit_patterns_english_rejects_prose(line: str) -> None:
    patterns = UnitPatterns.english()
    assert not patterns.part.fullmatch(line) and not patterns.chapter.fullmatch(line)


@pytest.mark.parametrize("line", ["XXIV.", "IX.", "3.", "2. fejezet", "HARMADIK FEJEZET", "Utószó"])
def test_unit_patterns_hungarian_chapter_headings(line: str) -> None:
    assert UnitPatterns.hungarian().chapter.fullmatch(line)


@pytest.mark.parametrize("line", ["Folytatta:", "Éva elpirult.", "IIII.", "iv.", "IV", "Vége."])
def test_unit_patterns_hungarian_rejects_prose(line: str) -> None:
    patterns = UnitPatterns.hungarian()
    assert not patterns.part.fullmatch(line) and not patterns.chapter.fullmatch(line)


def test_unit_and_chunk_are_frozen_slotted_dataclasses() -> None:
    unit = Unit(0, "document", "t", 0, 1, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        unit.start = 5  # type: ignore[misc]
    assert not hasattr(unit, "__dict__") and not hasattr(Chunk(0, 0, 0, 1, "x"), "__dict__")


# ---------------------------------------------------------------------------------------------------- chunks


def test_chunk_unit_packs_paragraphs_up_to_max_chars() -> None:
    text = "AAAA\n\nBBBB\n\nCCCC"
    chunks = chunk_unit(text, _whole(text), max_chars=10, min_chars=0)
    assert chunks == [Chunk(0, 0, 0, 10, "AAAA\n\nBBBB"), Chunk(1, 0, 12, 16, "CCCC")]


def test_chunk_unit_merges_a_short_tail_into_the_previous_chunk() -> None:
    text = "AAAAAA\n\nBB"
    assert _spans(chunk_unit(text, _whole(text), max_chars=8, min_chars=0)) == [(0, 6), (8, 10)]
    assert _spans(chunk_unit(text, _whole(text), max_chars=8, min_chars=3)) == [(0, 10)]


def test_chunk_unit_splits_an_oversize_paragraph_at_sentence_ends() -> None:
    text = "One two. Three four. Five six."
    chunks = chunk_unit(text, _whole(text), max_chars=20, min_chars=0)
    assert [c.text for c in chunks] == ["One two. Three four.", "Five six."]
    assert _spans(chunks) == [(0, 20), (21, 30)]


def test_chunk_unit_sentence_end_keeps_closing_quotes() -> None:
    text = 'He said: "Go away!" She left. Then night fell over the town.'
    chunks = chunk_unit(text, _whole(text), max_chars=30, min_chars=0)
    assert [c.text for c in chunks] == ['He said: "Go away!" She left.', "Then night fell over the town."]


def test_chunk_unit_splits_at_whitespace_without_sentence_ends() -> None:
    text = "aaaa bbbb cccc dddd"
    chunks = chunk_unit(text, _whole(text), max_chars=10, min_chars=0)
    assert [c.text for c in chunks] == ["aaaa bbbb", "cccc dddd"]
    assert _spans(chunks) == [(0, 9), (10, 19)]


def test_chunk_unit_cuts_one_enormous_word_hard() -> None:
    text = "x" * 25
    assert _spans(chunk_unit(text, _whole(text), max_chars=10, min_chars=0)) == [(0, 10), (10, 20), (20, 25)]
    assert _spans(chunk_unit(text, _whole(text), max_chars=10, min_chars=6)) == [(0, 10), (10, 25)]


def test_chunk_unit_excludes_outer_whitespace_and_blank_stretches() -> None:
    text = "\n\n  Hello world.  \n\n\n\n   \n\nBye.\n\n"
    assert chunk_unit(text, _whole(text)) == [Chunk(0, 0, 4, 31, "Hello world.  \n\n\n\n   \n\nBye.")]
    assert _spans(chunk_unit(text, _whole(text), max_chars=12, min_chars=0)) == [(4, 16), (27, 31)]


def test_chunk_unit_whitespace_only_unit_has_no_chunks() -> None:
    text = "Text.\n\n   \n\n"
    assert chunk_unit(text, Unit(1, "chapter", "x", 5, len(text), None)) == []


def test_chunk_unit_never_leaves_its_unit() -> None:
    text = "CHAPTER I\n\nalpha beta.\n\nCHAPTER II\n\ngamma delta.\n"
    units = split_units(text, patterns=UnitPatterns.english())
    second = units[1]
    chunks = chunk_unit(text, second, max_chars=1500, min_chars=0)
    assert [(c.unit_index, c.text) for c in chunks] == [(1, "gamma delta.")]


def test_chunk_document_numbers_chunks_across_units() -> None:
    text = "CHAPTER I\n\naaaa aaaa\n\nbbbb bbbb\n\nCHAPTER II\n\ncccc cccc\n"
    units = split_units(text, patterns=UnitPatterns.english())
    chunks = chunk_document(text, units, max_chars=12, min_chars=0)
    assert [(c.index, c.unit_index, c.text) for c in chunks] == [
        (0, 0, "aaaa aaaa"),
        (1, 0, "bbbb bbbb"),
        (2, 1, "cccc cccc"),
    ]


@pytest.mark.parametrize(
    ("max_chars", "min_chars", "message"),
    [(0, 0, "max_chars must be at least 1, got 0"), (10, 11, "min_chars .* got 11"), (10, -1, "got -1")],
)
def test_chunk_unit_rejects_bad_sizes(max_chars: int, min_chars: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        chunk_unit("text", _whole("text"), max_chars=max_chars, min_chars=min_chars)


def test_chunk_unit_rejects_a_unit_outside_the_text() -> None:
    with pytest.raises(ValueError, match=r"\[0, 99\).*length 4"):
        chunk_unit("text", Unit(0, "document", "x", 0, 99, None))


def test_chunk_and_unit_ids_are_stable_and_sortable() -> None:
    assert chunk_id("doc_0123456789abcdef", 42) == "doc_0123456789abcdef:c00042"
    assert unit_id("doc_0123456789abcdef", 7) == "doc_0123456789abcdef:u0007"
    assert sorted(chunk_id("d", i) for i in (10, 9, 100)) == ["d:c00009", "d:c00010", "d:c00100"]


# ---------------------------------------------------------------------------------------------------- real novels


@pytest.mark.corpus
def test_split_units_war_and_peace_has_365_chapters_in_17_parts() -> None:
    body = _prepared("war_and_peace.txt")
    units = split_units(body, patterns=UnitPatterns.english())
    parts = [u.title for u in units if u.kind == "part"]
    assert len([u for u in units if u.kind == "chapter"]) == 365
    assert len(parts) == 17 and all(p.startswith("BOOK ") for p in parts[:15])
    assert parts[0] == "BOOK ONE: 1805" and parts[14] == "BOOK FIFTEEN: 1812 - 13"
    assert parts[15:] == ["FIRST EPILOGUE: 1813 - 20", "SECOND EPILOGUE"]
    first_chapter = next(u for u in units if u.kind == "chapter")
    assert (first_chapter.title, first_chapter.part_title) == ("CHAPTER I", "BOOK ONE: 1805")
    assert body[first_chapter.start :].startswith('CHAPTER I\n\n"Well, Prince, so Genoa and Lucca')
    assert units[-1].title == "CHAPTER XII" and units[-1].part_title == "SECOND EPILOGUE"


@pytest.mark.corpus
def test_split_units_egri_csillagok_has_95_chapters_in_5_parts() -> None:
    body = _prepared("egri_csillagok.txt")
    units = split_units(body, patterns=UnitPatterns.hungarian())
    assert [u.title for u in units if u.kind == "part"] == [
        "ELSŐ RÉSZ. HOL TEREM A MAGYAR VITÉZ?",
        "MÁSODIK RÉSZ. ODA BUDA!",
        "HARMADIK RÉSZ. A RAB OROSZLÁN.",
        "NEGYEDIK RÉSZ. EGER VESZEDELME.",
        "ÖTÖDIK RÉSZ. HOLD-FOGYATKOZÁS",
    ]
    chapters = [u for u in units if u.kind == "chapter"]
    assert len(chapters) == 95
    # Chapters per part, counted by hand from the Roman numerals in the file (I–XVII, I–XXIV, I–XIII, I–XVII,
    # I–XXIII plus "Befejezés.").
    per_part = [sum(1 for u in chapters if u.part_title and u.part_title.startswith(p)) for p in ("ELSŐ", "MÁSODIK")]
    assert per_part == [17, 24]
    assert chapters[-1].title == "Befejezés." and body[chapters[-1].start :].rstrip().endswith("Vége.")
    second_part = next(u for u in units if u.title.startswith("MÁSODIK"))
    assert "Vala pedig akkor az idő az 1541-ik esztendőben." in body[second_part.start : second_part.end]


@pytest.mark.corpus
def test_split_units_real_novel_units_tile_the_text(body: str) -> None:
    units = split_units(body)
    assert units[0].start == 0 and units[-1].end == len(body)
    assert all(a.end == b.start for a, b in zip(units, units[1:], strict=False))
    assert [u.index for u in units] == list(range(len(units)))


@pytest.mark.corpus
def test_chunk_document_real_novel_invariants(body: str) -> None:
    max_chars, min_chars = 1500, 200
    units = split_units(body)
    chunks = chunk_document(body, units, max_chars=max_chars, min_chars=min_chars)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    last_of_unit = {}
    for chunk in chunks:
        unit = units[chunk.unit_index]
        assert chunk.text == body[chunk.start : chunk.end]
        assert unit.text_start <= chunk.start < chunk.end <= unit.end
        assert chunk.text == chunk.text.strip()
        assert len(chunk.text) <= max_chars + min_chars
        last_of_unit[chunk.unit_index] = chunk.index
    # Over max_chars only where a short tail was merged, i.e. the unit's last chunk.
    assert all(last_of_unit[c.unit_index] == c.index for c in chunks if len(c.text) > max_chars)
    # Every non-blank character is in exactly one chunk or one unit's heading, in order.
    spans = sorted([(c.start, c.end) for c in chunks] + [(u.start, u.text_start) for u in units])
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False))
    assert "".join("".join(body[s:e].split()) for s, e in spans) == "".join(body.split())


@pytest.mark.corpus
def test_chunk_document_real_novel_splits_only_oversize_paragraphs(body: str) -> None:
    chunks = chunk_document(body, split_units(body), max_chars=1500, min_chars=200)
    paragraphs = [(m.start(), m.end()) for m in re.finditer(r"\S(?:.|\n(?![ \t]*\n))*", body)]
    paragraph_starts = {start for start, _ in paragraphs}
    oversize = [(start, end) for start, end in paragraphs if end - start > 1500]
    for chunk in chunks:
        if chunk.start not in paragraph_starts:
            assert any(start < chunk.start < end for start, end in oversize), body[chunk.start : chunk.start + 60]


@pytest.mark.corpus
def test_chunk_document_real_novel_is_deterministic(body: str) -> None:
    assert chunk_document(body, split_units(body)) == chunk_document(body, split_units(body))
