"""The quotes stage's rows on a crafted document, by both engines: speakers and addressees as entity ids through the
resolved mentions of people, a quotation in front matter left out, the chunk each quotation starts in."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ingestion.stages.quotes import document_quotes, quote_rows, quotes_sql

TITLE = "“The Gate”\n\n"
PART_ONE = "Pierre met Natasha at the gate.\n\n“Are you cold, Natasha?” asked Pierre.\n\n“A little,” she said.\n\n"
PART_TWO = "They rode to Moscow.\n\n“Welcome home,” he said.\n\n“Come inside,” said the old man."
TEXT = TITLE + PART_ONE + PART_TWO
CHUNKS = [("c0", 0, "front_matter"), ("c1", len(TITLE), "chapter"), ("c2", len(TITLE + PART_ONE), "chapter")]
ENTITIES = {"pierre": "PERSON", "natasha": "PER", "moscow": "GPE"}


def _occurrences(word: str) -> list[tuple[int, int]]:
    found, start = [], TEXT.find(word)
    while start >= 0:
        found.append((start, start + len(word)))
        start = TEXT.find(word, start + 1)
    return found


MENTIONS = [
    (s, e, entity)
    for word, entity in (("Pierre", "pierre"), ("Natasha", "natasha"), ("Moscow", "moscow"))
    for s, e in _occurrences(word)
]


def _expected() -> list[dict[str, Any]]:
    """Written from reading the text: Pierre asks Natasha (named after the quotation, her name called out), "she"
    is Natasha, "he" is Pierre (Moscow is a place, not a candidate), the old man is no named entity."""
    rows = []
    for quote, chunk, speaker, addressees, kind in (
        ("“Are you cold, Natasha?”", "c1", "pierre", ["natasha"], "explicit"),
        ("“A little,”", "c1", "natasha", [], "anaphoric"),
        ("“Welcome home,”", "c2", "pierre", [], "anaphoric"),
        ("“Come inside,”", "c2", None, [], "anaphoric"),
    ):
        start = TEXT.index(quote)
        rows.append(
            {
                "quote_id": f"d:q{start}",
                "doc_id": "d",
                "chunk_id": chunk,
                "start": start,
                "end": start + len(quote),
                "text": quote,
                "speaker_id": speaker,
                "addressee_ids": addressees,
                "attribution": kind,
            }
        )
    return rows


def test_quotes_document_rows_name_speakers_and_addressees_by_entity() -> None:
    prose = [(start, chunk) for chunk, start, kind in CHUNKS if kind != "front_matter"]
    people = [(s, e, entity) for s, e, entity in MENTIONS if ENTITIES[entity] != "GPE"]
    assert document_quotes("d", TEXT, prose, people) == _expected()


def test_quotes_driver_engine_rows() -> None:
    documents = pa.table({"doc_id": ["d"], "text": [TEXT]})
    chunks = pa.table(
        {
            "doc_id": ["d"] * len(CHUNKS),
            "chunk_id": [c for c, _, _ in CHUNKS],
            "start": [s for _, s, _ in CHUNKS],
            "unit_kind": [k for _, _, k in CHUNKS],
        }
    )
    mention_entities = pa.table(
        {
            "doc_id": ["d"] * len(MENTIONS),
            "entity_id": [entity for _, _, entity in MENTIONS],
            "start": [s for s, _, _ in MENTIONS],
            "end": [e for _, e, _ in MENTIONS],
        }
    )
    entities = pa.table({"entity_id": list(ENTITIES), "label": list(ENTITIES.values())})
    rows = quote_rows(documents, chunks, mention_entities, entities).to_pylist()
    assert sorted(rows, key=lambda row: row["start"]) == _expected()


def test_quotes_spark_engine_equals_the_expected_rows(spark: Any) -> None:
    documents = spark.createDataFrame([("d", TEXT)], "doc_id string, text string")
    chunks = spark.createDataFrame(
        [("d", c, s, k) for c, s, k in CHUNKS], "doc_id string, chunk_id string, start long, unit_kind string"
    )
    mention_entities = spark.createDataFrame(
        [("d", entity, s, e) for s, e, entity in MENTIONS], "doc_id string, entity_id string, start long, end long"
    )
    entities = spark.createDataFrame(list(ENTITIES.items()), "entity_id string, label string")
    rows = [row.asDict() for row in quote_rows(documents, chunks, mention_entities, entities).collect()]
    assert sorted(rows, key=lambda row: row["start"]) == _expected()


def test_quotes_he_said_is_the_entity_the_pronoun_is_linked_to() -> None:
    """"He was angry" continues Tom, the subject before it, and "he said" continues that "He": the speaker is Tom,
    not John, the latest man named (what the attribution alone would say)."""
    text = "Tom looked at John. He was angry.\n\n“Go away,” he said."
    people = [(0, 3, "tom"), (14, 18, "john")]
    rows = document_quotes("d", text, [(0, "c0")], people)
    assert [(row["text"], row["speaker_id"], row["attribution"]) for row in rows] == [
        ("“Go away,”", "tom", "anaphoric")
    ]


def test_quotes_he_opening_the_sentence_before_is_the_entity_the_pronoun_is_linked_to() -> None:
    """No verb of saying: the "He" opening the sentence before the quotation speaks it, and that "He" continues
    Tom's chain, not John, the latest man named."""
    text = "Tom looked at John. He was angry. He turned away.\n\n“Go away!”"
    people = [(0, 3, "tom"), (14, 18, "john")]
    rows = document_quotes("d", text, [(0, "c0")], people)
    assert [(row["speaker_id"], row["attribution"]) for row in rows] == [("tom", "implicit")]


def test_quotes_he_said_of_a_speaking_description_is_no_named_entity() -> None:
    """"he asked" follows the doctor, who speaks unnamed; no pronoun link may make it Peter, the man named before."""
    text = (
        "Peter sat in the kitchen.\n\nThe doctor went in; he shut his door and he took out his watch.\n\n"
        "“Feel pretty sick?” he asked.\n\n“Open,” said the doctor."
    )
    rows = document_quotes("d", text, [(0, "c0")], [(0, 5, "peter")])
    assert [(row["speaker_id"], row["attribution"]) for row in rows] == [(None, "anaphoric"), (None, "anaphoric")]


def test_quotes_read_only_the_names_of_mention_entities() -> None:
    """A pronoun row of ``mention_entities`` (``kind`` pronoun) is no name: "she" in the text is not a speaker's
    name, so the quotation stays Natasha's."""
    documents = pa.table({"doc_id": ["d"], "text": [TEXT]})
    chunks = pa.table({"doc_id": ["d"] * 2, "chunk_id": ["c1", "c2"], "start": [len(TITLE), len(TITLE + PART_ONE)],
                       "unit_kind": ["chapter", "chapter"]})
    she = TEXT.index("she said")
    rows = [(s, e, entity, "name") for s, e, entity in MENTIONS] + [(she, she + 3, "pierre", "pronoun")]
    mention_entities = pa.table({"doc_id": ["d"] * len(rows), "entity_id": [r[2] for r in rows],
                                 "start": [r[0] for r in rows], "end": [r[1] for r in rows],
                                 "kind": [r[3] for r in rows]})
    entities = pa.table({"entity_id": list(ENTITIES), "label": list(ENTITIES.values())})
    found = quote_rows(documents, chunks, mention_entities, entities).to_pylist()
    assert [row["speaker_id"] for row in sorted(found, key=lambda row: row["start"])] == [
        row["speaker_id"] for row in _expected()
    ]


def _gather_tables() -> dict[str, pa.Table]:
    """Document "a": a front-matter chunk, a chapter and a chunk of no kind (listed out of order); a name of Pierre
    and of Natasha, a pronoun row for Pierre, a name of Moscow (a place). "b": a table of contents only. "c": a
    chapter that names Moscow alone."""
    chunks = [("a", "a:c0", 0, "front_matter"), ("a", "a:c2", 20, None), ("a", "a:c1", 10, "chapter"),
              ("b", "b:c0", 0, "contents"), ("c", "c:c0", 0, "chapter")]
    mentions = [("a", "natasha", 25, 32, "name"), ("a", "pierre", 12, 18, "name"), ("a", "pierre", 40, 42, "pronoun"),
                ("a", "moscow", 50, 56, "name"), ("c", "moscow", 3, 9, "name")]
    return {
        "documents": pa.table({"doc_id": ["a", "b", "c"], "text": ["text a", "text b", "text c"]}),
        "chunks": pa.table({name: pa.array([row[i] for row in chunks], pa.int64() if name == "start" else pa.string())
                            for i, name in enumerate(("doc_id", "chunk_id", "start", "unit_kind"))}),
        "mention_entities": pa.table({name: [row[i] for row in mentions]
                                      for i, name in enumerate(("doc_id", "entity_id", "start", "end", "kind"))}),
        "entities": pa.table({"entity_id": list(ENTITIES), "label": list(ENTITIES.values())}),
    }


def test_quotes_gather_query_gives_the_same_lists_on_both_engines(spark: Any) -> None:
    """``quotes_sql`` per document, by DuckDB and by Spark SQL: its prose chunks (a chunk of no kind is prose, front
    matter and contents are not) and its person names (not the pronoun row, not the place), each list sorted; a
    document with no prose chunk has no row, one with no person a null list."""
    from ingestion.relational import query_rows

    tables = _gather_tables()
    frames = {name: spark.createDataFrame(table) for name, table in tables.items()}
    expected = [
        {"doc_id": "a", "text": "text a",
         "chunks": [{"start": 10, "chunk_id": "a:c1"}, {"start": 20, "chunk_id": "a:c2"}],
         "people": [{"start": 12, "end": 18, "entity_id": "pierre"}, {"start": 25, "end": 32, "entity_id": "natasha"}]},
        {"doc_id": "c", "text": "text c", "chunks": [{"start": 0, "chunk_id": "c:c0"}], "people": None},
    ]
    for engine in (tables, frames):
        assert sorted(query_rows(quotes_sql(names_only=True), engine), key=lambda row: row["doc_id"]) == expected
