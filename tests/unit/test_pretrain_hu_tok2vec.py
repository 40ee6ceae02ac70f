"""scripts/pretrain_hu_tok2vec.py and train_hu_ner.py --init-tok2vec: the pretraining text, a real ``spacy pretrain``
on it, and a training config that starts its tok2vec from the weights written.

Everything runs on crafted inputs (a few paragraphs, one epoch, no static vectors: seconds); spaCy's ``train`` is
replaced by a recorder, and the pipeline it would train is built and initialised from the recorded config.
"""

from __future__ import annotations

import json
import lzma
from pathlib import Path
from typing import Any

import pytest

from tests.unit.repo_files import load_module

pretrain_script = load_module("scripts/pretrain_hu_tok2vec.py")
train_script = load_module("scripts/train_hu_ner.py")

PARAGRAPHS = [
    "Dobó István a bástyán állt, és nézte a török tábort a völgyben.",
    "Gergely deák hallgatott, aztán a kapitányhoz fordult, és halkan beszélt.",
    "Az egri vár falai alatt ezer sátor fehérlett a hajnali ködben.",
    "Cecey Éva levelet írt Budára, de a futár nem tért vissza soha.",
]


def _novels(folder: Path, lines: list[str]) -> Path:
    """The lines as hu_novels is stored: one xz stream split in two parts."""
    data = lzma.compress(("\n".join(lines) + "\n").encode("utf-8"))
    folder.mkdir()
    (folder / "hu_novels.txt.xz.part0").write_bytes(data[:10])
    (folder / "hu_novels.txt.xz.part1").write_bytes(data[10:])
    return folder


def _nerkor_train(folder: Path) -> Path:
    genre = folder / "fiction"
    genre.mkdir(parents=True)
    rows = [("Bornemissza", "B-PER"), ("Gergely", "I-PER"), ("Egerbe", "B-LOC"), ("ment", "O"), (".", "O")]
    body = "".join(f"{form}\t{form}\tX\tX\t_\t{tag}\t{form}\n" for form, tag in rows)
    (genre / "a.conllup").write_text("# global.columns = FORM LEMMA UPOS XPOS FEATS CONLL:NER EMMORPH:LEMMA\n"
                                     + body, encoding="utf-8")
    return folder


def test_write_text_takes_nerkor_train_and_every_nth_paragraph(tmp_path: Path) -> None:
    lines = [f"{n}. bekezdés: {text}" for n, text in enumerate(PARAGRAPHS * 3)]
    target = tmp_path / "text.jsonl"
    words = pretrain_script.NOVEL_WORDS // 3  # every third paragraph
    written = pretrain_script.write_text(target, words, novels=_novels(tmp_path / "novels", lines),
                                         nerkor_train=_nerkor_train(tmp_path / "train"))

    texts = [json.loads(line)["text"] for line in target.read_text(encoding="utf-8").splitlines()]
    assert sorted(texts) == sorted(["Bornemissza Gergely Egerbe ment.", *lines[::3]])
    assert written == (5, sum(len(text.split()) for text in texts))


def test_pretraining_config_pretrains_the_ner_configs_tok2vec() -> None:
    from spacy.util import load_config

    config = pretrain_script.pretraining_config(Path("text.jsonl"), Path("vectors"))
    shipped = load_config(pretrain_script.CONFIG)["components"]["tok2vec"]
    shipped["model"]["embed"]["include_static_vectors"] = True
    assert config["components"]["tok2vec"] == shipped
    assert config["pretraining"]["objective"]["@architectures"] == "spacy.PretrainCharacters.v1"
    assert (config["pretraining"]["component"], config["pretraining"]["max_epochs"]) == ("tok2vec", 1)
    assert config["paths"]["vectors"] == "vectors" and config["paths"]["raw_text"] == "text.jsonl"


def test_training_starts_from_the_pretrained_tok2vec(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import spacy.cli.train
    from spacy.training.pretrain import pretrain

    text = tmp_path / "text.jsonl"
    text.write_text("".join(json.dumps({"text": p}, ensure_ascii=False) + "\n" for p in PARAGRAPHS), encoding="utf-8")
    weights = tmp_path / "weights"
    weights.mkdir()
    pretrain(pretrain_script.pretraining_config(text, None).interpolate(), weights)
    pretrained = (weights / "model-last.bin").read_bytes()

    seen: dict[str, Any] = {}
    monkeypatch.setattr(spacy.cli.train, "train",
                        lambda config, run, use_gpu, overrides: seen.update(config=config, overrides=overrides))
    train_script.train(tmp_path / "corpus", tmp_path / "run", 10, None, init_tok2vec=weights / "model-last.bin")
    assert seen["overrides"]["paths.init_tok2vec"] == str(weights / "model-last.bin")

    assert _initialised_tok2vec(seen["config"], seen["overrides"]["paths.init_tok2vec"]) == pretrained
    assert _initialised_tok2vec(seen["config"], None) != pretrained  # random weights without the option


def _initialised_tok2vec(config_path: Path, init_tok2vec: str | None) -> bytes:
    """The tok2vec's weights once the pipeline the config describes is initialised on one example."""
    from spacy.training import Example
    from spacy.util import load_config, load_model_from_config

    overrides = {"paths.train": None, "paths.dev": None, "paths.init_tok2vec": init_tok2vec}
    nlp = load_model_from_config(load_config(config_path, overrides=overrides, interpolate=True), auto_fill=True)
    doc = nlp.make_doc("Dobó István Egerben maradt.")
    example = Example.from_dict(doc, {"entities": ["B-PER", "L-PER", "U-LOC", "O", "O"]})
    nlp.initialize(lambda: [example])
    return bytes(nlp.get_pipe("tok2vec").model.to_bytes())
