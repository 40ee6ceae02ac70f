"""scripts/train_hu_ner.py --set: each KEY=VALUE reaches spaCy's training as a config override, numbers as numbers.

spaCy's ``train`` is replaced by a recorder (no training runs); the overrides are then applied to the checked-in
config with spaCy's own loader, so a key that is not in the config would fail here as it would in a real run.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from tests.unit.repo_files import load_module

ROOT = Path(__file__).resolve().parents[2]


script = load_module("scripts/train_hu_ner.py")


def test_set_values_are_read_as_json_when_they_parse() -> None:
    assert script._override("components.tok2vec.model.encode.width=256") == (
        "components.tok2vec.model.encode.width", 256)
    assert script._override("training.dropout=0.2") == ("training.dropout", 0.2)
    assert script._override("nlp.lang=hu") == ("nlp.lang", "hu")
    with pytest.raises(argparse.ArgumentTypeError, match="KEY=VALUE"):
        script._override("width")


def test_set_overrides_reach_the_training_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import spacy.cli.train
    from spacy.util import load_config

    seen: dict[str, Any] = {}
    monkeypatch.setattr(spacy.cli.train, "train", lambda config, run, use_gpu, overrides: seen.update(overrides))
    extra = dict([script._override("components.tok2vec.model.encode.width=256")])
    script.train(tmp_path / "corpus", tmp_path / "run", 4000, None, extra)

    assert seen["components.tok2vec.model.encode.width"] == 256 and seen["training.max_steps"] == 4000
    config = load_config(script.CONFIG, overrides=seen, interpolate=True)
    assert config["components"]["tok2vec"]["model"]["encode"]["width"] == 256
    assert config["components"]["ner"]["model"]["tok2vec"]["width"] == 256  # the listener follows the encoder


def test_place_flag_adds_the_gazetteer_attribute_and_its_callback(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    import spacy.cli.train
    from spacy.util import load_config, load_model_from_config

    seen: dict[str, Any] = {}
    monkeypatch.setattr(spacy.cli.train, "train", lambda config, run, use_gpu, overrides: seen.update(overrides))
    script.train(tmp_path / "corpus", tmp_path / "run", 4000, None, place_flag=True)

    config = load_config(script.CONFIG, overrides=seen, interpolate=False)
    embed = config["components"]["tok2vec"]["model"]["embed"]
    assert embed["attrs"] == ["NORM", "PREFIX", "SUFFIX", "SHAPE", "FLAG40"] and embed["rows"][-1] == 64
    nlp = load_model_from_config(config, auto_fill=True)  # the callback installs the flag as the pipeline is made
    doc = nlp.make_doc("Gergely Egerbe ment")
    assert doc.to_array(["FLAG40"]).tolist() == [0, 1, 0]
    tok2vec = nlp.get_pipe("tok2vec")
    tok2vec.model.initialize(X=[doc])
    assert tok2vec.predict([doc])[0].shape == (3, 128)  # the five-attribute embedding runs
