"""Issue 14, item 4: co-occurrence windows beyond the sentence (paragraph, dialogue turns) on a crafted book —
counted by both engines: Spark's ``cooccurrence_pairs`` and the driver's ``cooccurrence_rows`` (issue 16, item 5)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from ingestion.stages.cooccurrences import cooccurrence_pairs, cooccurrence_rows

# Two chapters. Chapter one's chunk has three paragraphs; chapter two's chunk one paragraph, two sentences.
C0 = "Anna met Ben.\n\nCarl spoke.\n  \nDora left."
C1 = "Ben smiled. Anna laughed."
C1_START = len(C0) + 2
CHUNKS = [("c0", "d", 0, "u1", 0, C0), ("c1", "d", 1, "u2", C1_START, C1)]
CHUNK_COLUMNS = ["chunk_id", "doc_id", "chunk_index", "unit_id", "start", "text"]
# (entity, chunk, sentence, offset into the document)
FOUND = [("anna", "c0", 0, C0.index("Anna")), ("ben", "c0", 0, C0.index("Ben")),
         ("carl", "c0", 1, C0.index("Carl")), ("dora", "c0", 2, C0.index("Dora")),
         ("ben", "c1", 0, C1_START + C1.index("Ben")), ("anna", "c1", 1, C1_START + C1.index("Anna"))]
MENTION_COUNTS = {"anna": 2, "ben": 2, "carl": 1, "dora": 1}
ENGINES = ("spark", "driver")


def _tables(spark: Any) -> tuple[Any, Any, Any, Any]:
    chunks = spark.createDataFrame(
        CHUNKS, "chunk_id string, doc_id string, chunk_index int, unit_id string, start long, text string"
    )
    rows = [(f"{chunk}:m{start}", entity, chunk, f"{chunk}:s{sentence}", start)
            for entity, chunk, sentence, start in FOUND]
    mentions = spark.createDataFrame([(m, c, s) for m, _, c, _, s in rows], "mention_id string, chunk_id string, "
                                                                              "start long")
    # without offsets, as written before the entities stage's version 6: the paragraph windows read the mentions'
    mention_entities = spark.createDataFrame(
        [(e, m, "d", c, s) for m, e, c, s, _ in rows],
        "entity_id string, mention_id string, doc_id string, chunk_id string, sentence_id string",
    )
    entities = spark.createDataFrame(list(MENTION_COUNTS.items()), "entity_id string, mention_count long")
    return mention_entities, chunks, entities, mentions


def _rows(spark: Any, window: str, engine: str) -> list[dict[str, Any]]:
    """The pairs as dicts, from either engine."""
    if engine == "spark":
        return [row.asDict() for row in cooccurrence_pairs(*_tables(spark)[:3], window, _tables(spark)[3]).collect()]
    mention_entities = pa.table({
        "entity_id": [e for e, _, _, _ in FOUND], "chunk_id": [c for _, c, _, _ in FOUND],
        "sentence_id": [f"{c}:s{s}" for _, c, s, _ in FOUND], "start": [start for *_, start in FOUND],
    })
    chunks = pa.table({name: [row[i] for row in CHUNKS] for i, name in enumerate(CHUNK_COLUMNS)})
    return cooccurrence_rows(mention_entities, chunks, MENTION_COUNTS, window).to_pylist()


def _counts(spark: Any, window: str, engine: str) -> dict[tuple[str, str], int]:
    rows = _rows(spark, window, engine)
    assert {row["window"] for row in rows} <= {window}
    return {(row["src_id"], row["dst_id"]): row["count"] for row in rows}


@pytest.mark.parametrize("engine", ENGINES)
def test_issue_14_sentence_window_counts_shared_sentences(spark: Any, engine: str) -> None:
    assert _counts(spark, "sentence", engine) == {("anna", "ben"): 1}


@pytest.mark.parametrize("engine", ENGINES)
def test_issue_14_paragraph_window_counts_shared_paragraphs(spark: Any, engine: str) -> None:
    assert _counts(spark, "paragraph", engine) == {("anna", "ben"): 2}


@pytest.mark.parametrize("engine", ENGINES)
def test_issue_14_turns_window_joins_neighbouring_paragraphs_of_one_chapter(spark: Any, engine: str) -> None:
    # Carl answers in the paragraph after Anna and Ben's, Dora in the next; the chapter ends before Ben smiles.
    assert _counts(spark, "turns", engine) == {
        ("anna", "ben"): 2, ("anna", "carl"): 1, ("ben", "carl"): 1, ("carl", "dora"): 1,
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_issue_14_chunk_window_counts_shared_chunks(spark: Any, engine: str) -> None:
    counts = _counts(spark, "chunk", engine)
    assert counts[("anna", "ben")] == 2 and counts[("anna", "dora")] == 1 and len(counts) == 6


@pytest.mark.parametrize("engine", ENGINES)
def test_issue_14_turns_weight_is_count_over_mention_geometric_mean(spark: Any, engine: str) -> None:
    rows = {(r["src_id"], r["dst_id"]): r for r in _rows(spark, "turns", engine)}
    assert rows[("anna", "ben")]["weight"] == pytest.approx(2 / (2 * 2) ** 0.5)
    assert rows[("carl", "dora")]["weight"] == pytest.approx(1.0)
    assert rows[("anna", "carl")]["chunk_ids"] == ["c0"] and rows[("anna", "carl")]["unit_ids"] == ["u1"]


@pytest.mark.parametrize("engine", ENGINES)
def test_issue_14_unknown_window_names_the_valid_ones(spark: Any, engine: str) -> None:
    with pytest.raises(ValueError, match="sentence, paragraph, turns, chunk"):
        _rows(spark, "page", engine)


def test_issue_14_surface_forms_count_the_pronouns_after_each_mention(spark: Any) -> None:
    from ingestion.stages.entities import surface_forms

    text = "Margaret looked up; she smiled. Her father, Mr Temple, nodded and he left.\n\nMargaret sighed: her turn."
    later = "Margaret wrote. \"Come in, Margaret,\" he called."
    chunks = spark.createDataFrame([("c0", "u1", 100, text), ("c1", "u2", 300, later)],
                                   "chunk_id string, unit_id string, start long, text string")
    found = [("c0", 100, "Margaret", text.index("Margaret")), ("c0", 100, "Mr Temple", text.index("Mr Temple")),
             ("c0", 100, "Margaret", text.rindex("Margaret")), ("c1", 300, "Margaret", 0),
             ("c1", 300, "Margaret", later.rindex("Margaret"))]
    mentions = spark.createDataFrame(
        [(chunk, start + at, start + at + len(name), name, "PERSON", "") for chunk, start, name, at in found],
        "chunk_id string, start long, end long, text string, label string, ent_id string",
    )
    forms = {form.text: form for form in surface_forms(mentions, chunks)}
    # within PRONOUN_WINDOW (60) characters after each mention, up to its sentence's end (PRONOUN_CLAUSE): "she" |
    # "her" ; "he" — not the next sentence's "Her father" and "he" after Margaret, nor Margaret's "her" after Temple;
    # and up to a quotation mark: the "he" of the speaker who calls her by name is not hers
    assert (forms["Margaret"].count, forms["Margaret"].she, forms["Margaret"].he) == (4, 2, 0)
    assert (forms["Mr Temple"].he, forms["Mr Temple"].she) == (1, 0)
    # and the units (chapters) each form is said in, with its mentions there (issue 14: ``resolution.NEAR``)
    assert forms["Margaret"].units == (("u1", 2), ("u2", 2)) and forms["Mr Temple"].units == (("u1", 1),)
    assert forms["Margaret"].first_pos == 100
