"""The whole pipeline against plain spaCy NER on the same novel, in one run (target: "≤ 1.3× plain NER").

    .venv/bin/python bench/bench_fixed_costs.py [--corpus ../shared/corpora/war_and_peace.txt] [--lake DIR]
                                                [--repeat N] [--no-warmup]

1. Plain NER: the default English pipeline (``ingestion.nlp.build_nlp``, the one the mentions stage loads) over the
   chunks the pipeline would make, ``nlp.pipe(n_process=2)`` — NER only, nothing written.
2. The whole pipeline from scratch, as a user runs it: ``./spark-submit.sh pipeline CORPUS --lakehouse DIR``, wall
   clock of the command, and each stage's seconds from its ``--result-file``.
3. The same command again with everything up to date.

Before them, one untimed run over the bundled samples warms the page cache for the command (``--no-warmup``: not).
Prints the three and the ratio of 2 to 1. ``--repeat N`` measures 1 and 2 N times, alternating, and prints each
ratio and their median: on a shared two-core machine one pair can be 20 % apart from the next. Never a test: it
measures and prints (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "war_and_peace.txt"


def plain_ner(corpus: Path) -> tuple[float, int]:
    """Seconds and words of plain ``nlp.pipe(n_process=2)`` with the default English pipeline over the chunks."""
    from bench_mentions import plain, prepare_chunks

    from ingestion.language_models import default_pipeline

    chunks = prepare_chunks(corpus, None)
    pipeline = default_pipeline("en")
    assert pipeline is not None  # csillag ships an English model
    seconds, *_ = plain(chunks, 2, 64, pipeline.model)
    return seconds, sum(len(c.split()) for c in chunks)


def submit(corpus: Path, lake: Path, result: Path) -> float:
    """Wall seconds of ``./spark-submit.sh pipeline`` (exit 0 required)."""
    env = dict(os.environ, CSILLAG_NO_BOOTSTRAP="1", CSILLAG_VENV=str(Path(sys.executable).parent.parent),
               PYSPARK_PYTHON=sys.executable)
    from bench_rerun import timed  # the benches' one timed-subprocess helper

    command = [str(ROOT / "spark-submit.sh"), "pipeline", str(corpus), "--lakehouse", str(lake), "--quiet",
               "--result-file", str(result)]
    return timed(command, env)


def main() -> int:
    """Measure the three and print them."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--lake", type=Path, default=Path("/tmp/csillag-bench-fixed"))
    parser.add_argument("--repeat", type=int, default=1, help="pairs of (plain NER, whole pipeline) to measure")
    parser.add_argument("--no-warmup", action="store_true",
                        help="time the first pipeline run with csillag's libraries cold in the page cache")
    args = parser.parse_args()
    if not args.corpus.exists():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    result = args.lake.parent / (args.lake.name + "-result.json")
    if not args.no_warmup:
        # Plain NER runs in this process, its libraries loaded before its timer starts; the pipeline is a command
        # whose first run after a while reads pyarrow's, delta-rs's and csillag's files from disk (the first pair's
        # time outside the stages: 2.0-2.6 s, against 1.0-1.2 s for the next). One run over the bundled samples,
        # not timed, puts both sides on warm files.
        scratch = args.lake.parent / (args.lake.name + "-warmup")
        shutil.rmtree(scratch, ignore_errors=True)
        warm = submit(ROOT / "ingestion" / "samples" / "en", scratch, result)
        shutil.rmtree(scratch, ignore_errors=True)
        print(f"warm-up over the bundled English samples: {warm:.1f} s (not counted)", flush=True)
    ratios = []
    for number in range(1, args.repeat + 1):
        ner_seconds, words = plain_ner(args.corpus)
        rate = words / ner_seconds
        print(f"[{number}] plain NER, nlp.pipe(n_process=2): {ner_seconds:.1f} s ({words:,} words, "
              f"{rate:,.0f} words/s)", flush=True)
        if args.lake.exists():
            shutil.rmtree(args.lake)
        whole = submit(args.corpus, args.lake, result)
        stages = {s["stage"]: s["seconds"] for s in json.loads(result.read_text())["stages"]}
        ratios.append(whole / ner_seconds)
        print(f"[{number}] whole pipeline, ./spark-submit.sh: {whole:.1f} s wall = {whole / ner_seconds:.2f}× plain "
              "NER; stages: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in stages.items()), flush=True)
        print(f"    outside the stages (JVM, session, checks, publish): {whole - sum(stages.values()):.1f} s",
              flush=True)
    if args.repeat > 1:
        print(f"ratios: {', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}×", flush=True)
    again = submit(args.corpus, args.lake, result)
    print(f"up-to-date rerun, ./spark-submit.sh: {again:.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
