#!/usr/bin/env python
"""Pretrain the Hungarian NER's tok2vec on raw Hungarian text with ``spacy pretrain`` (characters objective).

    .venv/bin/python scripts/pretrain_hu_tok2vec.py --work DIR [--words 3000000] [--epochs 1]
    .venv/bin/python scripts/train_hu_ner.py --init-tok2vec DIR/model-last.bin …

Writes ``<work>/text.jsonl``: NerKor train's texts (never devel) as running text, ten sentences a line, and every
n-th paragraph of ``../shared/data/hu_novels`` (n chosen so that about ``--words`` words of the novels are taken,
from every novel), shuffled; then pretrains the tok2vec of ``conf/training/hu_nerkor.cfg`` — the same architecture,
the floret vectors as static vectors — to predict each word's first and last four characters
(``spacy.PretrainCharacters.v1``). Weights go to ``<work>/weights`` (``model<epoch>.bin``, ``model-last.bin``,
``log.jsonl``); the console shows the loss every 10,000 words. The text is never shipped.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from ingestion.training.nerkor import docs_from_split  # noqa: E402

CONFIG = ROOT / "conf" / "training" / "hu_nerkor.cfg"
SHARED = ROOT.parent / "shared" / "data"
VECTORS = ROOT / ".cache" / "training" / "hu_vectors" / "vectors"
NOVEL_WORDS = 30_562_503  # whitespace-separated words of hu_novels (its README)


def write_text(target: Path, words: int, *, novels: Path = SHARED / "hu_novels",
               nerkor_train: Path = SHARED / "nerkor" / "train", seed: int = 0) -> tuple[int, int]:
    """NerKor train's texts and every n-th novel paragraph as shuffled ``{"text": …}`` lines; (lines, words).

    Raises:
        FileNotFoundError: the novels or NerKor train are missing.
    """
    import spacy
    from train_hu_vectors import novel_lines

    if not nerkor_train.is_dir():
        raise FileNotFoundError(f"no NerKor train folder at {nerkor_train}")
    texts = [doc.text for doc in docs_from_split(spacy.blank("hu").vocab, nerkor_train)]
    stride = max(1, round(NOVEL_WORDS / max(words, 1)))
    texts += [line.strip() for n, line in enumerate(novel_lines(novels)) if n % stride == 0 and line.strip()]
    random.Random(seed).shuffle(texts)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as out:
        for text in texts:
            out.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
    return len(texts), sum(len(text.split()) for text in texts)


def pretraining_config(text: Path | None, vectors: Path | None, *, epochs: int = 1,
                       save_every: int | None = None) -> Any:  # noqa: ANN401 - thinc.Config
    """The NER training config with spaCy's default ``[pretraining]`` block: the tok2vec is pretrained (and later
    initialised) exactly as the NER trains it, with ``vectors`` as its static vectors when given."""
    from spacy.language import DEFAULT_CONFIG_PRETRAIN_PATH
    from spacy.util import load_config

    config = load_config(DEFAULT_CONFIG_PRETRAIN_PATH).merge(load_config(CONFIG))
    config["paths"]["raw_text"] = str(text) if text is not None else None
    config["paths"]["vectors"] = str(vectors) if vectors is not None else None
    config["components"]["tok2vec"]["model"]["embed"]["include_static_vectors"] = vectors is not None
    config["pretraining"]["max_epochs"] = epochs
    config["pretraining"]["n_save_every"] = save_every
    return config


def main(argv: list[str] | None = None) -> int:
    """Text, then ``spacy pretrain``; 2 when the shared data or the vectors are missing."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, required=True, help="text and weights (large: keep it out of the repo)")
    parser.add_argument("--words", type=int, default=3_000_000, help="about this many words of the novels")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--save-every", type=int, default=None, help="also save weights every N batches")
    parser.add_argument("--vectors", type=Path, default=VECTORS, help="the NER's static vectors (spaCy folder)")
    parser.add_argument("--no-vectors", action="store_true", help="a tok2vec without static vectors")
    args = parser.parse_args(argv)
    vectors = None if args.no_vectors else args.vectors
    if vectors is not None and not (vectors / "vocab" / "vectors").is_file():
        print(f"no spaCy vectors folder at {vectors} (scripts/train_hu_vectors.py builds it)", file=sys.stderr)
        return 2
    text = args.work / "text.jsonl"
    started = time.perf_counter()
    if not text.exists():
        try:
            lines, words = write_text(text, args.words)
        except FileNotFoundError as error:
            print(error, file=sys.stderr)
            return 2
        print(f"text: {lines:,} lines, {words:,} words in {time.perf_counter() - started:.0f}s", flush=True)
    from spacy.training.pretrain import pretrain

    weights = args.work / "weights"
    weights.mkdir(parents=True, exist_ok=True)
    config = pretraining_config(text, vectors, epochs=args.epochs, save_every=args.save_every)
    config.to_disk(weights / "config.cfg")
    began = time.perf_counter()
    pretrain(config.interpolate(), weights, silent=False)
    print(f"pretrained in {time.perf_counter() - began:.0f}s: {weights / 'model-last.bin'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
