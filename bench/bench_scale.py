"""The scale curve: each stage's time and the driver's and workers' peak memory at 1×, 2×, 4×, 8×
War and Peace worth of distinct documents, and an incremental run that adds one chapter to the largest lakehouse.

    .venv/bin/python bench/bench_scale.py [--scales 1 2 4 8] [--workdir /tmp/csillag-scale] [--master local[2]]
                                          [--corpus ../shared/corpora/war_and_peace.txt] [--scope corpus|document]
                                          [--repeat N]

Corpora: the novel split into its chapters (one document each); copy *c* of every chapter gets its names varied
deterministically (every capitalised word the novel never writes in lowercase, and its spelling in capitals, gets the
copy's suffix: "Pierre" → "Pierreov", "MOSCOW" → "MOSCOWOV"), so each copy is distinct content (documents are
deduplicated by content) with its own people, as a library of similar novels would be. Built once under
``--workdir`` and reused (rebuilt when ``GENERATOR`` changes).

Each scale runs the whole pipeline from scratch in a child process (``--run``), with the default settings
(``ner_ingestion``, the embedded graph store; ``--scope`` sets ``ingestion.entity_scope``, default the tool's:
corpus); the child reports each stage's seconds and the peak resident memory
(the kernel's high-water mark, VmHWM) of the driver — its Python process and its JVM — and of the Spark Python
workers. With ``--repeat N`` every stage but NER and chunks is then redone from scratch N more times on each
lakehouse, the scales in turn, and each stage's median is compared across scales. Then one new chapter-sized
document is added to the largest lakehouse and the incremental run is timed.

Never a test: it measures and prints (docs/benchmarks.md, docs/scaling.md). Hours at 8× on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from bench_mentions import _high_water  # noqa: E402 - the one VmHWM reader of the benches

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpora" / "war_and_peace.txt"
# The corpus generator's version, written in each corpus folder's "done": a folder of another is built again.
GENERATOR = 2
SUFFIXES = ["", "ov", "ski", "ina", "ev", "ek", "ard", "ton", "ell", "ani"]
_CHAPTER = re.compile(r"^\s*CHAPTER [IVXLC]+\.?\s*$", re.MULTILINE)


def chapters(text: str) -> list[str]:
    """The novel's chapters (text between ``CHAPTER N`` headings; the front matter before the first is dropped)."""
    starts = [m.start() for m in _CHAPTER.finditer(text)]
    return [text[a:b].strip() + "\n" for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def name_words(text: str) -> list[str]:
    """Every capitalised word the text never writes in lowercase: the names (and a few interjections).

    Generator 1 took only the words capitalised inside sentences five times or more: a minor name, or a name in
    capitals, then stayed the same in every copy and, in corpus scope, joined the copies' people (968 of the 1,666
    entities at 2× held mentions of both copies), so the pairs grew faster than the words."""
    capitalised = set(re.findall(r"\b([A-Z][a-z]+)\b", text))
    lower = set(re.findall(r"\b([a-z]+)\b", text))
    return sorted(word for word in capitalised if word.lower() not in lower)


def vary(text: str, names: list[str], copy: int) -> str:
    """Copy ``copy`` of ``text``: every name, and its spelling in capitals ("MOSCOW"), gets the copy's suffix (copy 0
    is the text itself)."""
    if copy == 0:
        return text
    suffix = SUFFIXES[copy % len(SUFFIXES)] + (str(copy // len(SUFFIXES)) if copy >= len(SUFFIXES) else "")
    forms = sorted({*names, *(name.upper() for name in names)}, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, forms)) + r")\b")
    return pattern.sub(lambda m: m.group(1) + (suffix.upper() if m.group(1).isupper() else suffix), text)


def build_corpus(source: Path, folder: Path, scale: int) -> tuple[int, int]:
    """``scale`` varied copies of the novel's chapters as .txt files in ``folder`` (reused); (documents, words)."""
    text = source.read_text(encoding="utf-8")
    parts = chapters(text)
    names = name_words(text)
    if not (folder / "done").exists() or (folder / "done").read_text() != f"generator {GENERATOR}\n":
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for copy in range(scale):
            for number, chapter in enumerate(parts):
                (folder / f"c{copy:02d}_{number:04d}.txt").write_text(vary(chapter, names, copy), encoding="utf-8")
        (folder / "done").write_text(f"generator {GENERATOR}\n")
    files = sorted(folder.glob("*.txt"))
    return len(files), sum(len(f.read_text(encoding="utf-8").split()) for f in files)


class Peaks(threading.Thread):
    """Peak RSS (VmHWM) of this process, its JVM and the Python workers (Spark's, or the mentions stage's NER
    processes on a local master: ``ingestion.ner_pool``), sampled every half second."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.jvm = self.workers = 0
        self.stop = threading.Event()

    def run(self) -> None:
        import psutil

        me = psutil.Process()
        while not self.stop.is_set():
            for proc in me.children(recursive=True):
                try:
                    cmd = " ".join(proc.cmdline())
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    continue
                peak = _high_water(proc.pid)
                if "java" in cmd.split(" ")[0]:
                    self.jvm = max(self.jvm, peak)
                elif "pyspark" in cmd or "worker_daemon" in cmd or "multiprocessing" in cmd:  # Spark's or ours
                    self.workers = max(self.workers, peak)
            self.stop.wait(0.5)


def run_once(corpus: Path, lake: Path, master: str, scope: str | None = None) -> dict[str, Any]:
    """One pipeline run in this process; stage seconds and peaks as a dict (the ``--run`` child's output)."""
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings
    from tools.ingestion import IngestionRequest

    peaks = Peaks()
    peaks.start()
    settings = load_settings(lakehouse={"root": lake}, spark={"master": master},
                             ingestion={"entity_scope": scope} if scope else {})
    tool = GenericNERIngestionTool()
    tool.set_settings(settings)
    started = time.perf_counter()
    result = tool.execute_ingestion(IngestionRequest(inputs=[str(corpus)]))
    seconds = time.perf_counter() - started
    peaks.stop.set()
    peaks.join()
    return {
        "status": result.status, "seconds": round(seconds, 1),
        "stages": {s.stage: s.seconds for s in result.stages},
        "counts": {k: v for k, v in result.counts.items() if k in {
            "documents.documents", "mentions.mentions", "entities.entities", "cooccurrences.pairs"}},
        "driver_python_peak_mib": round(_high_water(os.getpid()) / 2**20),
        "driver_jvm_peak_mib": round(peaks.jvm / 2**20),
        "worker_peak_mib": round(peaks.workers / 2**20),
    }


# The stages ``--repeat`` redoes from scratch: not NER (hours at 8× for one more figure of a stable stage), nor the
# chunks stage, which without its marker only splits the documents it finds no chunks of (a crashed run's resume).
REPEATED = ("documents", "index", "entities", "quotes", "relations", "cooccurrences", "graph")


def rerun(corpus: Path, lake: Path, master: str, scope: str | None = None) -> dict[str, Any]:
    """Every ``REPEATED`` stage of a built lakehouse redone from scratch: its marker and state deleted (and the
    index's files, which the stage would otherwise find and keep); the mentions stage stays up to date."""
    for stage in REPEATED:
        (lake / "_markers" / stage / "_SUCCESS").unlink(missing_ok=True)
        (lake / "_markers" / stage / "_STATE").unlink(missing_ok=True)  # per-document state: all redone, not kept
    for path in (lake / "_index").glob("*"):
        path.unlink()
    return child(corpus, lake, master, scope)


def child(corpus: Path, lake: Path, master: str, scope: str | None = None) -> dict[str, Any]:
    """``run_once`` in a fresh process, so each scale has its own JVM and peaks."""
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    command = [sys.executable, __file__, "--run", str(corpus), str(lake), "--master", master]
    done = subprocess.run(command + (["--scope", scope] if scope else []), capture_output=True, text=True, env=env,
                          check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        sys.exit(f"run over {corpus} failed:\n{done.stderr[-4000:]}")
    return json.loads(lines[-1])


def _cells(seconds: dict[str, float], before: dict[str, float] | None, digits: int) -> str:
    """One table row: each figure with its ratio to the row before (none for the first row or a zero)."""
    cells = []
    for stage, value in seconds.items():
        ratio = f"({value / before[stage]:.2f}×)" if before and before.get(stage) else ""
        cells.append(f"{value:6.{digits}f}{ratio:>7}")
    return " ".join(f"{cell:>13}" for cell in cells)


def main() -> int:
    """Build the corpora, run every scale, add a chapter to the largest; print a table per figure."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/csillag-scale"))
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--scope", choices=["corpus", "document"], help="ingestion.entity_scope (default: the tool's)")
    parser.add_argument("--repeat", type=int, default=0, metavar="N",
                        help="then redo every stage but NER and chunks N more times on each scale's lakehouse, the "
                             "scales in turn, and print each stage's median (the small stages swing run to run)")
    parser.add_argument("--run", nargs=2, type=Path, metavar=("CORPUS", "LAKE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        print(json.dumps(run_once(args.run[0], args.run[1], args.master, args.scope)), flush=True)
        return 0
    if not args.corpus.exists():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    rows = {}
    for scale in args.scales:
        folder = args.workdir / f"corpus-{scale}x"
        documents, words = build_corpus(args.corpus, folder, scale)
        lake = args.workdir / f"lake-{scale}x"
        if lake.exists():
            shutil.rmtree(lake)
        print(f"{scale}×: {documents} documents, {words:,} words …", flush=True)
        row = child(folder, lake, args.master, args.scope)
        row.update(documents=documents, words=words)
        rows[scale] = row
        print(f"  {json.dumps(row)}", flush=True)
    again: dict[int, list[dict[str, Any]]] = {scale: [row] for scale, row in rows.items()}
    for round_ in range(args.repeat):
        for scale in rows:  # the scales in turn: a slow spell of the machine falls on all of them
            redo = rerun(args.workdir / f"corpus-{scale}x", args.workdir / f"lake-{scale}x", args.master, args.scope)
            again[scale].append(redo)
            print(f"  {scale}× again ({round_ + 1}/{args.repeat}): {json.dumps(redo['stages'])}", flush=True)
    largest = max(rows)
    folder = args.workdir / f"corpus-{largest}x"
    text = args.corpus.read_text(encoding="utf-8")
    extra = folder / "zz_added.txt"
    extra.write_text(vary(chapters(text)[0], name_words(text), largest + 1), encoding="utf-8")
    try:
        added = child(folder, args.workdir / f"lake-{largest}x", args.master, args.scope)
    finally:
        extra.unlink()
        (folder / "done").touch()
    print(f"incremental, one chapter added to {largest}×: {json.dumps(added)}", flush=True)
    stages = list(next(iter(rows.values()))["stages"])
    print("\nseconds per stage (ratio to the previous scale)")
    print(f"{'scale':>6} {'words':>10} " + " ".join(f"{s:>13}" for s in stages) + f" {'total':>13}")
    previous: dict[str, float] | None = None
    for scale, row in rows.items():
        seconds = {**{stage: row["stages"].get(stage, 0.0) for stage in stages}, "total": row["seconds"]}
        print(f"{scale:>5}× {row['words']:>10,} " + _cells(seconds, previous, 1))
        previous = seconds
    if args.repeat:
        print(f"\nmedian seconds per stage over {args.repeat + 1} runs (mentions, chunks: the first run only) "
              "(ratio of the medians to the previous scale)")
        print(f"{'scale':>6} " + " ".join(f"{s:>13}" for s in stages))
        previous = None
        for scale, runs in again.items():
            medians = {stage: statistics.median(r["stages"].get(stage, 0.0) for r in (
                runs[:1] if stage not in REPEATED else runs)) for stage in stages}
            print(f"{scale:>5}× " + _cells(medians, previous, 2))
            previous = medians
    print("\npeak resident memory, MiB: driver Python / driver JVM / largest Python worker")
    for scale, row in rows.items():
        print(f"{scale:>5}×  {row['driver_python_peak_mib']:>6} / {row['driver_jvm_peak_mib']:>6} / "
              f"{row['worker_peak_mib']:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
