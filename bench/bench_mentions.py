"""Benchmark: the Spark mentions stage vs plain spaCy on War and Peace (NER-only English pipeline, `--model`), or
with ``--language hu`` on Egri csillagok (the Hungarian default pipeline, no character list).

In one run, over the same chunks (the chunks stage's own output):
  1. plain ``nlp.pipe`` in one process            → the single-process speed s1
  2. plain ``nlp.pipe(n_process=2)``               → the plain-spaCy peer p2
  3. the Spark ``mentions`` stage on local[2]      → csillag's speed: the stage of a pipeline run (documents, chunks,
     index, mentions) in a fresh session; then, for reference, the stage alone in a new session, whose first task
     starts the Python workers and loads the model (the plain runs load theirs before the clock starts)
and prints words/s of each, the ratios (Spark / p2, Spark / 2·s1 — the linear-scaling limit), and the Spark Python
workers' memory during the stage: the growth of each worker's peak RSS (the kernel's high-water mark) from the first
fifth of the stage to its end (the vocabulary cache is bounded, ``ner.cached_words``, so it stays flat).

    .venv/bin/python bench/bench_mentions.py [--corpus ../shared/corpora/war_and_peace.txt] [--limit-words N]
        [--memory-trace FILE] [--model en_core_web_sm] [--language en|hu]

Never a test: it measures and prints. Record the figures in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPORA = ROOT.parent / "shared" / "corpora"
DEFAULT_CORPUS = {"en": CORPORA / "war_and_peace.txt", "hu": CORPORA / "egri_csillagok.txt"}
# The language of the corpus (--language): its chunking presets, its pipeline, pinned for the Spark run.
LANGUAGE = "en"
# The English pipeline measured (--model; default: the English default of ingestion/language_models.py).
MODEL = "en_core_web_sm"


class WorkerSampler(threading.Thread):
    """Samples RSS and CPU time of every Spark Python process (children of this process's JVM) twice a second."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: dict[int, list[tuple[float, int, float]]] = {}
        # The kernel's peak RSS of each process so far (VmHWM): the true peak, which samples of an RSS that swings
        # by ~90 MiB within a second (each batch's arrays, freed after it) can only estimate.
        self.high_water: dict[int, list[tuple[float, int]]] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        me = psutil.Process()
        while not self.stop.is_set():
            now = time.perf_counter()
            for proc in me.children(recursive=True):
                try:
                    cmd = " ".join(proc.cmdline())
                    if "pyspark.daemon" in cmd or "pyspark.worker" in cmd:
                        cpu = proc.cpu_times()
                        rss = proc.memory_info().rss
                        self.samples.setdefault(proc.pid, []).append((now, rss, cpu.user + cpu.system))
                        self.high_water.setdefault(proc.pid, []).append((now, _high_water(proc.pid)))
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    continue
            self.stop.wait(0.5)


def _high_water(pid: int) -> int:
    """VmHWM of a process, in bytes (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def prepare_chunks(corpus: Path, limit_words: int | None) -> list[str]:
    """The chunks the pipeline would make (same functions), optionally cut to the first N words."""
    from ingestion.chunking import UnitPatterns, chunk_document, split_units
    from ingestion.text import decode_document, strip_gutenberg

    text, _ = strip_gutenberg(decode_document(corpus.read_bytes(), source=str(corpus)))
    chunks = [c.text for c in chunk_document(text, split_units(text, patterns=UnitPatterns.auto(LANGUAGE)))]
    if limit_words:
        kept, words = [], 0
        for chunk in chunks:
            kept.append(chunk)
            words += len(chunk.split())
            if words >= limit_words:
                break
        chunks = kept
    return chunks


def plain(
    chunks: list[str], n_process: int, batch_size: int, model: str = "en_core_web_sm"
) -> tuple[float, int, float]:
    """Seconds, entity count and this process's CPU seconds of plain nlp.pipe with the same NER-only components as
    the stage (the CPU seconds count the work only with ``n_process=1``: on a busy machine, words per CPU second is
    what one idle core would do)."""
    from ingestion.nlp import NlpSpec, build_nlp

    nlp = build_nlp(NlpSpec(language=LANGUAGE, model=model))
    started, cpu = time.perf_counter(), time.process_time()
    n_ents = sum(len(doc.ents) for doc in nlp.pipe(chunks, n_process=n_process, batch_size=batch_size))
    return time.perf_counter() - started, n_ents, time.process_time() - cpu


def _count_entities(nlp, texts, batch_size, start, results):  # type: ignore[no-untyped-def]
    start.wait()
    began = time.perf_counter()
    n_ents = sum(len(doc.ents) for doc in nlp.pipe(texts, batch_size=batch_size))
    results.put((time.perf_counter() - began, n_ents))


def independent_pair(chunks: list[str], batch_size: int, model: str = "en_core_web_sm") -> tuple[float, int]:
    """Two forked processes, each running 1-process ``nlp.pipe`` over its half (split by words), started together.

    Nothing travels between them (no Docs sent back, unlike ``n_process=2``), so the wall time until both finish
    is what the two cores can do at best on this machine: the hardware's parallel ceiling for this workload.
    """
    import multiprocessing as mp

    from ingestion.nlp import NlpSpec, build_nlp

    nlp = build_nlp(NlpSpec(language=LANGUAGE, model=model))
    total = sum(len(c.split()) for c in chunks)
    halves: list[list[str]] = [[], []]
    done = 0
    for chunk in chunks:
        halves[0 if done < total / 2 else 1].append(chunk)
        done += len(chunk.split())
    ctx = mp.get_context("fork")  # the children inherit the loaded pipeline, as n_process=2's do
    start, results = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_count_entities, args=(nlp, h, batch_size, start, results)) for h in halves]
    for proc in procs:
        proc.start()
    time.sleep(1.0)
    began = time.perf_counter()
    start.set()
    outcomes = [results.get() for _ in procs]
    wall = time.perf_counter() - began
    for proc in procs:
        proc.join()
    return wall, sum(n for _, n in outcomes)


def _tool(lake: Path) -> Any:
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings

    settings = load_settings(
        lakehouse={"root": lake},
        spark={"master": "local[2]", "shuffle_partitions": 2, "driver_memory": "4g"},
        ner={"model": MODEL, "language": LANGUAGE},
    )
    tool = GenericNERIngestionTool()
    tool.set_settings(settings)
    return tool


def spark_pipeline(corpus_text_file: Path, lake: Path) -> tuple[float, dict, WorkerSampler, float]:
    """One pipeline run (documents, chunks, index, mentions) in a fresh session: the mentions stage's own seconds.

    As every run does, the session's Python workers come from csillag's daemon, started by the run's first Python
    task with the NER pipeline loaded (ingestion.worker_daemon): the model is loaded once, before the stage, as the
    plain runs load it before their clock starts. Returns the stage's seconds and counts, the worker samples and the
    stage's start on the sampler's clock.
    """
    from tools.ingestion import IngestionRequest

    tool = _tool(lake)
    sampler = WorkerSampler()
    sampler.start()
    result = tool.execute_ingestion(
        IngestionRequest(inputs=[str(corpus_text_file)], stages=["documents", "chunks", "index", "mentions"])
    )
    ended = time.perf_counter()
    sampler.stop.set()
    sampler.join()
    assert result.status == "succeeded", result
    report = result.stages[-1]
    assert report.stage == "mentions", report
    return report.seconds, report.counts, sampler, ended - report.seconds


def spark_stage_alone(corpus_text_file: Path, lake: Path) -> float:
    """The mentions stage alone (forced) in a new session: its own first task starts the workers and loads the model."""
    from pyspark.sql import SparkSession

    from tools.ingestion import IngestionRequest

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()  # a new SparkContext: no Python daemon or worker survives from the pipeline run
    tool = _tool(lake)
    started = time.perf_counter()
    result = tool.execute_ingestion(
        IngestionRequest(inputs=[str(corpus_text_file)], stages=["mentions"], force=True)
    )
    seconds = time.perf_counter() - started
    assert result.status == "succeeded", result
    return result.stages[0].seconds if result.stages[0].seconds else seconds


def main() -> int:
    """Run the three measurements and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=None, help="default: War and Peace, or Egri csillagok (hu)")
    parser.add_argument("--language", choices=sorted(DEFAULT_CORPUS), default="en")
    parser.add_argument("--limit-words", type=int, default=None, help="only the first N words (a quick run)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--spark-only", action="store_true", help="skip the plain-spaCy runs (tuning the stage)")
    parser.add_argument("--memory-trace", type=Path, help="write the Python processes' samples (JSON) here")
    parser.add_argument("--model", default=None, help="the pipeline (default: the language's default)")
    args = parser.parse_args()
    global MODEL, LANGUAGE
    from ingestion.language_models import default_pipeline

    LANGUAGE = args.language
    default = default_pipeline(LANGUAGE)
    MODEL = args.model or (default.model if default is not None else "en_core_web_sm")
    args.corpus = args.corpus or DEFAULT_CORPUS[LANGUAGE]
    if not args.corpus.exists():
        print(f"corpus {args.corpus} not found", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    chunks = prepare_chunks(args.corpus, args.limit_words)
    words = sum(len(c.split()) for c in chunks)
    print(f"corpus {args.corpus.name}: {len(chunks)} chunks, {words} words; cores={os.cpu_count()}; model {MODEL}")

    s1 = s2 = ceiling = float("nan")
    if not args.spark_only:
        s1, ents1, cpu1 = plain(chunks, 1, args.batch_size, MODEL)
        print(
            f"plain nlp.pipe, 1 process     : {s1:7.1f} s  {words / s1:8.0f} words/s  ({ents1} entities; "
            f"{words / cpu1:.0f} words per CPU second)"
        )
        s2, ents2, _ = plain(chunks, 2, args.batch_size, MODEL)
        print(f"plain nlp.pipe, n_process=2   : {s2:7.1f} s  {words / s2:8.0f} words/s  ({ents2} entities)")
        ceiling, ents_pair = independent_pair(chunks, args.batch_size, MODEL)
        print(
            f"two independent processes     : {ceiling:7.1f} s  {words / ceiling:8.0f} words/s  ({ents_pair} entities; "
            f"{s1 / ceiling / 2:.2f} of linear: this machine's parallel ceiling)"
        )

    work = Path(tempfile.mkdtemp(prefix="csillag-bench-"))
    try:
        source = work / "corpus.txt"
        source.write_text("\n\n".join(chunks), encoding="utf-8")
        seconds, counts, sampler, stage_began = spark_pipeline(source, work / "lake")
        alone = spark_stage_alone(source, work / "lake")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    spark_words = counts["words_processed"]
    rate = spark_words / seconds
    print(
        f"Spark mentions stage, local[2]: {seconds:7.1f} s  {rate:8.0f} words/s  ({counts['mentions']} mentions; "
        f"the stage of a pipeline run, incl. reading the chunks and every Delta commit)"
    )
    print(f"ratio Spark / plain n_process=2      : {rate / (words / s2):.2f}  (target >= 0.90)")
    print(f"ratio Spark / linear limit (2 x s1)  : {rate / (2 * words / s1):.2f}  (target >= 0.90)")
    if not args.spark_only:
        print(f"ratio Spark / two independent procs  : {rate / (words / ceiling):.2f}  (for reference)")
    print(
        f"the stage alone in a new session   : {alone:7.1f} s  {spark_words / alone:8.0f} words/s  (its first task "
        f"starts the workers and loads the model: {spark_words / alone / (2 * words / s1):.2f} of the linear limit)"
    )
    # Only the samples taken while the mentions stage ran.
    for pid in list(sampler.samples):
        sampler.samples[pid] = [sample for sample in sampler.samples[pid] if sample[0] >= stage_began]
    if args.memory_trace:
        trace = {
            str(pid): [(round(t - stage_began, 2), rss, round(cpu, 2)) for t, rss, cpu in samples]
            for pid, samples in sampler.samples.items()
        }
        args.memory_trace.write_text(json.dumps(trace), encoding="utf-8")
    # The NER workers are the processes that spent CPU during the stage; the others are the daemon the workers were
    # forked from and spare workers (their RSS counts the pipeline pages they share with the workers). Growth is that
    # of the kernel's peak RSS (VmHWM) from the end of the first fifth of the stage to its end; the sampled peaks of
    # the first and last fifths are printed too, but RSS swings by ~90 MiB within a second (each batch's arrays,
    # freed after it), so half-second samples catch a window's peak only roughly.
    for pid, samples in sorted(sampler.samples.items()):
        if len(samples) < 10:
            continue
        rss = [r for _, r, _ in samples]
        cpu = samples[-1][2] - samples[0][2]
        if cpu < 2.0:
            print(f"process {pid}: {max(rss) / 2**20:6.0f} MiB, {cpu:4.1f} CPU-s (the daemon or an idle worker)")
            continue
        fifth = max(len(rss) // 5, 1)
        first, last = max(rss[:fifth]), max(rss[-fifth:])
        water = [h for t, h in sampler.high_water[pid] if t >= stage_began and h]
        early, final = water[max(len(water) // 5, 1) - 1], water[-1]
        growth = 100 * (final - early) / early
        print(
            f"worker {pid}: {cpu:4.1f} CPU-s; peak RSS (kernel high-water mark) after the first fifth of the stage "
            f"{early / 2**20:.0f} MiB, at its end {final / 2**20:.0f} MiB: growth {growth:+.1f}% (target <= +10%); "
            f"sampled peaks first/last fifth {first / 2**20:.0f}/{last / 2**20:.0f} MiB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
