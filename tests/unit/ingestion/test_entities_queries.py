"""The entities stage's joins are written once, as queries: on crafted rows (an inflected mention, a form not
resolved, a null unit, a mention of no chunk, a chunk of no kind) DuckDB over Arrow rows and Spark SQL over DataFrames
give the same rows, and those rows are the ones read off the inputs by hand."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ingestion.stages.entities import (
    attach_entities,
    carried_mentions,
    entity_table,
    keyed_mentions,
    written_aliases,
)

MENTIONS = pa.table({
    "mention_id": ["m1", "m2", "m3", "m4", "m5"],
    "doc_id": ["a", "a", "b", "b", "b"],
    "chunk_id": ["a:c0", "a:c1", "b:c0", "b:c0", "x:c9"],
    "sentence_id": ["a:c0:s0", "a:c1:s0", "b:c0:s0", "b:c0:s1", "x:c9:s0"],
    "sentence_index": [0, 0, 0, 1, 0],
    "start": [0, 50, 0, 12, 5],
    "end": [6, 57, 7, 18, 11],
    "text": ["Pierre", "Dobónak", "Dobónak", "Nobody", "Pierre"],
    "label": ["PER", "PER", "PER", "PER", "PER"],
    "ent_id": [None, "Dobó", "Dobó", "", None],
})
CHUNKS = pa.table({
    "chunk_id": ["a:c0", "a:c1", "b:c0", "b:c1"],
    "doc_id": ["a", "a", "b", "b"],
    "chunk_index": [0, 1, 0, 1],
    "unit_id": ["a:u0", None, "b:u0", "b:u1"],
    "unit_kind": ["chapter", "chapter", "chapter", None],
    "start": [0, 50, 0, 30],
    "text": ["Pierre said. " + " " * 37, "Dobónak came.", "Dobónak met Nobody and Pierre", "Pierre again"],
})
FORMS = {("", "Pierre", "PER"): "e_pierre", ("", "Dobó", "PER"): "e_dobo"}


def _rows(result: Any, key: list[str]) -> list[dict[str, Any]]:
    rows = result.to_pylist() if isinstance(result, pa.Table) else [r.asDict(recursive=True) for r in result.collect()]
    return sorted(rows, key=lambda row: [str(row[k]) for k in key])


def test_entities_queries_give_the_same_rows_in_process_and_in_spark(spark: Any) -> None:
    frames = {"mentions": spark.createDataFrame(MENTIONS), "chunks": spark.createDataFrame(CHUNKS)}
    for mentions, chunks in ((MENTIONS, CHUNKS), (frames["mentions"], frames["chunks"])):
        keyed = keyed_mentions(mentions)
        assert [r["text"] for r in _rows(keyed, ["mention_id"])] == ["Pierre", "Dobó", "Dobó", "Nobody", "Pierre"]
        assert written_aliases(mentions, FORMS) == {"e_dobo": ["Dobónak"]}
        attached = _rows(attach_entities(keyed, FORMS, by_document=False), ["mention_id"])
        # every resolved mention with its text as written; "Nobody" was not resolved
        assert [(r["mention_id"], r["entity_id"], r["text"]) for r in attached] == [
            ("m1", "e_pierre", "Pierre"), ("m2", "e_dobo", "Dobónak"), ("m3", "e_dobo", "Dobónak"),
            ("m5", "e_pierre", "Pierre")]
        entities = pa.table({"entity_id": ["e_pierre", "e_dobo"], "canonical_name": ["Pierre", "Dobó"],
                             "label": ["PER", "PER"], "aliases": [["Pierre"], ["Dobó", "Dobónak"]]})
        table = _rows(entity_table(entities, attach_entities(keyed, FORMS, by_document=False), chunks, 2),
                      ["entity_id"])
        # Pierre's mention in chunk x:c9 (not given) counts for nobody, so one mention: fewer than 2
        assert [(r["entity_id"], r["mention_count"], r["doc_count"], r["first_chunk_id"], r["last_chunk_id"],
                 r["first_unit_id"], r["last_unit_id"]) for r in table] == [
            ("e_dobo", 2, 2, "a:c1", "b:c0", None, "b:u0")]
        carried = _rows(carried_mentions(chunks, mentions, {"": {"Pierre": "e_pierre"}}, by_document=False),
                        ["mention_id"])
        # the unlabelled "Pierre" of b:c0, in the sentence of the NER mention before it; b:c1 has no kind
        assert [(r["mention_id"], r["start"], r["sentence_id"]) for r in carried] == [("b:c0:p23", 23, "b:c0:s1")]
