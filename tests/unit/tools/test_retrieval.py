"""The chunk retrieval of the chat side: analyser, BM25, fusion, the persisted index, unit references."""

from __future__ import annotations

import math
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import write_deltalake

from tools.errors import ConfigError
from tools.retrieval.analyzer import Analyzer
from tools.retrieval.bm25 import BM25Index, reciprocal_rank_fusion
from tools.retrieval.chunks import Chunk, ChunkRetriever, RetrievalError
from tools.retrieval.units import UnitCatalog, UnitReference, parse_reference, title_number, to_number


def test_analyzer_hungarian_inflected_names_share_one_term() -> None:
    terms = Analyzer("hu").terms("Gergelyt és Gergelynek, meg Gergely")
    assert len(terms) == 3  # "és" and "meg" are stop words
    assert len(set(terms)) == 1


def test_analyzer_unknown_language_names_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="'xx'.*'en'"):
        Analyzer("xx")


def test_bm25_score_matches_the_formula_by_hand() -> None:
    index = BM25Index.build([["a", "b"], ["a", "a", "c"], ["c"]])
    # df(b)=1 of N=3: idf = ln(1 + 2.5/1.5); avgdl = 2, |d0| = 2: tf part = 1·2.5 / (1 + 1.5·1) = 1.
    assert index.scores(["b"]) == {0: pytest.approx(math.log(1 + 2.5 / 1.5))}
    # "a" is in d0 (tf 1, len 2) and d1 (tf 2, len 3); df=2: idf = ln(1 + 1.5/2.5)
    idf = math.log(1 + 1.5 / 2.5)
    d1 = idf * 2 * 2.5 / (2 + 1.5 * (0.25 + 0.75 * 3 / 2))
    assert index.top(["a"], k=1) == [(1, pytest.approx(d1))]


def test_bm25_round_trips_through_its_dict() -> None:
    index = BM25Index.build([["x", "y"], ["y"]])
    again = BM25Index.from_dict(index.to_dict())
    assert again.scores(["y"]) == index.scores(["y"])


def test_issue_16_bm25_reindexed_equals_a_build_over_the_same_documents() -> None:
    """An index grows by analysing only its new documents (the index stage's incremental run): documents dropped,
    kept ones renumbered, new ones added anywhere — the same postings and lengths as a build from nothing."""
    old_docs = [["a", "b"], ["b", "c", "c"], ["d"], ["a", "e"]]
    new_docs = [["x", "a"], ["b", "c", "c"], ["a", "e"], ["c", "z", "z"]]  # 0 and 3 new; 1 and 3 were 1 and 3
    grown = BM25Index.build(old_docs).reindexed([None, 1, 3, None], {0: new_docs[0], 3: new_docs[3]})
    fresh = BM25Index.build(new_docs)
    assert grown.lengths == fresh.lengths == [2, 3, 2, 3]
    assert grown.postings == fresh.postings
    assert grown.postings["c"] == [(1, 2), (3, 1)] and "d" not in grown.postings  # by hand
    assert grown.scores(["c", "a"]) == fresh.scores(["c", "a"])


def test_reciprocal_rank_fusion_by_hand() -> None:
    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 1]], k=60)
    assert [doc for doc, _ in fused] == [1, 3, 2]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)


def _chunk_rows(texts: list[tuple[str, str, str]]) -> pa.Table:
    rows = []
    for n, (unit_title, part_title, text) in enumerate(texts):
        unit = f"doc_1:u{unit_title}{part_title}"
        rows.append({"chunk_id": f"doc_1:c{n:05d}", "doc_id": "doc_1", "chunk_index": n, "unit_id": unit,
                     "unit_index": n, "unit_kind": "chapter", "unit_title": unit_title, "part_title": part_title,
                     "start": n * 100, "end": n * 100 + len(text), "text": text})
    return pa.Table.from_pylist(rows)


@pytest.fixture
def lakehouse(tmp_path: Path) -> Path:
    root = tmp_path / "lake"
    write_deltalake(str(root / "chunks"), _chunk_rows([
        ("I.", "ELSŐ RÉSZ", "Gergelyt a török rabul ejtette a Balaton partján."),
        ("II.", "ELSŐ RÉSZ", "Éva a kútnál várt, és Vicuskát kereste."),
        ("I.", "MÁSODIK RÉSZ", "Dobó István a falakat vizsgálta Egerben."),
    ]))
    write_deltalake(str(root / "documents"), pa.Table.from_pylist([{"doc_id": "doc_1", "title": "Egri csillagok"}]))
    return root


def test_retriever_finds_inflected_name_and_cites_document_unit_and_chunk(lakehouse: Path) -> None:
    retriever = ChunkRetriever.from_lakehouse(lakehouse, "hu")
    hits = retriever.search("Mit tudunk Gergelynek a sorsáról?", k=3)
    assert [h.chunk.chunk_id for h in hits] == ["doc_1:c00000"]
    assert hits[0].citation == "Egri csillagok › ELSŐ RÉSZ › I. › chunk 0"


def test_retriever_persists_its_index_per_chunks_table_version(lakehouse: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    ChunkRetriever.from_lakehouse(lakehouse, "hu")
    assert [p.name for p in (lakehouse / "_index").iterdir()] == ["bm25-hu-f1-v0.json"]

    def no_build(*args: object, **kwargs: object) -> BM25Index:
        raise AssertionError("the index should have been read from its file")

    with monkeypatch.context() as patch:
        patch.setattr(BM25Index, "build", no_build)
        again = ChunkRetriever.from_lakehouse(lakehouse, "hu")
    assert again.search("Dobó", k=1)[0].chunk.chunk_id == "doc_1:c00002"
    write_deltalake(str(lakehouse / "chunks"), _chunk_rows([("III.", "MÁSODIK RÉSZ", "Dobót meglátta.")]).set_column(
        0, "chunk_id", pa.array(["doc_1:c00003"])), mode="append")
    newer = ChunkRetriever.from_lakehouse(lakehouse, "hu")
    assert sorted(p.name for p in (lakehouse / "_index").iterdir()) == ["bm25-hu-f1-v1.json"]
    assert {h.chunk.chunk_id for h in newer.search("Dobó", k=5)} == {"doc_1:c00002", "doc_1:c00003"}


def test_retriever_search_within_one_unit(lakehouse: Path) -> None:
    retriever = ChunkRetriever.from_lakehouse(lakehouse, "hu")
    unit = retriever.get("doc_1:c00001").unit_id
    assert [h.chunk.chunk_id for h in retriever.search("Éva Dobó Gergely", k=5, unit_id=unit)] == ["doc_1:c00001"]


def test_retriever_without_chunks_table_says_run_the_pipeline(tmp_path: Path) -> None:
    with pytest.raises(RetrievalError, match="run the ingestion pipeline"):
        ChunkRetriever.from_lakehouse(tmp_path, "en")


def test_retriever_hybrid_hook_fuses_a_dense_ranking() -> None:
    chunks = [Chunk(f"d:c{n}", "d", n, "d:u0", 0, "chapter", "I", "", 0, 1, text)
              for n, text in enumerate(["sea storm lamp oil", "storm", "storm sea"])]

    vectors = {"sea storm lamp oil": [1.0, 0.0], "storm": [0.8, 0.6], "storm sea": [0.0, 1.0]}

    def encode(texts: list[str]) -> list[list[float]]:  # a stand-in model; the query maps to [1, 0]
        return [vectors.get(t, [1.0, 0.0]) for t in texts]

    query = "storm and sea"
    # BM25: c2 (both terms, shortest), c0 (both terms), c1 (one term)
    assert [h.chunk.chunk_id for h in ChunkRetriever.from_chunks(chunks, "en").search(query, k=3)] == [
        "d:c2", "d:c0", "d:c1"]
    # dense: c0 (cosine 1), c1 (0.8), c2 (0). RRF: c0 1/62+1/61 > c2 1/61+1/63 > c1 1/63+1/62
    hybrid = ChunkRetriever.from_chunks(chunks, "en", dense=encode).search(query, k=3)
    assert [h.chunk.chunk_id for h in hybrid] == ["d:c0", "d:c2", "d:c1"]
    assert hybrid[0].score == pytest.approx(1 / 62 + 1 / 61)


@pytest.mark.parametrize(("text", "expected"), [
    ("What happens in chapter 12?", UnitReference(12)),
    ("Tell me about Chapter XII of Book Two", UnitReference(12, 2, "book")),
    ("Mi történik a 12. fejezetben?", UnitReference(12)),
    ("Mi történik a második rész 3. fejezetében?", UnitReference(3, 2, "rész")),
    ("What happens in the third chapter?", UnitReference(3)),
    ("Who is Pierre?", None),
])
def test_parse_reference(text: str, expected: UnitReference | None) -> None:
    assert parse_reference(text) == expected


def test_numbers_roman_arabic_and_spelled() -> None:
    assert [to_number(t) for t in ("XIV", "ix", "12", "második", "two", "Pierre")] == [14, 9, 12, 2, 2, None]
    assert title_number("CHAPTER XII") == 12
    assert title_number("Chapter 3. Up the River") == 3
    assert title_number("BOOK TWO: 1805") == 2
    assert title_number("MÁSODIK RÉSZ") == 2
    assert title_number("civil mild") is None


def test_unit_catalog_finds_a_chapter_in_every_part_and_counts_its_entities(lakehouse: Path) -> None:
    retriever = ChunkRetriever.from_lakehouse(lakehouse, "hu")
    catalog = UnitCatalog(retriever.chunks, {"doc_1:c00002": ["ent_dobo", "ent_dobo", "ent_eger"]})
    both = catalog.find(UnitReference(1))
    assert [u.part_title for u in both] == ["ELSŐ RÉSZ", "MÁSODIK RÉSZ"]
    second = catalog.find(UnitReference(1, 2, "rész"))
    assert [u.label for u in second] == ["MÁSODIK RÉSZ › I."]
    assert catalog.entity_counts(second[0]) == {"ent_dobo": 2, "ent_eger": 1}


def test_unit_catalog_part_word_tells_book_two_from_second_epilogue() -> None:
    chunks = [Chunk(f"d:c{n}", "d", n, f"d:u{n}", n, "chapter", "CHAPTER III", part, 0, 1, "text")
              for n, part in enumerate(["BOOK TWO: 1805", "SECOND EPILOGUE"])]
    catalog = UnitCatalog(chunks)
    reference = parse_reference("What happens in chapter 3 of book two?")
    assert [u.part_title for u in catalog.find(reference)] == ["BOOK TWO: 1805"]
    assert [u.part_title for u in catalog.find(UnitReference(3, 2))] == ["BOOK TWO: 1805", "SECOND EPILOGUE"]
