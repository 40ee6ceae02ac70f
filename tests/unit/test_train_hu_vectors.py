"""scripts/train_hu_vectors.py: its defaults are the shipped model's vectors, and its corpus reader keeps NerKor's
tokens (column 1) one sentence a line, comments and other columns dropped.

No floret training runs here (it takes tens of minutes); the shipped ``hu_nerkor``'s vectors table is read as spaCy
loads it.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _load_script() -> Any:
    spec = importlib.util.spec_from_file_location("train_hu_vectors", ROOT / "scripts" / "train_hu_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("train_hu_vectors", module)
    spec.loader.exec_module(module)
    return module


script = _load_script()


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
