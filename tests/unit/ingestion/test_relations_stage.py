"""The relations stage's rows on two crafted documents, by both engines: each statement's relation and its inverse,
a relation stated in two documents summed over both, a place among the names left out (only people relate)."""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa
import pytest

from ingestion.relations import relation_mentions
from ingestion.relations.sentences import PersonMention
from ingestion.stages.relations import relation_table, statements

DOC_A = (
    "Mr. Hale came in with Ellen Pryor, his daughter. Helen is Pierre's wife.\n\n"
    "In the winter Nicholas married Princess Mary."
)
DOC_B = "Natasha's mother, Countess Rostova, smiled. Helen is Pierre's wife. Sonya was the niece of Moscow."
DOCUMENTS = {"a": (DOC_A, "en"), "b": (DOC_B, "en"), "c": ("Helen is Pierre's wife.", "xx")}
NAMES = {
    "Mr. Hale": "hale",
    "Ellen Pryor": "ellen",
    "Helen": "helen",
    "Pierre": "pierre",
    "Nicholas": "nicholas",
    "Princess Mary": "mary",
    "Natasha": "natasha",
    "Countess Rostova": "countess",
    "Sonya": "sonya",
    "Moscow": "moscow",
}
LABELS = {entity: ("GPE" if entity == "moscow" else "PERSON") for entity in NAMES.values()}


def _chunk(doc_id: str, start: int) -> str:
    """Document a's second paragraph is its second chunk; every other text is one chunk."""
    return f"{doc_id}:c1" if doc_id == "a" and start >= DOC_A.index("In the winter") else f"{doc_id}:c0"


def _mentions() -> list[dict[str, Any]]:
    rows = []
    for doc_id, (text, _) in DOCUMENTS.items():
        for form, entity in NAMES.items():
            for found in re.finditer(re.escape(form), text):
                rows.append(
                    {
                        "doc_id": doc_id,
                        "chunk_id": _chunk(doc_id, found.start()),
                        "entity_id": entity,
                        "start": found.start(),
                        "end": found.end(),
                    }
                )
    return rows


def _copula_confidence() -> float:
    """The confidence of one "Helen is Pierre's wife" statement, as the extractor gives it for that sentence."""
    text = "Helen is Pierre's wife."
    mentions = [PersonMention(0, 5, "helen"), PersonMention(9, 15, "pierre")]
    (statement,) = relation_mentions(text, mentions)
    return statement.confidence


def _expected() -> dict[tuple[str, str, str], tuple[list[str], int]]:
    """Read from the texts: every stated relation and its inverse; Helen and Pierre are spouses in two documents
    (document c's language has no kinship words); Sonya's "niece of Moscow" relates no one (Moscow is a place)."""
    both = ["a:c0", "b:c0"]
    return {
        ("ellen", "child", "hale"): (["a:c0"], 1),
        ("hale", "parent", "ellen"): (["a:c0"], 1),
        ("helen", "spouse", "pierre"): (both, 2),
        ("pierre", "spouse", "helen"): (both, 2),
        ("nicholas", "spouse", "mary"): (["a:c1"], 1),
        ("mary", "spouse", "nicholas"): (["a:c1"], 1),
        ("countess", "parent", "natasha"): (["b:c0"], 1),
        ("natasha", "child", "countess"): (["b:c0"], 1),
    }


def _check(rows: list[dict[str, Any]]) -> None:
    assert {(r["src_id"], r["type"], r["dst_id"]): (r["chunk_ids"], r["count"]) for r in rows} == _expected()
    assert [(r["src_id"], r["type"], r["dst_id"]) for r in rows] == sorted(_expected())
    one = _copula_confidence()
    spouses = next(r for r in rows if (r["src_id"], r["dst_id"]) == ("helen", "pierre"))
    assert spouses["confidence"] == pytest.approx(1 - (1 - one) ** 2, abs=1e-4)  # two statements: surer than one


def test_relations_driver_engine_rows() -> None:
    documents = pa.table(
        {
            "doc_id": list(DOCUMENTS),
            "text": [t for t, _ in DOCUMENTS.values()],
            "language": [lang for _, lang in DOCUMENTS.values()],
        }
    )
    entities = pa.table({"entity_id": list(LABELS), "label": list(LABELS.values())})
    found = statements(documents, pa.Table.from_pylist(_mentions()), entities)
    assert set(found.column("doc_id").to_pylist()) == {"a", "b"}
    _check(relation_table(found).to_pylist())


def test_relations_spark_engine_equals_the_driver_row_for_row(spark: Any) -> None:
    documents = spark.createDataFrame(
        [(d, t, lang) for d, (t, lang) in DOCUMENTS.items()], "doc_id string, text string, language string"
    )
    mentions = spark.createDataFrame(
        _mentions(), "doc_id string, chunk_id string, entity_id string, start long, end long"
    )
    entities = spark.createDataFrame(list(LABELS.items()), "entity_id string, label string")
    spark_rows = relation_table(statements(documents, mentions, entities)).to_pylist()
    _check(spark_rows)
    driver = statements(
        pa.table(
            {
                "doc_id": list(DOCUMENTS),
                "text": [t for t, _ in DOCUMENTS.values()],
                "language": [lang for _, lang in DOCUMENTS.values()],
            }
        ),
        pa.Table.from_pylist(_mentions()),
        pa.table({"entity_id": list(LABELS), "label": list(LABELS.values())}),
    )
    assert spark_rows == relation_table(driver).to_pylist()


TALK = (
    '"Come here," said Countess Rostova.\n\n"Mamma, may I go?" asked Natasha.\n\n"You may," said Countess Rostova.'
    '\n\n"Tell me, Mamma, is he kind?" asked Natasha.\n\n"He is," said Countess Rostova.'
)
TALK_NAMES = {"Countess Rostova": "countess", "Natasha": "natasha"}


def _talk_tables() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The talk's person mentions and its quotes rows (speakers as the quotes stage gives them: explicit)."""
    mentions = [
        {"doc_id": "t", "chunk_id": "t:c0", "entity_id": TALK_NAMES[m.group()], "start": m.start(), "end": m.end()}
        for m in re.finditer("|".join(TALK_NAMES), TALK)
    ]
    speakers = ["countess", "natasha", "countess", "natasha", "countess"]
    quotes = [
        {"doc_id": "t", "start": m.start(), "end": m.end(), "speaker_id": speaker, "addressee_ids": [],
         "attribution": "explicit"}
        for m, speaker in zip(re.finditer(r'"[^"]*"', TALK), speakers, strict=True)
    ]  # fmt: skip
    return mentions, quotes


def test_relations_stage_reads_the_quotations_vocatives_in_both_engines(spark: Any) -> None:
    """Natasha calls the countess "Mamma" twice between two of her turns: the quotes table makes her the mother,
    in the driver and in Spark alike; without the quotes table the talk states nothing."""
    mentions, quotes = _talk_tables()
    entities = pa.table({"entity_id": ["countess", "natasha"], "label": ["PERSON", "PERSON"]})
    documents = pa.table({"doc_id": ["t"], "text": [TALK], "language": ["en"]})
    driver = relation_table(
        statements(documents, pa.Table.from_pylist(mentions), entities, pa.Table.from_pylist(quotes))
    ).to_pylist()
    assert {(r["src_id"], r["type"], r["dst_id"], r["count"]) for r in driver} == {
        ("countess", "parent", "natasha", 2),
        ("natasha", "child", "countess", 2),
    }
    assert relation_table(statements(documents, pa.Table.from_pylist(mentions), entities)).num_rows == 0
    found = statements(
        spark.createDataFrame([("t", TALK, "en")], "doc_id string, text string, language string"),
        spark.createDataFrame(mentions, "doc_id string, chunk_id string, entity_id string, start long, end long"),
        spark.createDataFrame(entities.to_pylist(), "entity_id string, label string"),
        spark.createDataFrame(
            quotes,
            "doc_id string, start long, end long, speaker_id string, addressee_ids array<string>, attribution string",
        ),
    )
    assert relation_table(found).to_pylist() == driver


LIGHTHOUSE = "Mrs. Pryor kept the lighthouse. Ellen Pryor, her daughter, trimmed the lamp."


def test_relations_stage_reads_the_linked_pronouns_in_both_engines(spark: Any) -> None:
    """The "her" names no one in its sentence; the one woman of the sentence before is Mrs. Pryor, and the quotes
    stage's pronoun row links "her" to her: Ellen is her daughter, in the driver and in Spark alike. Without the
    pronoun rows, nothing."""
    names = {"Mrs. Pryor": "mother", "Ellen Pryor": "ellen"}
    mentions = [
        {"doc_id": "l", "chunk_id": "l:c0", "entity_id": names[m.group()], "start": m.start(), "end": m.end()}
        for m in re.finditer("|".join(names), LIGHTHOUSE)
    ]
    pronouns = [{"doc_id": "l", "start": LIGHTHOUSE.index("her "), "entity_id": "mother"}]
    entities = pa.table({"entity_id": ["mother", "ellen"], "label": ["PERSON", "PERSON"]})
    documents = pa.table({"doc_id": ["l"], "text": [LIGHTHOUSE], "language": ["en"]})
    names_table = pa.Table.from_pylist(mentions)
    driver = relation_table(statements(documents, names_table, entities, None, pa.Table.from_pylist(pronouns)))
    assert {(r["src_id"], r["type"], r["dst_id"], r["count"], r["confidence"]) for r in driver.to_pylist()} == {
        ("ellen", "child", "mother", 1, 0.5),
        ("mother", "parent", "ellen", 1, 0.5),
    }
    assert relation_table(statements(documents, names_table, entities)).num_rows == 0
    found = statements(
        spark.createDataFrame([("l", LIGHTHOUSE, "en")], "doc_id string, text string, language string"),
        spark.createDataFrame(mentions, "doc_id string, chunk_id string, entity_id string, start long, end long"),
        spark.createDataFrame(entities.to_pylist(), "entity_id string, label string"),
        None,
        spark.createDataFrame(pronouns, "doc_id string, start long, entity_id string"),
    )
    assert relation_table(found).to_pylist() == driver.to_pylist()
