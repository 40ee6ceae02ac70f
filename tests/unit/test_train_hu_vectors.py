"""scripts/train_hu_vectors.py: its defaults are the shipped model's vectors, and its corpus reader keeps NerKor's
tokens (column 1) one sentence a line, comments and other columns dropped.

No floret training runs here (it takes tens of minutes); the shipped ``hu_nerkor``'s vectors table is read as spaCy
loads it.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.repo_files import load_module

ROOT = Path(__file__).resolve().parents[2]


script = load_module("scripts/train_hu_vectors.py")


def test_defaults_are_the_shipped_models_vectors() -> None:
    from spacy.vectors import Vectors

    model = ROOT / "ingestion" / "models" / "hu_nerkor"
    vectors = Vectors().from_disk(model / "vocab")
    assert vectors.mode == "floret"
    assert vectors.shape == (script.BUCKET, script.DIM)
    assert json.loads((model / "meta.json").read_text(encoding="utf-8"))["vectors"]["width"] == script.DIM


def test_nerkor_sentences_are_the_token_column_one_sentence_a_line(tmp_path: Path) -> None:
    genre = tmp_path / "fiction"
    genre.mkdir()
    (genre / "a.conllup").write_text(
        "# global.columns = FORM LEMMA UPOS\n# text = Dobó István Egerbe ment.\n"
        "Dobó\tDobó\tPROPN\nIstván\tIstván\tPROPN\nEgerbe\tEger\tPROPN\nment\tmegy\tVERB\n.\t.\tPUNCT\n\n"
        "Gergely\tGergely\tPROPN\nnevetett\tnevet\tVERB\n",
        encoding="utf-8",
    )
    assert list(script.nerkor_sentences(tmp_path)) == ["Dobó István Egerbe ment .", "Gergely nevetett"]
