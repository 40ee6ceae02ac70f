"""The chunk retrieval of the chat side: analyser, BM25, fusion, the persisted index, unit references."""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from deltalake import write_deltalake

from graph.lakehouse import Lakehouse
from tools.errors import ConfigError
from tools.retrieval.analyzer import Analyzer
from tools.retrieval.bm25 import BM25Index, reciprocal_rank_fusion
from tools.retrieval.bm25_file import read_index_file, write_index_file
from tools.retrieval.chunks import INDEX_FORMAT, Chunk, ChunkRetriever, RetrievalError
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


def _scalar_bm25(documents: list[list[str]], query: list[str], k1: float = 1.5, b: float = 0.75) -> dict[int, float]:
    """BM25 one posting at a time, as the index computed it before its arrays (format 1): the reference."""
    average = sum(map(len, documents)) / len(documents) or 1.0
    result: dict[int, float] = {}
    for term, weight in Counter(query).items():
        holders = [(d, doc.count(term)) for d, doc in enumerate(documents) if term in doc]
        idf = math.log(1 + (len(documents) - len(holders) + 0.5) / (len(holders) + 0.5))
        for doc, tf in holders:
            norm = k1 * (1 - b + b * len(documents[doc]) / average)
            result[doc] = result.get(doc, 0.0) + weight * idf * tf * (k1 + 1) / (tf + norm)
    return result


def test_issue_16_bm25_array_scores_are_the_scalar_formulas_to_the_last_bit() -> None:
    """The numpy scoring gives the very floats of the posting-at-a-time formula, and ranks ties by document number."""
    rng = random.Random(16)
    documents = [[rng.choice("abcdefgh") for _ in range(rng.randint(0, 12))] for _ in range(60)]
    documents += [["a", "b"], ["b", "a"]]  # the same score: book order decides
    index = BM25Index.build(documents)
    for query in (["a"], ["b", "a"], ["c", "c", "h", "zz"], ["zz"], []):
        expected = _scalar_bm25(documents, query)
        assert index.scores(query) == expected
        assert index.top(query, k=len(documents)) == sorted(expected.items(), key=lambda item: (-item[1], item[0]))
    assert [doc for doc, _ in index.top(["a", "b"], k=100) if doc >= 60] == [60, 61]


def test_issue_16_bm25_file_loaded_back_scores_as_the_index_in_memory(tmp_path: Path) -> None:
    """The index file (numpy arrays, no pickles) gives back the index it was written from, with its chunk ids,
    spans and analyser key: the same postings, the same scores to the last bit, the same ranking ties included."""
    documents = [["x", "y"], ["y"], ["ünnep", "y", "x"], ["y"], []]  # a non-ASCII term; an empty chunk
    index = BM25Index.build(documents, k1=1.2, b=0.5)
    path = tmp_path / "bm25-hu-f2-v3.npz"
    spans = [(0, 4), (5, 9), (10, 22), (23, 27), (28, 28)]
    write_index_file(path, index, [f"doc_1:c{n}" for n in range(5)], spans, "an-analyser")
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # written aside, renamed into place
    stored = read_index_file(path)
    again = stored.index
    assert (again.terms, again.k1, again.b, again.lengths.tolist()) == (["x", "y", "ünnep"], 1.2, 0.5, [2, 1, 3, 1, 0])
    assert again.postings == index.postings and again.postings["y"] == [(0, 1), (1, 1), (2, 1), (3, 1)]
    for query in (["y"], ["x", "y", "y"], ["ünnep"], ["absent"]):
        assert again.top(query, k=5) == index.top(query, k=5)
        assert again.scores(query) == _scalar_bm25(documents, query, k1=1.2, b=0.5)
    assert [doc for doc, _ in again.top(["y"], k=5)] == [1, 3, 0, 2]  # 1 and 3 tie: book order
    assert (stored.chunk_ids, stored.spans, stored.analyzer) == ([f"doc_1:c{n}" for n in range(5)], spans,
                                                                 "an-analyser")


def test_issue_16_bm25_reindexed_equals_a_build_over_the_same_documents() -> None:
    """An index grows by analysing only its new documents (the index stage's incremental run): documents dropped,
    kept ones renumbered, new ones added anywhere — the same postings and lengths as a build from nothing."""
    old_docs = [["a", "b"], ["b", "c", "c"], ["d"], ["a", "e"]]
    new_docs = [["x", "a"], ["b", "c", "c"], ["a", "e"], ["c", "z", "z"]]  # 0 and 3 new; 1 and 3 were 1 and 3
    grown = BM25Index.build(old_docs).reindexed([None, 1, 3, None], {0: new_docs[0], 3: new_docs[3]})
    fresh = BM25Index.build(new_docs)
    assert grown.lengths.tolist() == fresh.lengths.tolist() == [2, 3, 2, 3]
    assert grown.terms == fresh.terms and grown.starts.tolist() == fresh.starts.tolist()
    assert grown.postings == fresh.postings
    assert grown.postings["c"] == [(1, 2), (3, 1)] and "d" not in grown.postings  # by hand
    assert grown.scores(["c", "a"]) == fresh.scores(["c", "a"])


def test_issue_16_bm25_of_counted_terms_equals_the_index_of_the_term_lists() -> None:
    """The index stage counts each passage's words once (``Analyzer.term_counts``, each distinct word stemmed once)
    instead of listing every term: the same arrays, built or grown, for text with repeats, stop words, casing and
    letters whose casefold is longer ("Straße", "İstanbul")."""
    analyzer = Analyzer("en")
    texts = ["The straße and the Straße; running, ran, runs. RUNNING!", "İstanbul, istanbul and the İSTANBUL road",
             "Pierre said nothing. Pierre, Pierre... and the prince", ""]
    assert [analyzer.term_counts(t) for t in texts] == [Counter(analyzer.terms(t)) for t in texts]
    # by hand: "running", "runs" and "RUNNING" stem to "run" ("ran" is its own stem)
    assert analyzer.term_counts(texts[0])["run"] == 3 and analyzer.term_counts(texts[0])["strass"] == 2
    listed = BM25Index.build(analyzer.terms(t) for t in texts)
    counted = BM25Index.build(analyzer.term_counts(t) for t in texts)
    for name in ("starts", "docs", "tfs", "lengths"):
        assert getattr(listed, name).tolist() == getattr(counted, name).tolist(), name
    assert listed.terms == counted.terms and counted.lengths.tolist() == [len(analyzer.terms(t)) for t in texts]
    grown = BM25Index.build(analyzer.term_counts(t) for t in texts[:2]).reindexed(
        [0, 1, None, None], {2: analyzer.term_counts(texts[2]), 3: analyzer.term_counts(texts[3])})
    assert grown.postings == listed.postings and grown.lengths.tolist() == listed.lengths.tolist()


def test_issue_16_bm25_reindexed_names_the_new_documents_it_lacks() -> None:
    with pytest.raises(ValueError, match=r"added documents \[0\] are not the new ones \[0, 2\]"):
        BM25Index.build([["a"], ["b"]]).reindexed([None, 1, None], {0: ["x"]})


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
    retriever = ChunkRetriever.from_lakehouse(Lakehouse.for_root(lakehouse), "hu")
    hits = retriever.search("Mit tudunk Gergelynek a sorsáról?", k=3)
    assert [h.chunk.chunk_id for h in hits] == ["doc_1:c00000"]
    assert hits[0].citation == "Egri csillagok › ELSŐ RÉSZ › I. › chunk 0"


def test_retriever_persists_its_index_per_chunks_table_version(lakehouse: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    ChunkRetriever.from_lakehouse(Lakehouse.for_root(lakehouse), "hu")
    assert [p.name for p in (lakehouse / "_index").iterdir()] == [f"bm25-hu-f{INDEX_FORMAT}-v0.npz"]

    def no_build(*args: object, **kwargs: object) -> BM25Index:
        raise AssertionError("the index should have been read from its file")

    with monkeypatch.context() as patch:
        patch.setattr(BM25Index, "build", no_build)
        again = ChunkRetriever.from_lakehouse(Lakehouse.for_root(lakehouse), "hu")
    assert again.search("Dobó", k=1)[0].chunk.chunk_id == "doc_1:c00002"
    write_deltalake(str(lakehouse / "chunks"), _chunk_rows([("III.", "MÁSODIK RÉSZ", "Dobót meglátta.")]).set_column(
        0, "chunk_id", pa.array(["doc_1:c00003"])), mode="append")
    newer = ChunkRetriever.from_lakehouse(Lakehouse.for_root(lakehouse), "hu")
    assert sorted(p.name for p in (lakehouse / "_index").iterdir()) == [f"bm25-hu-f{INDEX_FORMAT}-v1.npz"]
    assert {h.chunk.chunk_id for h in newer.search("Dobó", k=5)} == {"doc_1:c00002", "doc_1:c00003"}


def _damaged(path: Path, how: str, scratch: Path) -> bytes:
    """The index file at ``path``, broken in one of the ways a file on disk or a copy from a bucket can be."""
    good = path.read_bytes()
    if how == "truncated":
        return good[: len(good) // 2]
    if how == "format 1's JSON":
        return b'{"format": 1, "bm25": {}}'
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    if how == "an array missing":
        del arrays["docs"]
    else:  # postings that name a chunk the index does not have
        arrays["docs"] = arrays["docs"] + 1000
    np.savez(scratch, **arrays)
    return scratch.read_bytes()


@pytest.mark.parametrize("how", ["truncated", "format 1's JSON", "an array missing", "postings out of range"])
def test_issue_16_a_damaged_index_file_is_rebuilt_with_a_warning_naming_it(
        lakehouse: Path, tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture) -> None:
    """A damaged index file is only a lost speed-up: the chat side warns, naming it, and builds and rewrites it."""
    ChunkRetriever.from_lakehouse(Lakehouse.for_root(lakehouse), "hu")
    (path,) = (lakehouse / "_index").glob("bm25-*.npz")
    before = read_index_file(path).index
    path.write_bytes(_damaged(path, how, tmp_path / "scratch.npz"))
    with caplog.at_level("WARNING", logger="tools.retrieval.chunks"):
        retriever = ChunkRetriever.from_lakehouse(Lakehouse.for_root(lakehouse), "hu")
    assert f"index file {path} " in caplog.text and "; rebuilding it" in caplog.text
    assert retriever.search("Dobó", k=1)[0].chunk.chunk_id == "doc_1:c00002"
    assert read_index_file(path).index.postings == before.postings  # rewritten whole


def test_issue_16_an_index_file_of_another_analyser_is_rebuilt_with_this_ones_terms(
        lakehouse: Path, caplog: pytest.LogCaptureFixture) -> None:
    """An index whose terms another analyser made (another stemmer, or its other version: the key names both) is not
    used as it is: a query's stems could miss its terms. The chat side builds it again, with its own key."""
    ChunkRetriever.from_lakehouse(Lakehouse.for_root(lakehouse), "hu")
    (path,) = (lakehouse / "_index").glob("bm25-*.npz")
    stored = read_index_file(path)
    write_index_file(path, stored.index, stored.chunk_ids, stored.spans, "another-analyser")  # as if theirs
    with caplog.at_level("INFO", logger="tools.retrieval.chunks"):
        retriever = ChunkRetriever.from_lakehouse(Lakehouse.for_root(lakehouse), "hu")
    assert f"{path.name} was made by another analyser; rebuilding it" in caplog.text
    assert read_index_file(path).analyzer == retriever.analyzer.key
    assert retriever.search("Gergelynek", k=1)[0].chunk.chunk_id == "doc_1:c00000"


def test_issue_16_the_analyser_key_names_its_stemmer_implementation_and_version() -> None:
    from importlib.metadata import version

    import Stemmer

    analyzer = Analyzer("en")
    # the C stemmers, named: the pure-Python package switched to them by itself whenever they were installed
    assert isinstance(analyzer._stemmer, Stemmer.Stemmer)
    assert analyzer.stem("running") == "run"
    key = analyzer.key
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("importlib.metadata.version", lambda name: "0.0" if name == "PyStemmer" else version(name))
        other = Analyzer("en")
        assert other.key != key  # another version of the stemmer: another key, so another index


def test_retriever_search_within_one_unit(lakehouse: Path) -> None:
    retriever = ChunkRetriever.from_lakehouse(Lakehouse.for_root(lakehouse), "hu")
    unit = retriever.get("doc_1:c00001").unit_id
    assert [h.chunk.chunk_id for h in retriever.search("Éva Dobó Gergely", k=5, unit_id=unit)] == ["doc_1:c00001"]


def test_retriever_without_chunks_table_says_run_the_pipeline(tmp_path: Path) -> None:
    with pytest.raises(RetrievalError, match="run the ingestion pipeline"):
        ChunkRetriever.from_lakehouse(Lakehouse.for_root(tmp_path), "en")


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
    retriever = ChunkRetriever.from_lakehouse(Lakehouse.for_root(lakehouse), "hu")
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
