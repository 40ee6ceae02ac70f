"""The surface forms' tally is one query (``ingestion.evidence.form_tally_sql``): its context patterns are the
resolver's (``ingestion.names``, written for the ``regex`` package) with ``\\w``, ``\\s`` and ``\\b`` spelled out
(``portable``), so DuckDB's RE2 and Spark's Java, whose own classes and boundaries know ASCII only, read non-ASCII
text as the ``regex`` package does."""

from __future__ import annotations

import sys
import unicodedata
from typing import Any

import pyarrow as pa
import regex

from ingestion.evidence import SPACE_CHARS, WORD_CHARS, portable
from ingestion.relational import query_arrow, query_spark
from ingestion.stages.entities import keyed_mentions, surface_forms_by


def _assigned(table: Any) -> pa.Table:
    """Every character the Unicode tables of ``table`` (a ``unicodedata`` database) assign, surrogates aside."""
    return pa.table({"c": [chr(c) for c in range(sys.maxunicode + 1)
                           if not 0xD800 <= c <= 0xDFFF and table.category(chr(c)) != "Cn"]})


CLASSES = f"SELECT c, regexp_matches(c, '^[{WORD_CHARS}]$') AS word, regexp_matches(c, '^[{SPACE_CHARS}]$') AS space"


def _misread(rows: list[dict[str, Any]]) -> list[str]:
    word, space = regex.compile(r"\w"), regex.compile(r"\s")
    return [r["c"] for r in rows if r["word"] != bool(word.match(r["c"])) or r["space"] != bool(space.match(r["c"]))]


def test_the_written_out_classes_are_the_regex_packages_in_duckdb_on_every_assigned_character() -> None:
    # Python's own tables (Unicode 14): a character assigned since is unassigned to RE2 too
    found = query_arrow(f"{CLASSES} FROM characters", {"characters": _assigned(unicodedata)}).to_pylist()
    assert len(found) > 280_000
    assert _misread(found) == []


def test_the_written_out_classes_are_the_regex_packages_in_spark_on_every_character_its_jvm_assigns(
    spark: Any,
) -> None:
    # Python's tables (Unicode 14) against the JVM's own (Java 17: Unicode 13). A character the JVM leaves
    # unassigned (\p{Cn}: Vithkuqi, Toto… of Unicode 14) is no letter to Java while RE2 (Unicode 15) and the regex
    # package read it as one: the engines may differ on text in those scripts, and only there.
    characters = spark.createDataFrame(_assigned(unicodedata))
    sql = f"{CLASSES}, regexp_matches(c, '^\\p{{Cn}}$') AS unknown FROM characters"
    found = [row.asDict() for row in query_spark(sql, {"characters": characters}).collect()]
    known = [row for row in found if not row["unknown"]]
    assert len(known) > 270_000  # Unicode 13 assigns 277,770 outside the surrogates
    assert _misread(known) == []


def test_a_word_boundary_written_out_finds_what_the_regex_package_finds() -> None:
    pattern = r"(?i)\b(?:said|replied)\s*$"
    texts = ["“Well,” said", "méhe said ", "unsaid", "Xsaid", "é said\u00a0", "said", "2said", "_said"]
    rows = query_arrow(f"SELECT t, regexp_matches(t, '{portable(pattern)}') AS m FROM texts",
                       {"texts": pa.table({"t": texts})}).to_pylist()
    assert {r["t"]: r["m"] for r in rows} == {t: bool(regex.search(pattern, t)) for t in texts}
    # read off the texts: a word ending in "said" is no speech verb; a no-break space is a space
    assert [t for t in texts if regex.search(pattern, t)] == ["“Well,” said", "méhe said ", "é said\u00a0", "said"]


TEXT = ("Natasha looked at Pierre; then she spoke to him, her voice low. Pierre and Natasha went to Otradnoe. "
        "Pierre saw méhe and Natasha\u00a0said nothing, and HE was silent. “Natasha!” cried Pierre.")
NAMES = ("Natasha", "Pierre", "Otradnoe")


def _tables() -> tuple[pa.Table, pa.Table]:
    rows: dict[str, list[Any]] = {k: [] for k in ("doc_id", "chunk_id", "start", "end", "text", "label", "ent_id")}
    for name in NAMES:
        at = TEXT.find(name)
        while at >= 0:
            for key, value in zip(rows, ("d", "d:c0", 500 + at, 500 + at + len(name), name, "PERSON", ""),
                                  strict=True):
                rows[key].append(value)
            at = TEXT.find(name, at + 1)
    chunks = pa.table({"chunk_id": ["d:c0"], "doc_id": ["d"], "unit_id": ["d:u0"], "start": [500], "text": [TEXT]})
    return pa.table(rows), chunks


def test_the_tally_is_the_same_in_process_and_in_spark_and_reads_the_text(spark: Any) -> None:
    mentions, chunks = _tables()
    keyed = keyed_mentions(mentions)
    ours = {f.text: f for f in surface_forms_by(keyed, chunks, by_document=False)[""]}
    theirs = surface_forms_by(spark.createDataFrame(keyed), spark.createDataFrame(chunks), by_document=True)
    assert {f.text: f for f in theirs["d"]} == ours
    natasha, pierre, place = ours["Natasha"], ours["Pierre"], ours["Otradnoe"]
    # read off the text, each mention's window up to its sentence's end: after Pierre "then she spoke to him, her
    # voice low" and "saw méhe and Natasha said nothing, and HE was silent" ("méhe" holds no "he"); after Natasha
    # the same first sentence and "said nothing, and HE was silent"
    assert (pierre.count, pierre.he, pierre.she, pierre.units) == (4, 2, 2, (("d:u0", 4),))
    assert (natasha.count, natasha.he, natasha.she) == (4, 2, 2)
    # "cried Pierre"; "Natasha\u00a0said": a no-break space is a space
    assert (pierre.spoken, natasha.spoken) == (1, 1)
    assert (place.count, place.located) == (1, 1)  # "went to Otradnoe"


SENTENCES = ("Mr Dedalus looked at Stephen. Stephen said nothing to Mr Dedalus or to Stephen's brother. "
             "Mr Dedalus laughed. Stephen and Cranly and Mr Dedalus walked on, and Cranly spoke to Stephen.")


def _one_chunk_tables(text: str, names: tuple[str, ...], sentence_ends: list[int],
                      offset: int = 0) -> tuple[pa.Table, pa.Table]:
    """The mentions of ``names`` in ``text`` with their sentence ids (a sentence ends at each of ``sentence_ends``;
    one id per sentence, as the mentions stage writes them), and ``text`` as one chunk at ``offset``."""
    columns = ("doc_id", "chunk_id", "sentence_id", "start", "end", "text", "label", "ent_id")
    rows: dict[str, list[Any]] = {k: [] for k in columns}
    for name in names:
        for found in regex.finditer(rf"\b{regex.escape(name)}\b", text):
            sentence = sum(end <= found.start() for end in sentence_ends)
            for key, value in zip(rows, ("d", "d:c0", f"d:c0:s{sentence}", offset + found.start(),
                                         offset + found.end(), name, "PERSON", ""), strict=True):
                rows[key].append(value)
    chunks = pa.table({"chunk_id": ["d:c0"], "doc_id": ["d"], "unit_id": ["d:u0"], "start": [offset], "text": [text]})
    return pa.table(rows), chunks


def _sentence_tables() -> tuple[pa.Table, pa.Table]:
    """The mentions of SENTENCES' names, and its one chunk."""
    ends = [found.end() for found in regex.finditer(r"\. ", SENTENCES)]
    return _one_chunk_tables(SENTENCES, ("Mr Dedalus", "Stephen", "Cranly"), ends)


def test_the_names_said_in_one_sentence_are_counted_by_sentence_in_process_and_in_spark(spark: Any) -> None:
    mentions, chunks = _sentence_tables()
    keyed = keyed_mentions(mentions)
    ours = {f.text: dict(f.cooccurring) for f in surface_forms_by(keyed, chunks, by_document=False)[""]}
    theirs = surface_forms_by(spark.createDataFrame(keyed), spark.createDataFrame(chunks), by_document=True)
    assert {f.text: dict(f.cooccurring) for f in theirs["d"]} == ours
    # read off the text: Mr Dedalus and Stephen share the first, second and fourth sentences (a sentence counts once,
    # however often a name is said in it); Cranly is said twice, in the fourth only; the third has one name
    assert ours == {"Mr Dedalus": {"Stephen": 3, "Cranly": 1}, "Stephen": {"Mr Dedalus": 3, "Cranly": 1},
                    "Cranly": {"Mr Dedalus": 1, "Stephen": 1}}


STATED = ("Abel Magwitch, otherwise Provis, came in. Provis sat by Pip, now Amy, and by Jo, formerly Pip's friend. "
          "Miss Ada Clare, now Mrs. Richard Carstone, smiled at Mr. Weevle (otherwise Jobling). Mr. Weevle met Pip. "
          "Otherwise Jobling slept.")
STATED_NAMES = ("Abel Magwitch", "Provis", "Pip", "Amy", "Jo", "Miss Ada Clare", "Mrs. Richard Carstone", "Mr. Weevle",
                "Jobling")


def _stated_tables() -> tuple[pa.Table, pa.Table]:
    """The mentions of STATED_NAMES (a sentence ends at a full stop not after "Mr" or "Mrs"), and STATED as one chunk
    at offset 100."""
    ends = [found.end() for found in regex.finditer(r"(?<!\bMrs?)\. ", STATED)]
    return _one_chunk_tables(STATED, STATED_NAMES, ends, offset=100)


def test_the_names_a_sentence_says_are_one_persons_are_counted_in_process_and_in_spark(spark: Any) -> None:
    mentions, chunks = _stated_tables()
    keyed = keyed_mentions(mentions)
    ours = {f.text: dict(f.stated) for f in surface_forms_by(keyed, chunks, by_document=False)[""]}
    theirs = surface_forms_by(spark.createDataFrame(keyed), spark.createDataFrame(chunks), by_document=True)
    assert {f.text: dict(f.stated) for f in theirs["d"]} == ours
    # read off the text: "otherwise" after a comma or a bracket states a second name; "now" only before a woman's
    # title ("Pip, now Amy" states nothing), "formerly" not before a possessive ("Jo, formerly Pip's friend"); a
    # sentence's first "Otherwise" is no statement about the name before it
    assert {text: stated for text, stated in ours.items() if stated} == {
        "Abel Magwitch": {"Provis": 1}, "Miss Ada Clare": {"Mrs. Richard Carstone": 1}, "Mr. Weevle": {"Jobling": 1},
    }
