"""Issue 16, item 4: the entities stage's joins in process (DuckDB over Arrow rows: ``attach_entities``, a join;
``entity_table``, a join, a group-by and the first and last of a window) — checked by hand on crafted rows, nulls and
a mention of no chunk included. (The same rows by Spark: ``test_entities_queries``; War and Peace through both
engines: ``test_issue_16_entities_resolved_in_the_driver_are_sparks_on_war_and_peace``.)"""

from __future__ import annotations

import pyarrow as pa

from graph.tables import MENTION_ENTITIES
from ingestion.stages.entities import attach_entities, entity_table


def _keyed() -> pa.Table:
    rows = [  # mention_id, doc_id, chunk_id, sentence_id, start, end, keyed text, label, written
        ("m1", "a", "a:c0", "a:c0:s0", 0, 6, "Pierre", "PERSON", "Pierre"),
        ("m2", "a", "a:c1", "a:c1:s0", 50, 56, "Pierre", "PERSON", "Pierre"),
        ("m3", "b", "b:c0", "b:c0:s0", 0, 6, "Pierre", "PERSON", "Pierre"),
        ("m4", "b", "b:c0", "b:c0:s1", 9, 15, "Moscow", "GPE", "Moscow"),
        ("m5", "b", "b:c1", "b:c1:s0", 40, 47, "Dobó", "PERSON", "Dobónak"),  # keyed by its base form
        ("m6", "b", "b:c1", "b:c1:s0", 60, 66, "Nobody", "PERSON", "Nobody"),  # a form not resolved
    ]
    names = ["mention_id", "doc_id", "chunk_id", "sentence_id", "start", "end", "text", "label", "written"]
    return pa.table({name: [row[i] for row in rows] for i, name in enumerate(names)})


def test_issue_16_attach_rows_joins_each_mention_to_its_forms_entity_in_either_scope() -> None:
    corpus = {("", "Pierre", "PERSON"): "e_pierre", ("", "Moscow", "GPE"): "e_moscow", ("", "Dobó", "PERSON"): "e_dobo"}
    out = attach_entities(_keyed(), corpus, by_document=False)
    assert out.schema == MENTION_ENTITIES.arrow_schema()
    assert sorted((r["mention_id"], r["entity_id"], r["text"]) for r in out.to_pylist()) == [
        ("m1", "e_pierre", "Pierre"), ("m2", "e_pierre", "Pierre"), ("m3", "e_pierre", "Pierre"),
        ("m4", "e_moscow", "Moscow"), ("m5", "e_dobo", "Dobónak"),  # the text as written
    ]
    by_document = {("a", "Pierre", "PERSON"): "e_pierre_a", ("b", "Pierre", "PERSON"): "e_pierre_b"}
    out = attach_entities(_keyed(), by_document, by_document=True)
    assert sorted((r["mention_id"], r["entity_id"]) for r in out.to_pylist()) == [
        ("m1", "e_pierre_a"), ("m2", "e_pierre_a"), ("m3", "e_pierre_b"),
    ]


def test_issue_16_entity_table_rows_counts_and_places_first_and_last_as_spark_does() -> None:
    entities = pa.table({
        "entity_id": ["e1", "e2", "e3"], "canonical_name": ["Pierre", "Moscow", "Once"],
        "label": ["PERSON", "GPE", "PERSON"], "aliases": [["Pierre"], ["Moscow"], ["Once"]],
    })
    mention_entities = pa.table({
        "entity_id": ["e1", "e1", "e1", "e2", "e2", "e3", "e1"],
        "doc_id": ["b", "a", "a", "a", "a", "a", "x"],
        "chunk_id": ["b:c0", "a:c1", "a:c2", "a:c1", "a:c2", "a:c1", "x:c9"],  # x:c9: no such chunk
    })
    chunks = pa.table({
        "chunk_id": ["a:c1", "a:c2", "b:c0"], "chunk_index": [1, 2, 0], "unit_id": ["a:u1", None, "b:u0"],
    })
    rows = {r["entity_id"]: r for r in entity_table(entities, mention_entities, chunks, 2).to_pylist()}
    assert set(rows) == {"e1", "e2"}  # e3 has one mention, fewer than 2; x:c9's mention counts for nobody
    e1, e2 = rows["e1"], rows["e2"]
    # ordered by (document, chunk index): a:c1 < a:c2 < b:c0 — the document first, whatever the chunk index
    assert (e1["mention_count"], e1["doc_count"], e1["first_chunk_id"], e1["last_chunk_id"]) == (3, 2, "a:c1", "b:c0")
    assert (e1["first_unit_id"], e1["last_unit_id"]) == ("a:u1", "b:u0")
    assert (e2["mention_count"], e2["doc_count"], e2["first_chunk_id"], e2["last_chunk_id"]) == (2, 1, "a:c1", "a:c2")
    assert (e2["first_unit_id"], e2["last_unit_id"]) == ("a:u1", None)  # the chunk's null unit, as it stands
    assert entity_table(entities, mention_entities.slice(0, 0), chunks, 1).num_rows == 0
