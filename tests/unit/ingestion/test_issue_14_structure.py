"""Issue 14, item 1: the structure of real books — nested units, contents, front and back matter, wrapped titles.

Crafted books (no Spark): a three-level novel with a table of contents at the start of each volume, titles wrapped
over two lines, chapter numbers restarting in every book, footnotes, transcriber's notes and a licence; Hungarian
headings; spelled and Roman numbers. Then War and Peace, with its expected structure counted from the text by an
independent regular expression, and one small Spark run through the chunks stage.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graph.tables import NON_PROSE_UNIT_KINDS
from ingestion.chunking import chunk_document
from ingestion.stages.chunks import split_document
from ingestion.structure import FRONT_MATTER_TITLE, LICENCE_TITLE, UnitPatterns, split_units
from ingestion.text import decode_document, strip_gutenberg
from tools.retrieval.chunks import Chunk
from tools.retrieval.units import UnitCatalog, UnitReference, parse_reference

CORPORA = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpora"

THREE_LEVELS = """THE HOUSE OF LANTERNS

A Novel in Two Volumes

By Adrienne Valcourt

To my sister, who kept the lamps lit.

CONTENTS

VOLUME I--THE TOWN
BOOK FIRST--ARRIVALS
CHAPTER I--THE COACH FROM ARRAS
CHAPTER II--A LETTER FROM THE MAYOR
WHICH NOBODY READ
BOOK SECOND--THE FAIR
CHAPTER I--THE TENTS
CHAPTER II--MONSIEUR GAVROT COUNTS HIS
COINS
VOLUME II--THE RIVER
BOOK FIRST--THE BOATS
CHAPTER I--FOG
CHAPTER II--THE CROSSING

VOLUME I--THE TOWN

BOOK FIRST--ARRIVALS

CHAPTER I--THE COACH FROM ARRAS

The coach from Arras came into the square a little after six, and Madame
Rivard, who had watched for it since noon, went down the steps to meet it.
Her daughter Colette followed with the lantern.

"He is not on it," said Colette, when the last passenger had climbed down.

CHAPTER II--A LETTER FROM THE MAYOR
WHICH NOBODY READ

The letter lay on the hall table for three days before anyone thought to
open it, and by then the mayor had already left for the coast with his
nephew and a trunk full of papers.

BOOK SECOND--THE FAIR

CHAPTER I--THE TENTS

The tents went up in the meadow behind the church, and for a week the
whole town smelled of sawdust, oranges and wet canvas; the children were
not to be kept indoors.

CHAPTER II--MONSIEUR GAVROT COUNTS HIS
COINS

Monsieur Gavrot counted his coins twice every evening, once for himself and
once for the priest, who never believed the first count.

VOLUME II--THE RIVER

CONTENTS

BOOK FIRST--THE BOATS
CHAPTER I--FOG
CHAPTER II--THE CROSSING

BOOK FIRST--THE BOATS

CHAPTER I--FOG

A fog came down the river in the night and the boats stayed tied up at
the quay until the bells had rung for noon; nobody was sorry for it.

CHAPTER II--THE CROSSING

They crossed at last on the Thursday, Colette in the bow with the basket
and her mother behind her, saying nothing the whole way over the water.[1]

FOOTNOTES

[1] The ferry at this point was replaced by a bridge in the year the book
was written.

TRANSCRIBER'S NOTES

Obvious printing errors have been corrected without notice; the spelling
of the original edition has otherwise been kept as it was printed.

End of the Project Gutenberg EBook of The House of Lanterns

This eBook is for the use of anyone anywhere at no cost and with almost
no restrictions whatsoever. You may copy it, give it away or re-use it
under the terms of the Project Gutenberg License included with this eBook.
"""

V1, V2 = "VOLUME I--THE TOWN", "VOLUME II--THE RIVER"
B11, B12, B21 = f"{V1} › BOOK FIRST--ARRIVALS", f"{V1} › BOOK SECOND--THE FAIR", f"{V2} › BOOK FIRST--THE BOATS"


def _outline(text: str, patterns: UnitPatterns | None = None) -> list[tuple[str, str]]:
    return [(u.kind, u.path) for u in split_units(text, patterns=patterns)]


def test_issue_14_three_level_book_with_contents_in_every_volume() -> None:
    assert _outline(THREE_LEVELS, UnitPatterns.english()) == [
        ("front_matter", FRONT_MATTER_TITLE),
        ("contents", "CONTENTS"),
        ("part", V1),
        ("part", B11),
        ("chapter", f"{B11} › CHAPTER I--THE COACH FROM ARRAS"),
        ("chapter", f"{B11} › CHAPTER II--A LETTER FROM THE MAYOR WHICH NOBODY READ"),  # wrapped title, whole
        ("part", B12),
        ("chapter", f"{B12} › CHAPTER I--THE TENTS"),
        ("chapter", f"{B12} › CHAPTER II--MONSIEUR GAVROT COUNTS HIS COINS"),
        ("part", V2),
        ("contents", f"{V2} › CONTENTS"),  # the second volume's own table
        ("part", B21),
        ("chapter", f"{B21} › CHAPTER I--FOG"),
        ("chapter", f"{B21} › CHAPTER II--THE CROSSING"),
        ("back_matter", "FOOTNOTES"),
        ("back_matter", "TRANSCRIBER'S NOTES"),
        ("back_matter", LICENCE_TITLE),
    ]


def test_issue_14_units_tile_the_text_and_prose_starts_after_the_heading() -> None:
    units = split_units(THREE_LEVELS)
    assert units[0].start == 0 and units[-1].end == len(THREE_LEVELS)
    assert all(a.end == b.start for a, b in zip(units, units[1:], strict=False))
    wrapped = next(u for u in units if u.title.endswith("NOBODY READ"))
    assert THREE_LEVELS[wrapped.text_start : wrapped.end].strip().startswith("The letter lay on the hall table")


def test_issue_14_no_heading_contents_or_licence_in_a_prose_chunk() -> None:
    units = split_units(THREE_LEVELS)
    prose = [c for c in chunk_document(THREE_LEVELS, units, max_chars=300, min_chars=0) if units[c.unit_index].is_prose]
    text = "\n".join(c.text for c in prose)
    for needle in ("CHAPTER", "BOOK FIRST", "VOLUME", "CONTENTS", "WHICH NOBODY READ", "Gutenberg", "ferry",
                   "printing errors", "Adrienne Valcourt"):
        assert needle not in text
    assert text.startswith("The coach from Arras") and text.endswith("over the water.[1]")


def test_issue_14_chunk_rows_mark_non_prose_units() -> None:
    rows = split_document("doc_x", THREE_LEVELS, patterns=None, max_chars=1500, min_chars=200)
    kinds = {r["unit_kind"] for r in rows}
    assert kinds == {"chapter", *NON_PROSE_UNIT_KINDS}  # parts hold only their headings here: no chunk
    contents = [r for r in rows if r["unit_kind"] == "contents"]
    assert [r["part_title"] for r in contents] == [None, V2]
    assert all("CHAPTER" not in r["text"] for r in rows if r["unit_kind"] == "chapter")


def _catalog(text: str) -> UnitCatalog:
    rows = split_document("doc_x", text, patterns=None, max_chars=1500, min_chars=200)
    return UnitCatalog([
        Chunk(r["chunk_id"], r["doc_id"], r["chunk_index"], r["unit_id"], r["unit_index"], r["unit_kind"],
              r["unit_title"], r["part_title"] or "", r["start"], r["end"], r["text"])
        for r in rows if r["unit_kind"] not in NON_PROSE_UNIT_KINDS
    ])


def test_issue_14_chapter_of_a_book_is_found_and_labelled_by_its_path() -> None:
    catalog = _catalog(THREE_LEVELS)
    reference = parse_reference("What happens in chapter 2 of book 2?")
    assert reference == UnitReference(2, 2, "book")
    assert [u.label for u in catalog.find(reference)] == [f"{B12} › CHAPTER II--MONSIEUR GAVROT COUNTS HIS COINS"]
    # Chapter I exists in every book: three candidates, each with a path that tells them apart.
    labels = [u.label for u in catalog.find(UnitReference(1))]
    assert len(labels) == len(set(labels)) == 3
    in_volume_one = [u.label for u in catalog.find(UnitReference(1, 1, "volume"))]
    assert in_volume_one == [f"{B11} › CHAPTER I--THE COACH FROM ARRAS", f"{B12} › CHAPTER I--THE TENTS"]


def test_issue_14_contents_without_a_label_and_titles_on_their_own_line() -> None:
    text = (
        "CHAPTER I.\n\nThe Period\n\nCHAPTER II.\n\nThe Mail\n\n"
        "CHAPTER I.\n\nThe Period\n\nIt was the quietest of years, and nobody in the town would have said that\n"
        "anything at all was about to happen to any of them.\n\n"
        "CHAPTER II.\n\nThe Mail\n\nThe mail came up the hill in the rain with the guard asleep on the box.\n"
    )
    units = split_units(text, patterns=UnitPatterns.english())
    assert [(u.kind, u.title) for u in units] == [
        ("contents", "Contents"), ("chapter", "CHAPTER I. The Period"), ("chapter", "CHAPTER II. The Mail"),
    ]
    assert units[1].start == text.index("CHAPTER I.\n\nThe Period\n\nIt was")


SPELLED = """BOOK THE FIRST--RECALLED

CHAPTER THE FIRST

The Period

It was the quietest of years in the little town, and nobody who lived
there would have said that anything at all was about to happen to them.

CHAPTER THE SECOND.

THE MAIL

The mail came up the hill in the rain, the horses steaming and the guard
asleep on the box with his blunderbuss across his knees the whole way.

Book the Second

Chapter One

The second book begins in the city, where the noise of the carts never
stops and the lamps are lit before the shops are shut for the evening.

Chapter Twenty-One. The Echoing Footsteps

A wonderful corner for echoes, it has been remarked, that corner where
the doctor lived, and many people came to listen to the footsteps there.

BOOK III

CHAPTER XII

In the third book the weather turned, and with it the fortunes of every
family in the street, though none of them could have told you why.
"""


def test_issue_14_spelled_and_roman_numbers() -> None:
    assert _outline(SPELLED) == [
        ("part", "BOOK THE FIRST--RECALLED"),
        ("chapter", "BOOK THE FIRST--RECALLED › CHAPTER THE FIRST. The Period"),
        ("chapter", "BOOK THE FIRST--RECALLED › CHAPTER THE SECOND. THE MAIL"),
        ("part", "Book the Second"),
        ("chapter", "Book the Second › Chapter One"),
        ("chapter", "Book the Second › Chapter Twenty-One. The Echoing Footsteps"),
        ("part", "BOOK III"),
        ("chapter", "BOOK III › CHAPTER XII"),
    ]
    assert [u.label for u in _catalog(SPELLED).find(UnitReference(21, 2, "book"))] == [
        "Book the Second › Chapter Twenty-One. The Echoing Footsteps"
    ]


@pytest.mark.parametrize("line", ["Book Second", "BOOK THE THIRD", "VOLUME II—COSETTE", "Phase the First: The Maiden",
                                  "Book Twenty-Third", "PART IV."])
def test_issue_14_english_container_headings(line: str) -> None:
    assert UnitPatterns.english().part.fullmatch(line)


@pytest.mark.parametrize("line", ["CHAPTER THE FIRST", "Chapter the Twenty-first", "Letter 4", "PROLOGUE"])
def test_issue_14_english_chapter_headings(line: str) -> None:
    assert UnitPatterns.english().chapter.fullmatch(line)


HUNGARIAN = """A VÁR ÚRNŐJE

Regény két kötetben

ELSŐ KÖTET

ELSŐ KÖNYV. A VÁR

Első fejezet
A hírnök

A hírnök estefelé érkezett a várba, és a kapuban már várta őt a kapitány, aki egész nap a falakon járt.

- Jelentem, kapitány uram, megjöttem Budáról.

Második fejezet
Az éjszakai őrség

Az őrség éjfélkor váltott, és a bástyán hideg szél fújt végig, úgyhogy a katonák a köpenyükbe burkolóztak.

MÁSODIK KÖNYV. A VÁROS

1. fejezet

A város piacán már kora reggel nagy volt a zaj, mert a kofák a vásárra készültek, és jöttek a szekerek.

MÁSODIK KÖTET

I. RÉSZ

I.

Az ostrom harmadik napján a törökök az északi falat lőtték, de a védők éjjel kijavították a falat.

JEGYZETEK

1. A vár neve a régi oklevelekben többféle alakban fordul elő.

TARTALOM

ELSŐ KÖTET
ELSŐ KÖNYV. A VÁR
Első fejezet. A hírnök
Második fejezet. Az éjszakai őrség
MÁSODIK KÖNYV. A VÁROS
1. fejezet
"""


def test_issue_14_hungarian_volumes_books_parts_and_chapters() -> None:
    k1, k2 = "ELSŐ KÖTET", "MÁSODIK KÖTET"
    assert _outline(HUNGARIAN, UnitPatterns.hungarian()) == [
        ("front_matter", FRONT_MATTER_TITLE),
        ("part", k1),
        ("part", f"{k1} › ELSŐ KÖNYV. A VÁR"),
        ("chapter", f"{k1} › ELSŐ KÖNYV. A VÁR › Első fejezet. A hírnök"),
        ("chapter", f"{k1} › ELSŐ KÖNYV. A VÁR › Második fejezet. Az éjszakai őrség"),
        ("part", f"{k1} › MÁSODIK KÖNYV. A VÁROS"),
        ("chapter", f"{k1} › MÁSODIK KÖNYV. A VÁROS › 1. fejezet"),
        ("part", k2),
        ("part", f"{k2} › I. RÉSZ"),  # a level the book had not used before sits inside the open ones
        ("chapter", f"{k2} › I. RÉSZ › I."),
        ("back_matter", "JEGYZETEK"),
        ("contents", f"{k2} › I. RÉSZ › TARTALOM"),  # Hungarian books put the table at the end
    ]


def test_issue_14_short_opening_is_front_matter_a_long_one_is_prose() -> None:
    short = "A Tale\n\nby Someone\n\nCHAPTER I\n\nText of the first chapter.\n"
    assert split_units(short)[0].kind == "front_matter"
    story = " ".join(["the wind was up and the boats were out on the water all day long."] * 15)
    long = f"{story}\n\n{story}\n\nCHAPTER I\n\nText of the first chapter.\n"
    assert split_units(long)[0].kind == "document"


# ---------------------------------------------------------------------------------------------------- real novel


@pytest.mark.corpus
def test_issue_14_war_and_peace_structure_counted_from_the_text() -> None:
    path = CORPORA / "war_and_peace.txt"
    if not path.is_file():
        pytest.skip(f"corpus file {path} is absent (read-only corpora live in ../shared/corpora)")
    body = strip_gutenberg(decode_document(path.read_bytes(), source=path.name))[0]
    # Expected from the text alone: heading lines of the book's own forms, each after a blank line.
    books = re.findall(r"(?m)(?<=\n\n)((?:BOOK [A-Z]+|[A-Z]+ EPILOGUE)(?::[^\n]*)?)$", body)
    chapters_per_book = [len(re.findall(r"(?m)^CHAPTER [IVXLC]+$", section))
                         for section in re.split(r"(?m)^(?:BOOK [A-Z]+|[A-Z]+ EPILOGUE)(?::.*)?$", body)[1:]]
    units = split_units(body)
    parts = [u for u in units if u.kind == "part"]
    chapters = [u for u in units if u.kind == "chapter"]
    assert len(books) > 10 and all(chapters_per_book)
    assert [u.title for u in parts] == books
    assert [sum(1 for c in chapters if c.part_title == b) for b in books] == chapters_per_book
    assert len({c.path for c in chapters}) == len(chapters) == sum(chapters_per_book)  # every path unique
    assert {u.kind for u in units} - {"part", "chapter"} == {"front_matter"}  # the credits line before BOOK ONE


# ---------------------------------------------------------------------------------------------------- through Spark


@pytest.mark.spark
def test_issue_14_pipeline_keeps_non_prose_out_of_mentions_and_first_appearances(
    spark: object, tmp_path: Path
) -> None:
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings
    from tests.unit.ingestion.tables import read
    from tools.ingestion import IngestionRequest

    book = tmp_path / "house_of_lanterns.txt"
    book.write_text(THREE_LEVELS, encoding="utf-8")
    lake = tmp_path / "lake"
    tool = GenericNERIngestionTool()
    tool.set_settings(load_settings(lakehouse={"root": lake}, spark={"master": "local[2]", "shuffle_partitions": 2}))
    tool.set_spark_session(spark)
    result = tool.execute_ingestion(
        IngestionRequest(inputs=[str(book)], stages=["documents", "chunks", "mentions", "entities"])
    )
    assert result.status == "succeeded", result.reason
    chunks = read(lake, "chunks")
    prose = chunks[~chunks.unit_kind.isin(NON_PROSE_UNIT_KINDS)]
    assert set(chunks.unit_kind) >= {"front_matter", "contents", "back_matter", "chapter"}
    assert not prose.text.str.contains("CHAPTER|VOLUME|CONTENTS").any()
    assert set(chunks[chunks.unit_title.str.contains("NOBODY READ")].part_title) == {B11}
    mentions = read(lake, "mentions")
    assert len(mentions) and set(mentions.chunk_id) <= set(prose.chunk_id)
    assert not mentions.text.str.contains("CHAPTER|BOOK|VOLUME|Valcourt").any()
    entities = read(lake, "entities")
    assert set(entities.first_unit_id) <= set(prose.unit_id) and set(entities.first_chunk_id) <= set(prose.chunk_id)
