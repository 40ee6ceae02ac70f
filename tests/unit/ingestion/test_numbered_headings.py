"""Numbered headings without a heading word ("XII", "IV. THE INTERVIEW", "II The Little Shop-Window", "01 My Early
Home", "_One_"), "CHAPTER I IN WHICH …" titles after a space, italic heading lines, and the guards that keep prose,
dialogue, poems and lists out of the headings. Crafted texts, then LitBank novels counted from their text
(tests/data/litbank_chapters.tsv).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from ingestion.structure import UnitPatterns, split_units
from ingestion.text import decode_document, strip_gutenberg

ROOT = Path(__file__).resolve().parents[3]
LITBANK = ROOT / ".." / "shared" / "data" / "litbank" / "original"
GOLD = ROOT / "tests" / "data" / "litbank_chapters.tsv"

# A paragraph of 60 words; four make a section long enough for a chapter (200 words on average).
PARAGRAPH = ("The wind came in from the sea over the low dunes, and the people of the village went about their work "
             "as they had always done, mending nets and salting fish, while the children ran along the wet sand and "
             "the old women sat in their doorways talking of the weather and of the boats that had not come home yet.")
SECTION = "\n\n".join([PARAGRAPH] * 4)


def book(*headings: str, section: str = SECTION) -> str:
    """A text whose every heading paragraph is followed by ``section``."""
    return "".join(f"{heading}\n\n{section}\n\n" for heading in headings)


def chapters(text: str, patterns: UnitPatterns | None = None) -> list[str]:
    return [u.path for u in split_units(text, patterns=patterns) if u.kind == "chapter"]


# ---------------------------------------------------------------------------------------------------- the forms


def test_bare_roman_numerals_on_their_own_lines_are_chapters() -> None:
    text = book("I", "II", "III", "IV")
    units = split_units(text)
    assert [u.title for u in units] == ["I", "II", "III", "IV"] and {u.kind for u in units} == {"chapter"}
    assert [u.start for u in units] == [m.start() for m in re.finditer(r"(?m)^[IV]+$", text)]
    assert all("\nII\n" not in text[u.text_start : u.end] for u in units)  # a heading is never chunk text


def test_numeral_and_title_on_one_line_indented_or_with_a_stop() -> None:
    indented = book("                       I  The Old Pyncheon Family", "          II The Little Shop-Window",
                    "    III The First Customer")
    assert chapters(indented) == ["I The Old Pyncheon Family", "II The Little Shop-Window", "III The First Customer"]
    stopped = book("I. THE PRISON DOOR", "II. THE MARKET-PLACE", "III. On Shell-heap Island")
    assert chapters(stopped) == ["I. THE PRISON DOOR", "II. THE MARKET-PLACE", "III. On Shell-heap Island"]


def test_digits_with_the_title_in_the_next_paragraph_and_under_a_part_line() -> None:
    text = book("PART ONE--The Old Buccaneer", "1\n\nThe Old Sea-dog at the Admiral Benbow", "2\n\nBlack Dog Appears")
    assert chapters(text, UnitPatterns.english()) == [
        "PART ONE--The Old Buccaneer › 1. The Old Sea-dog at the Admiral Benbow",
        "PART ONE--The Old Buccaneer › 2. Black Dog Appears",
    ]
    stacked = book("Part I\n01 My Early Home", "02 The Hunt", "Part II\n03 Earlshall")
    assert chapters(stacked) == ["Part I › 01 My Early Home", "Part I › 02 The Hunt", "Part II › 03 Earlshall"]


def test_numbers_restart_in_every_container_and_paths_stay_unique() -> None:
    text = book("Book First", "I", "II", "Book Second", "I", "II", "III")
    assert chapters(text) == ["Book First › I", "Book First › II", "Book Second › I", "Book Second › II",
                              "Book Second › III"]


def test_a_prologue_numbered_in_sections_keeps_them_the_chapters_are_the_longest_run() -> None:
    text = book("PROLOGUE", "I", "II", "I", "II", "III")
    units = split_units(text)
    assert [u.path for u in units if u.kind == "chapter"] == ["PROLOGUE", "I", "II", "III"]
    prologue = units[0]
    assert text[prologue.text_start : prologue.end].count(PARAGRAPH) == 12  # its opening and two sections


def test_spelled_italic_numbers_italic_chapter_lines_and_a_title_after_a_space() -> None:
    assert chapters(book("_One_\n\nDREAMS", "_Two_\n\nTHE SCHOOL")) == ["One. DREAMS", "Two. THE SCHOOL"]
    assert chapters(book("_Chapter I_", "_Chapter II_")) == ["Chapter I", "Chapter II"]
    worded = book("CHAPTER I IN WHICH I THROW AMBS-ACE", "CHAPTER II PARIS: SEPTEMBER, 1792")
    assert chapters(worded, UnitPatterns.english()) == ["CHAPTER I IN WHICH I THROW AMBS-ACE",
                                                        "CHAPTER II PARIS: SEPTEMBER, 1792"]


# ---------------------------------------------------------------------------------------------------- the guards


def test_a_lone_i_of_dialogue_or_poetry_stays_text() -> None:
    dialogue = book("CHAPTER I", section=f"{SECTION}\n\n“Who did this?”\n\nI\n\nsaid the sparrow.\n\n{SECTION}")
    assert chapters(dialogue) == ["CHAPTER I"]
    poem = f"{SECTION}\n\n     I\n\n     I wandered lonely as a cloud\n\n{SECTION}\n"
    assert [u.kind for u in split_units(poem)] == ["document"]


def test_short_numbered_stanzas_and_lists_stay_text() -> None:
    stanza = "In the greenest of our valleys,\n  By good angels tenanted,\nOnce a palace\n  Reared its head."
    poem = SECTION + "\n\n" + "".join(f"{n}.\n\n{stanza}\n\n" for n in ("I", "II", "III", "IV", "V", "VI")) + SECTION
    assert [u.kind for u in split_units(poem, patterns=UnitPatterns.english())] == ["document"]
    listed = SECTION + "\n\n1 Bread\n\n2 Salt Fish\n\n3 Lamp Oil\n\n" + SECTION
    assert [u.kind for u in split_units(listed)] == ["document"]


def test_numbers_out_of_sequence_or_sentences_after_a_number_are_no_headings() -> None:
    assert [u.kind for u in split_units(book("I", "III", "VII"))] == ["document"]
    assert [u.kind for u in split_units(book("I think so.", "II was not there."))] == ["document"]
    assert [u.kind for u in split_units(book("Chapter one was the hardest to write", "Part two was worse"))] == [
        "document"]


def test_bare_numbers_inside_chapters_headed_with_a_word_are_sections() -> None:
    text = book("CHAPTER I", "I", "II", "CHAPTER II", "I", "II")
    assert chapters(text) == ["CHAPTER I", "CHAPTER II"]


def test_numbers_going_on_from_the_last_worded_chapter_are_chapters() -> None:
    text = book("ADVENTURE I. A SCANDAL", "ADVENTURE II. THE LEAGUE", "III. THE ADVENTURE OF THE BLUE CARBUNCLE",
                "IV. THE ADVENTURE OF THE SPECKLED BAND")
    assert chapters(text, UnitPatterns.english()) == ["ADVENTURE I. A SCANDAL", "ADVENTURE II. THE LEAGUE",
                                                      "III. THE ADVENTURE OF THE BLUE CARBUNCLE",
                                                      "IV. THE ADVENTURE OF THE SPECKLED BAND"]
    restarted = book("CHAPTER I", "CHAPTER II", "NARRATIVE", "I", "II", "III")  # sections of an unknown container
    assert chapters(restarted, UnitPatterns.english()) == ["CHAPTER I", "CHAPTER II"]


# ---------------------------------------------------------------------------------------------------- real novels


@pytest.mark.corpus
def test_litbank_chapters_counted_from_the_text() -> None:
    if not LITBANK.is_dir():
        pytest.skip(f"LitBank texts {LITBANK} are absent (read-only data lives in ../shared/data)")
    lines = [line for line in GOLD.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(lines, delimiter="\t"))
    assert len(rows) >= 20
    for row in rows:
        raw = (LITBANK / row["file"]).read_text(encoding="utf-8")
        assert len(re.findall(f"(?m){row['regex']}", raw)) == int(row["lines"]), row["file"]  # the gold's own count
        body = strip_gutenberg(decode_document(raw.encode("utf-8"), source=row["file"]))[0]
        found = chapters(body, UnitPatterns.english())
        assert len(found) == int(row["chapters"]), row["file"]
        assert len(set(found)) == len(found), row["file"]  # every chapter path unique
