"""The quotes stage's ``quotes`` rows on a crafted document, by both engines (``quote_outputs``, read by
``output_rows``): speakers and addressees as entity ids through the resolved mentions of people, a quotation in front
matter left out, the chunk each quotation starts in. The query that gathers each document: ``test_quote_outputs``."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from graph.tables import QUOTES
from ingestion.relational import collected
from ingestion.stages.quotes import document_quotes, output_rows, quote_outputs

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


def _quote_rows(*tables: Any) -> list[dict[str, Any]]:
    """The ``quotes`` rows the stage's one pass makes of ``tables`` (documents, chunks, mention_entities, entities),
    in the driver, by start."""
    rows = collected(output_rows(quote_outputs(*tables), QUOTES))
    return sorted(rows, key=lambda row: row["start"])


def _mention_rows() -> list[tuple[str, str, int, int, str, str]]:
    """``MENTIONS`` as ``mention_entities`` rows of document "d": entity, start, end, sentence id, kind (all names)."""
    return [("d", entity, s, e, f"d:s{s}", "name") for s, e, entity in MENTIONS]


MENTION_COLUMNS = ("doc_id", "entity_id", "start", "end", "sentence_id", "kind")


def test_quotes_driver_engine_rows() -> None:
    documents = pa.table({"doc_id": ["d"], "text": [TEXT], "language": ["en"]})
    chunks = pa.table(
        {
            "doc_id": ["d"] * len(CHUNKS),
            "chunk_id": [c for c, _, _ in CHUNKS],
            "start": [s for _, s, _ in CHUNKS],
            "unit_kind": [k for _, _, k in CHUNKS],
        }
    )
    mention_entities = pa.table({name: [row[i] for row in _mention_rows()] for i, name in enumerate(MENTION_COLUMNS)})
    entities = pa.table({"entity_id": list(ENTITIES), "label": list(ENTITIES.values())})
    assert _quote_rows(documents, chunks, mention_entities, entities) == _expected()


def test_quotes_spark_engine_equals_the_expected_rows(spark: Any) -> None:
    documents = spark.createDataFrame([("d", TEXT, "en")], "doc_id string, text string, language string")
    chunks = spark.createDataFrame(
        [("d", c, s, k) for c, s, k in CHUNKS], "doc_id string, chunk_id string, start long, unit_kind string"
    )
    mention_entities = spark.createDataFrame(
        _mention_rows(), "doc_id string, entity_id string, start long, end long, sentence_id string, kind string"
    )
    entities = spark.createDataFrame(list(ENTITIES.items()), "entity_id string, label string")
    assert _quote_rows(documents, chunks, mention_entities, entities) == _expected()


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
    documents = pa.table({"doc_id": ["d"], "text": [TEXT], "language": ["en"]})
    chunks = pa.table({"doc_id": ["d"] * 2, "chunk_id": ["c1", "c2"], "start": [len(TITLE), len(TITLE + PART_ONE)],
                       "unit_kind": ["chapter", "chapter"]})
    she = TEXT.index("she said")
    rows = [*_mention_rows(), ("d", "pierre", she, she + 3, f"d:s{she}", "pronoun")]
    mention_entities = pa.table({name: [row[i] for row in rows] for i, name in enumerate(MENTION_COLUMNS)})
    entities = pa.table({"entity_id": list(ENTITIES), "label": list(ENTITIES.values())})
    found = _quote_rows(documents, chunks, mention_entities, entities)
    assert [row["speaker_id"] for row in found] == [row["speaker_id"] for row in _expected()]
