"""The ingestion pipeline end to end on real local Spark and real Delta tables (R-ING-2, R-ING-3, R-NER-1)."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from graph.lakehouse import Lakehouse
from graph.tables import NON_PROSE_UNIT_KINDS
from tests.conftest import DENSE_MODEL, EN_SAMPLE_FILES, SAMPLES, RecordingProgress, dense_unavailable, settings_for
from tests.unit.ingestion.tables import comparable, read, version
from tools.ingestion import STAGE_NAMES
from tools.retrieval.bm25_file import read_index_file
from tools.retrieval.chunks import INDEX_FORMAT

pytestmark = pytest.mark.spark

ALL_TABLES = [
    "documents",
    "chunks",
    "mentions",
    "entities",
    "mention_entities",
    "quotes",
    "relations",
    "cooccurrences",
    "graph_nodes",
    "graph_edges",
]


@pytest.fixture(scope="module")
def sample_run(spark: Any, pipeline_runs: Any, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """The English sample corpus (a copy of ingestion/samples/en) ingested once, then ingested again unchanged. The
    first run is the session's run of the two files, which test_incremental_remove_and_change_equal_fresh_run starts
    from too; this module's copy of its lakehouse takes the second run."""
    from ingestion.domains.generic import GenericNERIngestionTool
    from tools.ingestion import IngestionRequest

    run = pipeline_runs(*EN_SAMPLE_FILES)
    lake = run.checkout(tmp_path_factory.mktemp("sample") / "lake")
    settings = settings_for(lake)
    tool = GenericNERIngestionTool()
    tool.set_settings(settings)
    tool.set_spark_session(spark)
    versions = {table: version(lake, table) for table in ALL_TABLES}
    index_files = _index_files(lake)
    second = tool.execute_ingestion(IngestionRequest(inputs=[str(run.corpus)]))
    return SimpleNamespace(
        lake=lake, corpus=run.corpus, first=run.result, second=second, versions=versions, tool=tool,
        settings=settings, progress=run.progress, index_files=index_files,
    )


def _index_files(lake: Path) -> dict[str, int]:
    """The retrieval index folder: file name → modification time (ns)."""
    folder = lake / "_index"
    return {f.name: f.stat().st_mtime_ns for f in folder.iterdir()} if folder.is_dir() else {}


def test_long_stages_report_progress_in_their_units(sample_run: SimpleNamespace) -> None:
    calls = [c for c in sample_run.progress.calls if c[1] == "mentions"]
    chunks = read(sample_run.lake, "chunks")
    words = int(chunks[~chunks.unit_kind.isin(NON_PROSE_UNIT_KINDS)].n_words.sum())  # NER reads prose only
    assert 0 < words < int(chunks.n_words.sum())  # the English sample's title line is front matter
    assert calls[0] == ("start", "mentions", (words, "words"))
    assert sum(c[2] for c in calls if c[0] == "advance") == words
    assert calls[-1] == ("finish", "mentions", None)
    chunk_calls = [c for c in sample_run.progress.calls if c[1] == "chunks"]
    assert chunk_calls == [("start", "chunks", (2, "documents")), ("advance", "chunks", 2), ("finish", "chunks", None)]


def test_pipeline_writes_every_table(sample_run: SimpleNamespace) -> None:
    assert sample_run.first.status == "succeeded", sample_run.first
    assert [s.stage for s in sample_run.first.stages] == [
        "documents",
        "chunks",
        "index",
        "mentions",
        "entities",
        "quotes",
        "relations",
        "cooccurrences",
        "graph",
        "neo4j",
    ]
    # the neo4j stage loads Neo4j only with graph.store = "neo4j"; here the embedded store reads the tables
    assert all(s.status == "succeeded" for s in sample_run.first.stages if s.stage != "neo4j")
    neo4j = sample_run.first.stages[-1]
    assert neo4j.status == "skipped" and "graph.store" in (neo4j.reason or "")
    docs = read(sample_run.lake, "documents")
    assert sorted(Path(s).name for s in docs.source) == ["harbour_notes.txt", "the_lighthouse_keepers.md"]
    # the samples state no relation between two named people ("Ellen Pryor, his daughter." names no one before
    # "his" in its sentence): the relations table is there, empty
    for table in ALL_TABLES:
        assert len(read(sample_run.lake, table)) > (-1 if table == "relations" else 0), table


def test_quotes_are_spans_of_their_documents_spoken_by_entities_of_the_run(sample_run: SimpleNamespace) -> None:
    quotes = read(sample_run.lake, "quotes")
    texts = read(sample_run.lake, "documents").set_index("doc_id").text
    assert len(quotes) > 0
    assert all(texts[row.doc_id][row.start : row.end] == row.text for row in quotes.itertuples())
    assert quotes.speaker_id.notna().any()
    assert set(quotes.speaker_id.dropna()) <= set(read(sample_run.lake, "entities").entity_id)


def test_references_are_pronouns_and_descriptions_of_people_named_in_their_documents(
    sample_run: SimpleNamespace,
) -> None:
    links = read(sample_run.lake, "mention_entities")
    texts = read(sample_run.lake, "documents").set_index("doc_id").text
    labels = read(sample_run.lake, "entities").set_index("entity_id").label
    references = links[links.kind != "name"]
    assert set(links.kind) <= {"name", "pronoun", "nominal"}
    assert (references.kind == "pronoun").sum() > 0
    assert all(texts[row.doc_id][row.start : row.end] == row.text for row in references.itertuples())
    assert set(references[references.kind == "pronoun"].text.str.casefold()) <= {
        "he", "him", "his", "himself", "she", "her", "hers", "herself",
        "i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself",
    }
    assert set(labels[references.entity_id]) <= {"PERSON", "PER"}
    named = set(zip(links[links.kind == "name"].doc_id, links[links.kind == "name"].entity_id, strict=True))
    assert set(zip(references.doc_id, references.entity_id, strict=True)) <= named  # a person of the same document
    counts = {report.stage: report.counts for report in sample_run.first.stages}
    assert counts["quotes"]["references"] == len(references)


def test_documents_are_normalised_and_content_addressed(sample_run: SimpleNamespace) -> None:
    import hashlib

    docs = read(sample_run.lake, "documents")
    for doc in docs.itertuples():
        raw = Path(doc.source.removeprefix("file:")).read_bytes().decode("utf-8")
        assert "\r" not in doc.text
        assert doc.text == raw.replace("\r\n", "\n")  # the samples are NFC, without BOM or Gutenberg lines
        assert doc.doc_id == "doc_" + hashlib.sha256(doc.text.encode()).hexdigest()[:16]
        assert doc.n_words == len(doc.text.split())


def test_chunks_cover_their_documents_with_exact_offsets(sample_run: SimpleNamespace) -> None:
    docs = read(sample_run.lake, "documents").set_index("doc_id")
    chunks = read(sample_run.lake, "chunks")
    for chunk in chunks.itertuples():
        assert docs.loc[chunk.doc_id, "text"][chunk.start : chunk.end] == chunk.text
    story = docs[docs.source.str.endswith("the_lighthouse_keepers.md")].index[0]
    titles = chunks[chunks.doc_id == story].drop_duplicates("unit_id").unit_title.tolist()
    assert [t for t in titles if t.lower().startswith("chapter")] == [t for t in titles if "hapter" in t]
    assert sum(1 for t in titles if t.lower().startswith("chapter")) == 4
    # Chunk ids are stable and ordered: the index in the id is the chunk's position in its document.
    for doc_id, group in chunks.groupby("doc_id"):
        ordered = group.sort_values("start")
        assert ordered.chunk_index.tolist() == list(range(len(group)))
        assert ordered.chunk_id.tolist() == [f"{doc_id}:c{i:05d}" for i in range(len(group))]


def test_mentions_offsets_point_into_the_document(sample_run: SimpleNamespace) -> None:
    docs = read(sample_run.lake, "documents").set_index("doc_id")
    mentions = read(sample_run.lake, "mentions")
    assert len(mentions) > 50
    for m in mentions.itertuples():
        assert docs.loc[m.doc_id, "text"][m.start : m.end] == m.text
    assert set(mentions.model) == {"en_litbank"}  # issue 14: the English default is the shipped literary NER
    assert mentions.mention_id.is_unique


def test_mentions_spark_equals_plain_spacy(sample_run: SimpleNamespace) -> None:
    """The same model outside Spark, on the same chunks, finds exactly the same mentions."""
    import spacy

    from ingestion.language_models import shipped_model_path
    from ingestion.name_labels import register
    from ingestion.nlp import NOT_NEEDED_FOR_NER

    chunks = read(sample_run.lake, "chunks").sort_values("chunk_id")
    # Built here by hand, not through ingestion.nlp's cache: the plain pipeline a user would write (the shipped
    # English default, whose last step is csillag's registered name-label component).
    register()
    nlp = spacy.load(shipped_model_path("en_litbank"), exclude=list(NOT_NEEDED_FOR_NER))
    nlp.add_pipe("sentencizer", first=True)
    labels = set(sample_run.tool.domain_spec().nlp.labels)
    expected = set()
    for chunk, doc in zip(chunks.itertuples(), nlp.pipe(chunks.text.tolist()), strict=True):
        for ent in doc.ents:
            if ent.label_ in labels:
                expected.add(
                    (chunk.chunk_id, chunk.start + ent.start_char, chunk.start + ent.end_char, ent.text, ent.label_)
                )
    mentions = read(sample_run.lake, "mentions")
    got = {(m.chunk_id, m.start, m.end, m.text, m.label) for m in mentions.itertuples()}
    assert got == expected


def test_entities_counts_agree_with_their_mentions(sample_run: SimpleNamespace) -> None:
    entities = read(sample_run.lake, "entities").set_index("entity_id")
    links = read(sample_run.lake, "mention_entities")
    links = links[links.kind == "name"]  # the entities stage's rows; pronouns are the quotes stage's
    mentions = read(sample_run.lake, "mentions").set_index("mention_id")
    per_entity = Counter(links.entity_id)
    assert set(per_entity) == set(entities.index)
    for entity_id, row in entities.iterrows():
        assert row.mention_count == per_entity[entity_id]
        assert row.mention_count >= sample_run.settings.ingestion.min_entity_mentions
        texts = set(links[links.entity_id == entity_id].text)
        assert texts <= set(row.aliases)
    # A link's offsets and text are its NER mention's, or (carried, issue 14) the alias where it stands unlabelled.
    ner = links[links.mention_id.isin(mentions.index)]
    carried = links[~links.mention_id.isin(mentions.index)]
    assert len(ner) > 0
    for link in ner.itertuples():
        mention = mentions.loc[link.mention_id]
        assert (link.start, link.end, link.text) == (mention.start, mention.end, mention.text)
    documents = read(sample_run.lake, "documents").set_index("doc_id")
    for link in carried.itertuples():
        assert documents.loc[link.doc_id, "text"][link.start : link.end] == link.text
        same_doc = mentions[mentions.doc_id == link.doc_id]
        assert not ((same_doc.start < link.end) & (link.start < same_doc.end)).any()  # outside every NER span
    names = set(entities.canonical_name)
    assert any("Margaret" in name for name in names)


def test_cooccurrences_match_an_independent_recount(sample_run: SimpleNamespace) -> None:
    links = read(sample_run.lake, "mention_entities")
    links = links[links.kind == "name"]  # ingestion.cooccurrence_references is off by default
    entities = read(sample_run.lake, "entities").set_index("entity_id")
    pairs = read(sample_run.lake, "cooccurrences")
    assert set(pairs.window) == {"turns"}  # the default (issue 14): a paragraph or two neighbouring ones
    # Each mention's paragraph, numbered through its document (blank lines end paragraphs), and its chapter.
    chunks = read(sample_run.lake, "chunks").set_index("chunk_id")
    first: dict[str, int] = {}
    for _, doc_chunks in chunks.sort_values("chunk_index").groupby("doc_id"):
        n = 0
        for chunk_id, chunk in doc_chunks.iterrows():
            first[chunk_id] = n
            n += len(re.findall(r"\n[ \t\r]*\n", chunk.text)) + 1
    seen = set()
    for link in links.itertuples():  # carried mentions too: each link has its own offsets
        chunk = chunks.loc[link.chunk_id]
        before = chunk.text[: max(link.start - chunk.start, 0)]
        seen.add((chunk.unit_id, first[link.chunk_id] + len(re.findall(r"\n[ \t\r]*\n", before)), link.entity_id))
    windows: dict[tuple[str, str], set[tuple[str, int, int]]] = {}
    for unit, p, a in seen:
        for unit_b, q, b in seen:
            if unit == unit_b and abs(p - q) <= 1 and a < b:
                windows.setdefault((a, b), set()).add((unit, min(p, q), max(p, q)))
    got = {(r.src_id, r.dst_id): r.count for r in pairs.itertuples()}
    assert got == {pair: len(found) for pair, found in windows.items()}
    for r in pairs.itertuples():
        m_a, m_b = entities.loc[r.src_id, "mention_count"], entities.loc[r.dst_id, "mention_count"]
        assert r.weight == pytest.approx(r.count / (m_a * m_b) ** 0.5)


def test_graph_nodes_carry_metrics(sample_run: SimpleNamespace) -> None:
    nodes = read(sample_run.lake, "graph_nodes")
    edges = read(sample_run.lake, "graph_edges")
    degree = Counter(list(edges.src_id) + list(edges.dst_id))
    for node in nodes.itertuples():
        assert node.degree == degree.get(node.entity_id, 0)
    assert nodes.pagerank.sum() == pytest.approx(1.0)
    assert nodes.community.notna().all()


def test_r_ing_2_rerun_skips_finished_stages(sample_run: SimpleNamespace) -> None:
    second = sample_run.second
    assert second.status == "skipped"
    assert [s.status for s in second.stages] == ["skipped"] * len(STAGE_NAMES)
    # the neo4j stage is skipped for its own reason: the sample run uses the embedded graph store
    assert {s.stage: s.reason for s in second.stages if s.reason != "up to date"}.keys() == {"neo4j"}
    # Nothing was rewritten: every table is at the version the first run left, the index files are untouched.
    assert {t: version(sample_run.lake, t) for t in ALL_TABLES} == sample_run.versions
    assert _index_files(sample_run.lake) == sample_run.index_files


def test_issue_16_up_to_date_rerun_is_answered_without_spark(
    sample_run: SimpleNamespace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def no_spark(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Spark was started for a run with nothing to do")

    from ingestion.domains.generic import GenericNERIngestionTool
    from tools.ingestion import IngestionRequest

    monkeypatch.setattr("ingestion.spark.get_spark", no_spark)
    tool = GenericNERIngestionTool()  # no session handed in: the run would have to start one
    tool.set_settings(sample_run.settings)
    request = IngestionRequest(inputs=[str(sample_run.corpus)])
    from ingestion.lock import LakehouseLock

    lakehouse = Lakehouse.for_root(sample_run.lake)
    with LakehouseLock(lakehouse, run_id="someone-else", tool="ner_ingestion", wait_seconds=0):
        answered = tool.run_if_up_to_date(request)  # it only reads: another run's lock neither stops nor waits it
    assert answered is not None and answered.status == "skipped"
    assert [(s.stage, s.status) for s in answered.stages] == [(s.stage, s.status) for s in sample_run.second.stages]
    assert answered.counts == sample_run.second.counts
    again = tool.execute_ingestion(request)
    assert again.status == "skipped" and again.counts == sample_run.second.counts
    assert {t: version(sample_run.lake, t) for t in ALL_TABLES} == sample_run.versions
    # Something to do (a new input, a forced run): no answer without Spark, and the run asks for a session.
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "new.txt").write_text("Captain Vance met Margaret Hale at the harbour.", encoding="utf-8")
    assert tool.run_if_up_to_date(IngestionRequest(inputs=[str(sample_run.corpus), str(extra)])) is None
    assert tool.run_if_up_to_date(IngestionRequest(inputs=[str(sample_run.corpus)], force=True)) is None
    assert {t: version(sample_run.lake, t) for t in ALL_TABLES} == sample_run.versions  # nothing was written
    # The run does it (on a copy): a small increment on a local master is foreseen to need no Spark
    # (ingestion.startup.SparkStartup.foresee), and is done without a session; with nothing in the driver
    # (ingestion.driver_max_chars 0) the run asks for one, which fails here.
    import shutil

    for limit, status in ((None, "succeeded"), (0, "failed")):
        lake = tmp_path / f"lake-{limit}"
        shutil.copytree(sample_run.lake, lake)
        on_copy = GenericNERIngestionTool()
        on_copy.set_settings(settings_for(lake, **({"ingestion": {"driver_max_chars": limit}} if limit == 0 else {})))
        done = on_copy.execute_ingestion(IngestionRequest(inputs=[str(sample_run.corpus), str(extra)]))
        assert done.status == status, done
        if status == "failed":
            assert "Spark was started" in (done.reason or "")
            assert {t: version(lake, t) for t in ALL_TABLES} == sample_run.versions
        else:
            assert done.counts["documents.added"] == 1 and done.counts["documents.documents"] == 3


# -- the retrieval index (issue 5): built by the pipeline, loaded by the chat side ----------------------------------

QUERIES = ["lighthouse keeper storm", "Margaret Hale harbour", "the lamp was lit at night", "Captain Vance"]


def _fresh_chunks(lake: Path) -> list[Any]:
    """The chunks table read with delta-rs in the tests' own way, in book order, as ``Chunk`` objects."""
    from tools.retrieval.chunks import Chunk

    titles = dict(zip(read(lake, "documents").doc_id, read(lake, "documents").title, strict=True))
    rows = read(lake, "chunks").sort_values(["doc_id", "chunk_index"])
    return [
        Chunk(r.chunk_id, r.doc_id, int(r.chunk_index), r.unit_id, int(r.unit_index), r.unit_kind or "",
              r.unit_title or "", r.part_title or "", int(r.start), int(r.end), r.text, titles[r.doc_id] or "")
        for r in rows.itertuples()
    ]


def _fail_if_called(name: str) -> Any:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"{name} was called: the chat side rebuilt what the pipeline built")

    return fail


def test_index_stage_builds_the_files_the_chat_side_loads_without_rebuilding(
    sample_run: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tools.retrieval import chunks as retrieval
    from tools.retrieval.analyzer import Analyzer
    from tools.retrieval.bm25 import BM25Index

    lake = sample_run.lake
    report = next(s for s in sample_run.first.stages if s.stage == "index")
    assert report.status == "succeeded"
    expected = [f"bm25-en-f{retrieval.INDEX_FORMAT}-v{version(lake, 'chunks')}.npz"]
    assert sorted(sample_run.index_files) == expected == report.details["files"]
    chunks = [c for c in _fresh_chunks(lake) if c.unit_kind not in NON_PROSE_UNIT_KINDS]  # the index: prose only
    analyzer = Analyzer("en")
    terms = {term for c in chunks for term in analyzer.terms(c.text)}
    assert report.counts == {"chunks": len(chunks), "terms": len(terms), "vectors": 0}
    # The chat side's loader finds the prebuilt file: building or saving an index would fail this test.
    monkeypatch.setattr(BM25Index, "build", classmethod(_fail_if_called("BM25Index.build")))
    monkeypatch.setattr(retrieval, "_save_index", _fail_if_called("_save_index"))
    loaded = retrieval.ChunkRetriever.from_lakehouse(Lakehouse.for_root(lake), "en")
    assert _index_files(lake) == sample_run.index_files
    monkeypatch.undo()
    fresh = retrieval.ChunkRetriever.from_chunks(chunks, "en")
    assert [c.chunk_id for c in loaded.chunks] == [c.chunk_id for c in chunks]
    for query in QUERIES:
        prebuilt = [(h.chunk.chunk_id, round(h.score, 9)) for h in loaded.search(query, k=8)]
        assert prebuilt, query
        assert prebuilt == [(h.chunk.chunk_id, round(h.score, 9)) for h in fresh.search(query, k=8)], query


def test_r_ing_2_markers_record_the_run(sample_run: SimpleNamespace) -> None:
    import json

    for stage in ("documents", "chunks", "index", "mentions", "entities", "cooccurrences", "graph"):
        marker = json.loads((sample_run.lake / "_markers" / stage / "_SUCCESS").read_text())
        assert marker["run_id"] == sample_run.first.run_id
        assert marker["counts"] == next(s.counts for s in sample_run.first.stages if s.stage == stage)
        assert {"pyspark", "spacy", "python"} <= set(marker["versions"])
        assert marker["config_fingerprint"] and marker["input_fingerprint"] and marker["output_fingerprint"]


@pytest.mark.skipif(dense_unavailable() is not None, reason=str(dense_unavailable()))
def test_index_stage_dense_model_turned_on_later_reruns_only_the_index(
    spark: Any, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import numpy as np

    from ingestion.domains.generic import GenericNERIngestionTool
    from tools.ingestion import IngestionRequest
    from tools.retrieval import chunks as retrieval
    from tools.retrieval.dense import load_encoder

    corpus = _corpus(tmp_path, "harbour_notes.txt")
    lake = tmp_path / "lake"

    def run(settings: Any) -> tuple[Any, RecordingProgress]:
        tool, progress = GenericNERIngestionTool(), RecordingProgress()
        tool.set_settings(settings)
        tool.set_spark_session(spark)
        tool.set_progress(progress)
        # the index needs only the chunks: the NER stages are left out to keep the test short
        request = IngestionRequest(inputs=[str(corpus)], stages=["documents", "chunks", "index"])
        return tool.execute_ingestion(request), progress

    plain, _ = run(make_settings())
    assert plain.status == "succeeded", plain
    bm25_files = _index_files(lake)
    dense_settings = make_settings(retrieval={"dense_model": DENSE_MODEL})
    dense, progress = run(dense_settings)
    assert [(s.stage, s.status) for s in dense.stages] == [
        ("documents", "skipped"), ("chunks", "skipped"), ("index", "succeeded")]
    n_chunks = len(read(lake, "chunks"))
    report = dense.stages[-1]
    assert report.counts["vectors"] == report.counts["chunks"] == n_chunks
    assert report.details["dense_model"] == DENSE_MODEL
    calls = [c for c in progress.calls if c[1] == "index"]
    assert calls[0] == ("start", "index", (n_chunks, "chunks"))
    assert sum(c[2] for c in calls if c[0] == "advance") == n_chunks
    assert calls[-1] == ("finish", "index", None)
    # the BM25 file of this chunks version was kept, the vector file added beside it
    files = _index_files(lake)
    assert {name: files[name] for name in bm25_files} == bm25_files
    encoder = load_encoder(DENSE_MODEL)
    (vector_file,) = set(files) - set(bm25_files)
    assert vector_file == f"dense-{encoder.model_id}-f{retrieval.DENSE_FORMAT}-v{version(lake, 'chunks')}.npz"
    # The chat side with the same model loads the vectors: embedding a single chunk would fail the test.
    monkeypatch.setattr(retrieval, "_embed", _fail_if_called("_embed"))
    loaded = retrieval.ChunkRetriever.from_lakehouse(Lakehouse.for_root(lake), "en", dense=encoder)
    monkeypatch.undo()
    texts = [c.text for c in _fresh_chunks(lake)]
    expected = encoder(texts)  # the encoder's own output, normalised: what the persisted rows must be
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(loaded._vectors, expected, atol=1e-5)
    again, _ = run(dense_settings)
    assert again.status == "skipped", again
    assert _index_files(lake) == files


def test_index_stage_without_an_analyser_for_the_language_writes_nothing_and_says_why(
    ingest: Any, make_settings: Any, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path, "harbour_notes.txt")
    # Italian has a blank spaCy pipeline but no retrieval analyser; the language check would reject the English text
    settings = make_settings(ner={"language": "it"}, ingestion={"check_language": False})
    result = ingest([corpus], settings=settings, stages=["documents", "chunks", "index"])
    assert result.status == "succeeded", result
    report = result.stages[-1]
    assert (report.stage, report.status) == ("index", "succeeded")
    assert report.counts == {"chunks": 0, "terms": 0, "vectors": 0}
    assert "'it'" in report.details["not_indexed"] and "en" in report.details["not_indexed"]
    assert _index_files(tmp_path / "lake") == {}
    again = ingest([corpus], settings=settings, stages=["documents", "chunks", "index"])
    assert [s.status for s in again.stages] == ["skipped"] * 3


# -- changes, increments, removals ----------------------------------------------------------------------------------


def _corpus(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(SAMPLES / "en" / name, folder / name)
    return folder


def _assert_same_lakehouse(a: Path, b: Path, *, renamed_keep_ids: bool = False) -> None:
    """Every table of ``a`` equals ``b``'s. With ``renamed_keep_ids``, ``a`` grew incrementally and an entity a new
    document renamed kept its previous id there (issue 14, ``ingestion/entity_ids.py``): ``a``'s ids are first
    translated to ``b``'s through the canonical names, and nothing else may differ."""
    translate: dict[str, str] = {}
    if renamed_keep_ids:
        fresh = read(b, "entities").set_index("canonical_name").entity_id
        translate = {row.entity_id: fresh[row.canonical_name] for row in read(a, "entities").itertuples()}
    for table in ALL_TABLES:
        left, right = read(a, table), read(b, table)
        if "source" in left.columns:  # the corpus folders differ by path only
            left, right = left.drop(columns="source"), right.drop(columns="source")
        if translate:
            left = _with_ids(left, translate).sort_values(list(right.columns[:2])).reset_index(drop=True)
            right = right.sort_values(list(right.columns[:2])).reset_index(drop=True)
        assert comparable(left) == comparable(right), table


def _with_ids(frame: Any, translate: dict[str, str]) -> Any:
    frame = frame.copy()
    for column in ("entity_id", "src_id", "dst_id", "speaker_id"):
        if column in frame.columns:
            frame[column] = frame[column].map(lambda i: translate.get(i, i))
    if "addressee_ids" in frame.columns:
        frame["addressee_ids"] = frame["addressee_ids"].map(lambda ids: [translate.get(i, i) for i in ids])
    if "src_id" in frame.columns and "type" not in frame.columns:  # pairs are stored src < dst; a relation is directed
        low = frame[["src_id", "dst_id"]].min(axis=1)
        frame["dst_id"], frame["src_id"] = frame[["src_id", "dst_id"]].max(axis=1), low
    return frame


def test_r_ing_2_changed_setting_redoes_only_affected_stages(
    ingest: Any, make_settings: Any, tmp_path: Path, pipeline_run: Any
) -> None:
    corpus = pipeline_run("harbour_notes.txt").corpus
    changed = ingest([corpus], settings=make_settings(ingestion={"cooccurrence_window": "chunk"}))
    statuses = {s.stage: s.status for s in changed.stages}
    assert statuses == {
        "documents": "skipped",
        "chunks": "skipped",
        "index": "skipped",
        "mentions": "skipped",
        "entities": "skipped",
        "quotes": "skipped",
        "relations": "skipped",
        "cooccurrences": "succeeded",
        "graph": "succeeded",
        "neo4j": "skipped",
    }
    assert set(read(tmp_path / "lake", "cooccurrences").window) == {"chunk"}
    forced = ingest([corpus], settings=make_settings(ingestion={"cooccurrence_window": "chunk"}), force=True)
    assert [s.status for s in forced.stages] == ["succeeded"] * 9 + ["skipped"]  # neo4j: the embedded store


def test_cooccurrence_references_setting_counts_pronouns_too(
    ingest: Any, make_settings: Any, tmp_path: Path, pipeline_run: Any
) -> None:
    """With ``ingestion.cooccurrence_references`` on, only the co-occurrences (and the graph) are redone, and in the
    ``sentence`` window a pair meets in every sentence where a name or a pronoun of each stands — recounted here from
    ``mention_entities`` of every kind; off, from its names."""
    corpus = pipeline_run("harbour_notes.txt").corpus
    window = {"cooccurrence_window": "sentence"}
    ingest([corpus], settings=make_settings(ingestion=window))
    names_only = {(r.src_id, r.dst_id): r.count for r in read(tmp_path / "lake", "cooccurrences").itertuples()}
    changed = ingest([corpus], settings=make_settings(ingestion={**window, "cooccurrence_references": True}))
    assert {s.stage for s in changed.stages if s.status == "succeeded"} == {"cooccurrences", "graph"}
    links = read(tmp_path / "lake", "mention_entities")
    kept = set(read(tmp_path / "lake", "entities").entity_id)

    def recount(rows: Any) -> dict[tuple[str, str], int]:
        by_sentence: dict[str, set[str]] = {}
        for row in rows.itertuples():
            if row.entity_id in kept:
                by_sentence.setdefault(row.sentence_id, set()).add(row.entity_id)
        pairs: Counter[tuple[str, str]] = Counter()
        for entities in by_sentence.values():
            pairs.update((a, b) for a in entities for b in entities if a < b)
        return dict(pairs)

    assert (links.kind != "name").any()
    assert names_only == recount(links[links.kind == "name"])
    with_references = {(r.src_id, r.dst_id): r.count for r in read(tmp_path / "lake", "cooccurrences").itertuples()}
    assert with_references == recount(links)
    assert with_references != names_only


def test_incremental_add_processes_only_new_documents_and_equals_fresh_run(
    ingest: Any, tmp_path: Path, pipeline_run: Any, pipeline_runs: Any, caplog: pytest.LogCaptureFixture
) -> None:
    corpus = pipeline_run("harbour_notes.txt").corpus
    shutil.copy(SAMPLES / "en" / "the_lighthouse_keepers.md", corpus)
    with caplog.at_level("INFO", logger="tools.retrieval.chunks"):
        grown = ingest([corpus])
    assert grown.status == "succeeded", grown
    counts = {s.stage: s.counts for s in grown.stages}
    assert counts["documents"]["added"] == 1 and counts["documents"]["documents"] == 2
    # the file the last run read, unchanged, is not read again (issue 16, item 4)
    assert {s.stage: s.details for s in grown.stages}["documents"]["unchanged_files"] == 1
    assert counts["chunks"]["documents_split"] == 1
    story_chunks = [
        c
        for c in read(tmp_path / "lake", "chunks").itertuples()
        if c.doc_id == _doc_of(tmp_path / "lake", "the_lighthouse_keepers.md")
    ]
    # Its title page and contents are chunks too, but the mentions stage reads prose only (issue 14).
    prose = [c for c in story_chunks if c.unit_kind not in NON_PROSE_UNIT_KINDS]
    assert 0 < len(prose) < len(story_chunks)
    assert counts["mentions"]["chunks_processed"] == len(prose)
    # New chunks, new index: the file of the new chunks table version replaces the old one.
    assert {s.stage: s.status for s in grown.stages}["index"] == "succeeded"
    all_chunks = read(tmp_path / "lake", "chunks")
    assert counts["index"]["chunks"] == int((~all_chunks.unit_kind.isin(NON_PROSE_UNIT_KINDS)).sum())
    chunks_version = version(tmp_path / "lake", "chunks")
    assert sorted(_index_files(tmp_path / "lake")) == [f"bm25-en-f{INDEX_FORMAT}-v{chunks_version}.npz"]
    # A fresh run of the same two files: the session's, which tests copy and never write to.
    fresh = pipeline_runs(*EN_SAMPLE_FILES).lake
    _assert_same_lakehouse(tmp_path / "lake", fresh, renamed_keep_ids=True)
    # the index was extended, only the new chunks analysed (issue 16, item 4), and is the fresh run's index
    assert re.search(rf"BM25 index extended from .*: \d+ chunks kept, {len(prose)} analysed", caplog.text), caplog.text
    grown_index, fresh_index = (
        read_index_file(next((lake / "_index").glob("bm25-*.npz"))) for lake in (tmp_path / "lake", fresh))
    assert grown_index.chunk_ids == fresh_index.chunk_ids and grown_index.spans == fresh_index.spans
    assert grown_index.index.lengths.tolist() == fresh_index.index.lengths.tolist()
    assert grown_index.index.postings == fresh_index.index.postings


def _doc_of(lake: Path, filename: str) -> str:
    docs = read(lake, "documents")
    return docs[docs.source.str.endswith(filename)].doc_id.iloc[0]


def test_incremental_remove_and_change_equal_fresh_run(
    ingest: Any, make_settings: Any, tmp_path: Path, pipeline_run: Any
) -> None:
    corpus = pipeline_run(*EN_SAMPLE_FILES).corpus
    (corpus / "the_lighthouse_keepers.md").unlink()
    notes = corpus / "harbour_notes.txt"
    notes.write_text(
        notes.read_text(encoding="utf-8") + "\nMargaret Hale wrote to Captain Vance again.\n", encoding="utf-8"
    )
    shrunk = ingest([corpus])
    assert shrunk.status == "succeeded", shrunk
    docs = {s.stage: s.counts for s in shrunk.stages}["documents"]
    assert (docs["documents"], docs["added"], docs["removed"]) == (1, 1, 2)
    assert {s.stage: s.details for s in shrunk.stages}["documents"]["unchanged_files"] == 0  # the changed file: read
    assert ingest([corpus], settings=make_settings(lakehouse={"root": tmp_path / "fresh"})).status == "succeeded"
    _assert_same_lakehouse(tmp_path / "lake", tmp_path / "fresh")


def test_issue_16_small_work_done_in_the_driver_writes_the_tables_spark_writes(
    ingest: Any, make_settings: Any, tmp_path: Path, pipeline_runs: Any
) -> None:
    """The samples are small: the session's run read, split and committed them in the driver (delta-rs). The same
    corpus with nothing small enough for the driver (``ingestion.driver_max_chars`` and ``driver_max_delete_bytes``
    0) — Spark's workers read and split, Spark's jobs write — gives the same tables, row for row."""
    from ingestion.lakehouse import LakehouseTables

    run = pipeline_runs(*EN_SAMPLE_FILES)
    corpus = run.restore_corpus()
    samples = sorted(read(run.lake, "documents").doc_id)
    assert LakehouseTables(Lakehouse.for_root(run.lake), None).small_increment(samples)  # type: ignore[arg-type] # no table read by Spark
    assert not LakehouseTables(Lakehouse.for_root(run.lake), None, driver_max_chars=0).small_increment(samples)  # type: ignore[arg-type]
    nothing_in_the_driver = {"driver_max_chars": 0, "driver_max_delete_bytes": 0, "driver_max_ner_words": 0}
    result = ingest([corpus], settings=make_settings(lakehouse={"root": tmp_path / "spark"},
                                                      ingestion=nothing_in_the_driver))
    assert result.status == "succeeded", result
    # the samples' few thousand words went through NER in the driver, here on the Python workers
    ner_in = [report.details["ner_in"] for x in (run.result, result) for report in x.stages
              if report.stage == "mentions"]
    assert ner_in == ["driver", "workers"]
    _assert_same_lakehouse(tmp_path / "spark", run.lake)


def test_same_content_twice_is_one_document(ingest: Any, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, "harbour_notes.txt")
    shutil.copy(corpus / "harbour_notes.txt", corpus / "copy_of_notes.txt")
    result = ingest([corpus], stages=["documents"])
    assert result.status == "succeeded", result
    docs = read(tmp_path / "lake", "documents")
    assert len(docs) == 1 and docs.source.iloc[0].endswith("copy_of_notes.txt")  # the first name, sorted


def test_issue_16_incremental_documents_stage_reads_only_new_and_changed_files(
    ingest: Any, make_settings: Any, tmp_path: Path
) -> None:
    """A library grows a few files at a time: the files the last complete run made documents of, with the size and
    modification time they had then, are not read again (make's rule), and the tables are those of a fresh run — a
    duplicate's name included when the first of two copies goes."""
    import os

    from ingestion.markers import MarkerStore

    corpus = _corpus(tmp_path, "harbour_notes.txt")
    shutil.copy(corpus / "harbour_notes.txt", corpus / "copy_of_notes.txt")  # one document, named by "copy_of_…"
    (corpus / "letter.txt").write_text("Margaret Hale wrote a letter to Captain Vance from the harbour.\n" * 3)
    first = ingest([corpus], stages=["documents"])
    assert first.status == "succeeded" and first.stages[0].counts["documents"] == 2, first

    def documents_run() -> Any:
        result = ingest([corpus], stages=["documents"])
        assert result.status == "succeeded", result
        (report,) = result.stages
        return report

    def same_as_fresh(name: str) -> None:
        fresh = make_settings(lakehouse={"root": tmp_path / name})
        assert ingest([corpus], stages=["documents"], settings=fresh).status == "succeeded"
        for table in ("documents", "rejects"):
            assert comparable(read(tmp_path / "lake", table)) == comparable(read(tmp_path / name, table)), table

    # a file added and one changed in place: those two are read, the two unchanged copies are not
    (corpus / "postscript.txt").write_text("Captain Vance answered Margaret Hale the next morning.\n" * 3)
    (corpus / "letter.txt").write_text("Margaret Hale wrote a long letter to Captain Vance from the quay.\n" * 3)
    report = documents_run()
    assert report.details["unchanged_files"] == 2
    assert (report.counts["documents"], report.counts["added"], report.counts["removed"]) == (3, 2, 1)
    same_as_fresh("fresh1")

    # the first copy's name goes: the document stays, named by the copy that was not read again
    (corpus / "copy_of_notes.txt").unlink()
    report = documents_run()
    assert report.details["unchanged_files"] == 3 and report.counts["updated"] == 1 and report.counts["added"] == 0
    assert sorted(Path(s).name for s in read(tmp_path / "lake", "documents").source) == [
        "harbour_notes.txt", "letter.txt", "postscript.txt"]
    same_as_fresh("fresh2")

    # make's rule, shown: a file rewritten to the same size with its old time is not read (--force reads it), while
    # a file added beside it is
    letter = corpus / "letter.txt"
    before = letter.stat()
    letter.write_text(letter.read_text().replace("quay", "pier"))
    os.utime(letter, ns=(before.st_atime_ns, before.st_mtime_ns))
    (corpus / "epilogue.txt").write_text("Margaret Hale and Captain Vance sailed south in the spring.\n" * 3)
    report = documents_run()
    assert report.details["unchanged_files"] == 3 and report.counts["added"] == 1
    assert "pier" not in " ".join(read(tmp_path / "lake", "documents").text)
    forced = ingest([corpus], stages=["documents"], force=True)
    assert forced.status == "succeeded" and forced.stages[0].details["unchanged_files"] == 0
    assert "pier" in " ".join(read(tmp_path / "lake", "documents").text)

    # a state its marker does not vouch for (a run that crashed after writing it) is not trusted
    markers = MarkerStore(Lakehouse.for_root(tmp_path / "lake"))
    marker = markers.read("documents")
    assert markers.read_state("documents", marker) is not None
    assert markers.read_state("documents", marker.model_copy(update={"run_id": "another"})) is None
    assert markers.read_state("documents", None) is None


# -- bad input ------------------------------------------------------------------------------------------------------


def test_bad_documents_are_rejected_and_the_rest_completes(ingest: Any, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, "harbour_notes.txt")
    (corpus / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    (corpus / "undecodable.txt").write_bytes(b"Margaret walked to the harbour. " * 20 + b"\xff\xfe\xfa bad")
    (corpus / "empty.txt").write_text("   \n\n  ", encoding="utf-8")
    (corpus / "one_line.txt").write_text("word " * 30_000, encoding="utf-8")
    shutil.copy(SAMPLES / "hu" / "a_var_ostroma.txt", corpus / "hungarian.txt")
    result = ingest([corpus])
    assert result.status == "partial", result
    assert result.rejects == 4
    rejects = read(tmp_path / "lake", "rejects")
    reasons = {Path(r.source).name: r.reason for r in rejects.itertuples()}
    assert reasons == {
        "binary.txt": "binary",
        "undecodable.txt": "undecodable",
        "empty.txt": "empty",
        "one_line.txt": "line_too_long",
    }
    assert all(r.detail for r in rejects.itertuples())
    # Not a bad document: the default tool reads each document in its own language (issue 15).
    documents = read(tmp_path / "lake", "documents")
    assert {Path(d.source).name: d.language for d in documents.itertuples()} == {
        "harbour_notes.txt": "en", "hungarian.txt": "hu"}
    assert {s.stage: s.status for s in result.stages} == {
        name: "skipped" if name == "neo4j" else "succeeded" for name in STAGE_NAMES
    }  # neo4j: the embedded graph store is configured


def test_missing_input_fails_clearly_and_damages_nothing(ingest: Any, tmp_path: Path, pipeline_run: Any) -> None:
    corpus = pipeline_run("harbour_notes.txt").corpus
    lake = tmp_path / "lake"
    before = {t: version(lake, t) for t in ALL_TABLES}
    markers = sorted(p.read_text() for p in (lake / "_markers").rglob("_SUCCESS"))
    result = ingest([corpus, tmp_path / "no_such_folder"])
    assert result.status == "failed"
    assert "no_such_folder" in result.reason and "does not exist" in result.reason
    assert {t: version(lake, t) for t in ALL_TABLES} == before
    assert sorted(p.read_text() for p in (lake / "_markers").rglob("_SUCCESS")) == markers


def test_unknown_model_fails_clearly_before_any_work(ingest: Any, make_settings: Any, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, "harbour_notes.txt")
    result = ingest([corpus], settings=make_settings(ner={"model": "xx_no_such_pipeline"}))
    assert result.status == "failed"
    assert "xx_no_such_pipeline" in result.reason and "unknown spaCy pipeline" in result.reason
    assert not (tmp_path / "lake").exists()


def test_unwritable_lakehouse_fails_clearly(ingest: Any, make_settings: Any, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, "harbour_notes.txt")
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder", encoding="utf-8")
    result = ingest([corpus], settings=make_settings(lakehouse={"root": blocker / "lake"}))
    assert result.status == "failed"
    assert "lakehouse root" in result.reason and str(blocker) in result.reason


def test_r_ing_3_unexpected_failure_is_returned_not_raised(
    ingest: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from ingestion.stages.chunks import ChunksStage

    def explode(self: Any, ctx: Any, incremental: bool) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(ChunksStage, "compute", explode)
    result = ingest([_corpus(tmp_path, "harbour_notes.txt")])
    assert result.status == "failed"
    assert result.reason == "stage chunks: RuntimeError: disk on fire"
    assert [(s.stage, s.status) for s in result.stages] == [
        ("documents", "succeeded"),
        ("chunks", "failed"),
        ("index", "not_run"),
        ("mentions", "not_run"),
        ("entities", "not_run"),
        ("quotes", "not_run"),
        ("relations", "not_run"),
        ("cooccurrences", "not_run"),
        ("graph", "not_run"),
        ("neo4j", "not_run"),
    ]
    assert any("stage chunks failed" in r.getMessage() for r in caplog.records)
    assert not (tmp_path / "lake" / "_markers" / "chunks" / "_SUCCESS").exists()


# -- the gold list: the build scores its entity resolution ----------------------------------------------------------

# Read off harbour_notes.txt by hand: the surface forms the text uses for five of its people (12 aliases).
HARBOUR_GOLD = [
    {"canonical_name": "Roderick Vance", "aliases": ["Captain Roderick Vance", "Vance", "Captain Vance"]},
    {"canonical_name": "Margaret Hale", "aliases": ["Miss Margaret Hale", "Miss Hale", "Margaret Hale"]},
    {"canonical_name": "Thomas Pryor", "aliases": ["Thomas Pryor"]},
    {"canonical_name": "Ellen Pryor", "aliases": ["Ellen Pryor", "Miss Pryor"]},
    {"canonical_name": "Arthur Bell", "aliases": ["Dr Arthur Bell", "Dr Bell", "Arthur Bell"]},
]


def _gold_file(path: Path, entities: list[dict[str, Any]]) -> Path:
    import json

    path.write_text(json.dumps({"entities": entities}), encoding="utf-8")
    return path


def _independent_score(lake: Path, gold: Path) -> Any:
    """The written entities table (read with delta-rs) scored against the gold file."""
    from ingestion.resolution import ResolvedEntity
    from ingestion.resolution_eval import load_gold, score_details

    rows = read(lake, "entities")
    entities = [ResolvedEntity(r.entity_id, r.canonical_name, r.label, tuple(r.aliases)) for r in rows.itertuples()]
    return score_details(entities, load_gold(gold))


def test_gold_list_is_scored_by_the_entities_stage_and_reported(
    ingest: Any, make_settings: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture, pipeline_run: Any
) -> None:
    import json
    import logging

    from jobs.common import render_result
    from jobs.status import summarize

    # Built without a gold list: naming one changes the entities stage's settings, so that stage runs from scratch
    # as in a first build with the gold list; only the stages before it, which the list does not concern, are skipped.
    corpus = pipeline_run("harbour_notes.txt").corpus
    lake = tmp_path / "lake"
    gold = _gold_file(tmp_path / "gold.json", HARBOUR_GOLD)
    settings = make_settings(ner={"gold_list": gold})
    with caplog.at_level(logging.INFO, logger="ingestion.stages.entities"):
        first = ingest([corpus], settings=settings)
    assert first.status == "succeeded", first
    report = next(s for s in first.stages if s.stage == "entities").details["gold"]
    expected = _independent_score(lake, gold)
    assert report["gold_aliases"] == 12
    assert report["found_aliases"] == expected.found_aliases >= 1, "the NER found none of the gold aliases"
    assert (report["precision"], report["recall"]) == (expected.precision, expected.recall)
    assert (report["correct_pairs"], report["predicted_pairs"], report["gold_pairs"]) == (
        expected.correct_pairs, expected.predicted_pairs, expected.gold_pairs)
    assert report["path"] == str(gold)
    line = f"entity resolution vs gold {gold}: precision {expected.precision:.3f} recall {expected.recall:.3f} " \
           f"({expected.found_aliases}/12 gold aliases found)"
    assert line in caplog.text
    assert json.loads((lake / "_markers" / "entities" / "_SUCCESS").read_text())["details"]["gold"] == report
    # the run's table, `csillag status`
    assert line in render_result(first, settings) and line in summarize(Lakehouse.for_root(lake))
    # Unchanged: every stage skipped, the report carried over from the marker.
    again = ingest([corpus], settings=settings)
    assert again.status == "skipped"
    assert next(s for s in again.stages if s.stage == "entities").details["gold"] == report
    # Another gold list reruns the entities stage: it changes the report, not the names; the quotes stage makes
    # again the pronoun rows that rewriting mention_entities dropped, and nothing after them changes.
    references = read(lake, "mention_entities").query("kind != 'name'").sort_values("mention_id")
    smaller = _gold_file(tmp_path / "gold_smaller.json", HARBOUR_GOLD[:3])
    changed = ingest([corpus], settings=make_settings(ner={"gold_list": smaller}))
    statuses = {s.stage: s.status for s in changed.stages}
    assert statuses == {"documents": "skipped", "chunks": "skipped", "index": "skipped", "mentions": "skipped",
                        "entities": "succeeded", "quotes": "succeeded", "relations": "skipped",
                        "cooccurrences": "skipped", "graph": "skipped", "neo4j": "skipped"}
    again_references = read(lake, "mention_entities").query("kind != 'name'").sort_values("mention_id")
    assert again_references.reset_index(drop=True).equals(references.reset_index(drop=True))
    new_report = next(s for s in changed.stages if s.stage == "entities").details["gold"]
    assert new_report["gold_aliases"] == 7
    assert new_report["found_aliases"] == _independent_score(lake, smaller).found_aliases
    # No gold list: no report.
    plain = ingest([corpus])
    assert "gold" not in next(s for s in plain.stages if s.stage == "entities").details
    assert {s.stage: s.status for s in plain.stages}["graph"] == "skipped"


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read gold list"),
    ("{not json", "is not valid JSON"),
    ('{"entities": [{"canonical_name": "Vance"}]}', "entity 1: expected"),
    ('{"entities": [{"canonical_name": "A", "aliases": ["Pryor"]}, {"canonical_name": "B", "aliases": ["Pryor"]}]}',
     "listed under both"),
])
def test_bad_gold_list_fails_clearly_before_any_work(
    ingest: Any, make_settings: Any, tmp_path: Path, content: str | None, message: str
) -> None:
    gold = tmp_path / "gold.json"
    if content is not None:
        gold.write_text(content, encoding="utf-8")
    result = ingest([_corpus(tmp_path, "harbour_notes.txt")], settings=make_settings(ner={"gold_list": gold}))
    assert result.status == "failed"
    assert str(gold) in result.reason and message in result.reason
    assert not (tmp_path / "lake").exists()


# -- other input formats --------------------------------------------------------------------------------------------

STORY = (SAMPLES / "en" / "harbour_notes.txt").read_text(encoding="utf-8")


def test_documents_from_jsonl_keep_metadata_and_reject_bad_records(ingest: Any, tmp_path: Path) -> None:
    import json

    jsonl = tmp_path / "docs.jsonl"
    records = [
        {"id": "n1", "text": STORY, "author": "csillag", "title": "Harbour notes"},
        {"id": "n2", "text": "  ", "author": "nobody", "title": "Blank"},
    ]
    jsonl.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    result = ingest([jsonl], stages=["documents"])
    assert result.status == "partial" and result.rejects == 1
    docs = read(tmp_path / "lake", "documents")
    assert len(docs) == 1
    doc = docs.iloc[0]
    assert doc.source == f"{jsonl.resolve()}#n1" and doc.title == "Harbour notes"
    assert dict(doc.metadata) == {"author": "csillag", "title": "Harbour notes"}
    rejects = read(tmp_path / "lake", "rejects")
    assert rejects.source.tolist() == [f"{jsonl.resolve()}#n2"] and rejects.reason.tolist() == ["empty"]


def test_documents_from_parquet_and_delta_tables(ingest: Any, make_settings: Any, tmp_path: Path) -> None:
    import pandas as pd
    from deltalake import write_deltalake

    frame = pd.DataFrame({"id": ["a", "b"], "text": [STORY, STORY.replace("Margaret", "Ellen")]})
    parquet = tmp_path / "table.parquet"
    frame.to_parquet(parquet)
    delta = tmp_path / "delta_table"
    write_deltalake(str(delta), frame)
    for source, lake in ((parquet, tmp_path / "lake_p"), (delta, tmp_path / "lake_d")):
        result = ingest([source], settings=make_settings(lakehouse={"root": lake}), stages=["documents"])
        assert result.status == "succeeded", result
        docs = read(lake, "documents")
        assert sorted(docs.source) == [f"{source.resolve()}#a", f"{source.resolve()}#b"]
        assert sorted(docs.text) == sorted(frame.text)


def test_adding_an_unrelated_document_keeps_entity_ids(ingest: Any, tmp_path: Path, pipeline_run: Any) -> None:
    corpus = pipeline_run("harbour_notes.txt").corpus
    before = read(tmp_path / "lake", "entities").set_index("canonical_name").entity_id.to_dict()
    (corpus / "unrelated.txt").write_text(
        "Professor Ingrid Solberg sailed from Bergen to Reykjavik in March. In Reykjavik, Ingrid Solberg met "
        "Gunnar Olafsson at the harbour office, and Gunnar Olafsson showed Ingrid Solberg the old charts.\n",
        encoding="utf-8",
    )
    assert ingest([corpus], stages=["documents", "chunks", "mentions", "entities"]).status == "succeeded"
    after = read(tmp_path / "lake", "entities").set_index("canonical_name").entity_id.to_dict()
    assert {name: after.get(name) for name in before} == before
    assert set(after) - set(before)  # the new document did add entities


def test_issue_12_every_table_has_the_columns_graph_tables_defines(sample_run: SimpleNamespace) -> None:
    # One column definition per table: what the stages wrote is, name for name, type for type and in order,
    # what graph.tables gives the readers.
    import json

    from deltalake import DeltaTable

    from graph.tables import TABLES

    def neutral(kind: Any) -> str:  # a Delta schema type in graph.tables' spelling
        if isinstance(kind, dict):
            if kind["type"] == "array":
                return f"array<{kind['elementType']}>"
            return f"map<{kind['keyType']},{kind['valueType']}>"
        return {"integer": "int"}.get(kind, kind)

    written = {}
    for table in TABLES:
        fields = json.loads(DeltaTable(str(sample_run.lake / table)).schema().to_json())["fields"]
        written[table] = tuple((f["name"], neutral(f["type"])) for f in fields)
    assert written == {name: spec.columns for name, spec in TABLES.items()}


def test_issue_16_workers_start_early_only_when_a_stage_up_to_theirs_has_work() -> None:
    """``Stage.start_early`` (the mentions stage: its Python workers' start) is begun with the run when that stage or
    one before it has work — a small corpus's first stages run in the driver, so the workers would otherwise start
    only when the first NER batch is ready — never when everything up to it is up to date, and a failing check only
    loses the head start."""
    import threading

    from ingestion.stage import Stage
    from ingestion.startup import SparkStartup
    from tools.ingestion import StageReport

    begun: list[str] = []

    class Fake(Stage):
        name = "fake"
        tables = ("t",)
        version = 1

        def __init__(self, name: str, work: bool | None, hook: bool = False) -> None:
            self.label, self.work, self.hook = name, work, hook

        def up_to_date(self, ctx: Any) -> StageReport | None:
            if self.work is None:
                raise OSError("the listing failed")
            return None if self.work else StageReport(stage=self.label, status="skipped")

        def start_early(self, ctx: Any) -> threading.Thread | None:
            if not self.hook:
                return None
            begun.append(self.label)
            thread = threading.Thread(target=lambda: None)
            thread.start()
            return thread

        def compute(self, ctx: Any, incremental: bool) -> Any:
            raise AssertionError("not run here")

    def start_early(ctx: Any, stages: list[Fake]) -> list[Any]:
        return SparkStartup(ctx, stages).start_early()

    ctx = SimpleNamespace(force=False, spark=SimpleNamespace(sparkContext=SimpleNamespace(environment={})))
    assert start_early(ctx, [Fake("a", False), Fake("b", False, hook=True)]) == [] and begun == []
    assert len(start_early(ctx, [Fake("a", True), Fake("b", False, hook=True)])) == 1 and begun == ["b"]
    assert start_early(ctx, [Fake("a", None), Fake("b", False, hook=True)]) == [] and begun == ["b"]
    forced = SimpleNamespace(force=True, spark=ctx.spark)
    assert len(start_early(forced, [Fake("a", False), Fake("b", False, hook=True)])) == 1


@pytest.mark.parametrize("started", [True, False])
def test_issue_16_later_stages_reuse_the_worker_daemon_the_run_started_and_only_that(started: bool) -> None:
    """Spark starts one Python daemon per worker environment. The stages after the mentions stage make their Python
    functions with its environment when this run started its daemon (they fork from it instead of starting one,
    ~1 s), and without it when it did not (a run whose NER had nothing to do must not start a daemon that preloads
    the NER pipeline for the later stages' small tasks)."""
    from unittest.mock import patch

    from ingestion.pipeline import run_stages
    from ingestion.worker_daemon import PRELOAD_ENV
    from tools.ingestion import StageReport

    seen: dict[str, dict[str, str]] = {}

    class Recording:
        def __init__(self, name: str, environment: dict[str, str], starts: bool = False) -> None:
            self.name, self.environment, self.starts = name, environment, starts

        def worker_environment(self, ctx: Any) -> dict[str, str]:
            return self.environment

        def run(self, ctx: Any) -> Any:
            seen[self.name] = dict(ctx.spark.sparkContext.environment)
            if self.starts:
                ctx.started_worker_environment.update(self.environment)
            return StageReport(stage=self.name, status="succeeded")

    preload = {PRELOAD_ENV: "en"}  # the mentions stage's: the pipeline its daemon preloads
    ctx = SimpleNamespace(spark=SimpleNamespace(sparkContext=SimpleNamespace(environment={})),
                          started_worker_environment={}, settings=None, ner_pool=None)
    stages = [Recording("documents", {}), Recording("mentions", preload, starts=started), Recording("entities", {})]
    with patch("ingestion.pipeline.settle_corpus_language"):
        outcome = run_stages(ctx, stages)  # type: ignore[arg-type]
    assert outcome.error is None, outcome.error
    assert seen["documents"] == preload and seen["mentions"] == preload  # their tasks start the one daemon
    assert seen["entities"] == (preload if started else {})
    assert ctx.spark.sparkContext.environment == {}  # restored after each stage
