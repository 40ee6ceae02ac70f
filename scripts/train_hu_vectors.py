#!/usr/bin/env python
"""Train Hungarian floret word vectors from the Hungarian novels and NerKor's train text, for the Hungarian NER.

    .venv/bin/python scripts/train_hu_vectors.py [--dim 100] [--bucket 50000] [--epoch 3] [--work DIR]

The defaults are the vectors of the shipped ``hu_nerkor`` (about 21 min on two cores); ``scripts/train_hu_ner.py``
calls ``build`` with them when its vectors folder is missing.

Reads ``../shared/data/hu_novels/hu_novels.txt.xz.part*`` (606 public-domain novels, 30.6 million words) and the
tokens of ``../shared/data/nerkor/train`` (never devel), writes one tokenised line per paragraph to
``<work>/corpus.txt`` (punctuation split off, case kept: names are capitalised), trains floret (skipgram, subword
n-grams 4–5 hashed into ``--bucket`` rows, two hashes per n-gram) and writes ``<work>/vectors.floret`` and the spaCy
vectors folder ``<work>/vectors`` (``spacy init vectors hu … --mode floret``), which ``scripts/train_hu_ner.py
--vectors`` takes. The text is never shipped; the vectors may be (a table of ``bucket × dim`` floats).

Needs the ``train`` extra (floret). Prints its times; run it with ``nice`` on a shared machine.
"""

from __future__ import annotations

import argparse
import lzma
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
NOVELS = SHARED / "hu_novels"
NERKOR_TRAIN = SHARED / "nerkor" / "train"
WORK = ROOT / ".cache" / "training" / "hu_vectors"
_TOKEN = re.compile(r"\w+(?:[-'’.]\w+)*|[^\w\s]")


def novel_lines(folder: Path = NOVELS) -> Iterator[str]:
    """The novels' paragraphs, decompressed from the split xz stream."""
    parts = sorted(folder.glob("hu_novels.txt.xz.part*"))
    if not parts:
        raise FileNotFoundError(f"no hu_novels.txt.xz.part* in {folder}")
    reader = subprocess.Popen(["cat", *map(str, parts)], stdout=subprocess.PIPE)
    assert reader.stdout is not None
    with lzma.open(reader.stdout, "rt", encoding="utf-8") as text:
        yield from (str(line) for line in text)  # a text-mode stream: lines are str
    reader.wait()


def nerkor_sentences(folder: Path = NERKOR_TRAIN) -> Iterator[str]:
    """NerKor train's sentences, tokens joined by spaces (its CoNLL-U-Plus-like files: the token is column 1)."""
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        tokens: list[str] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                if tokens:
                    yield " ".join(tokens)
                tokens = []
            elif not line.startswith("#"):
                tokens.append(line.split("\t")[0])
        if tokens:
            yield " ".join(tokens)


def write_corpus(target: Path) -> tuple[int, int]:
    """Tokenised lines of the novels and of NerKor train into ``target``; (lines, tokens)."""
    lines = tokens = 0
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as out:
        for source in (novel_lines(), nerkor_sentences()):
            for line in source:
                words = _TOKEN.findall(line)
                if words:
                    out.write(" ".join(words) + "\n")
                    lines += 1
                    tokens += len(words)
    return lines, tokens


DIM, BUCKET, EPOCH = 100, 50_000, 3  # the shipped model's vectors: 20 MB, measured in docs/decisions/0022


def main(argv: list[str] | None = None) -> int:
    """Corpus, floret, spaCy vectors; 2 when the shared data or floret is missing."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--dim", type=int, default=DIM)
    parser.add_argument("--bucket", type=int, default=BUCKET)
    parser.add_argument("--epoch", type=int, default=EPOCH)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    try:
        build(args.work, dim=args.dim, bucket=args.bucket, epoch=args.epoch, threads=args.threads)
    except (FileNotFoundError, ImportError) as error:
        print(error, file=sys.stderr)
        return 2
    return 0


def build(work: Path = WORK, *, dim: int = DIM, bucket: int = BUCKET, epoch: int = EPOCH, threads: int = 2) -> Path:
    """Write the corpus (once), train floret and convert its vectors; the spaCy vectors folder ``<work>/vectors``.

    Raises:
        FileNotFoundError: the shared novels or NerKor train are missing.
        ImportError: floret is not installed (the ``train`` extra).
    """
    if not NOVELS.is_dir() or not NERKOR_TRAIN.is_dir():
        raise FileNotFoundError(f"needs {NOVELS} and {NERKOR_TRAIN} (the shared data)")
    try:
        import floret
    except ImportError as error:
        raise ImportError("needs floret: pip install -e '.[train]'") from error
    corpus = work / "corpus.txt"
    started = time.perf_counter()
    if not corpus.exists():
        lines, tokens = write_corpus(corpus)
        print(f"corpus: {lines:,} lines, {tokens:,} tokens in {time.perf_counter() - started:.0f}s", flush=True)
    began = time.perf_counter()
    model = floret.train_unsupervised(
        str(corpus), model="skipgram", mode="floret", hashCount=2, bucket=bucket, minn=4, maxn=5,
        dim=dim, epoch=epoch, minCount=5, thread=threads,
    )
    floret_file = work / "vectors.floret"
    model.save_floret_vectors(str(floret_file))
    print(f"floret: dim {dim}, {bucket:,} buckets, {epoch} epochs in {time.perf_counter() - began:.0f}s", flush=True)
    subprocess.run([sys.executable, "-m", "spacy", "init", "vectors", "hu", str(floret_file),
                    str(work / "vectors"), "--mode", "floret"], check=True)
    print(f"done in {time.perf_counter() - started:.0f}s: {work / 'vectors'}", flush=True)
    return work / "vectors"


if __name__ == "__main__":
    sys.exit(main())
