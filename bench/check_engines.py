"""The two engines at scale: every table the pipeline writes, made in process (DuckDB, delta-rs) and by Spark, compared
row for row, in each entity scope.

    .venv/bin/python bench/check_engines.py INPUT… --workdir /tmp/engines-1x [--scopes corpus document]
                                           [--base LAKEHOUSE] [--master local[2]] [--only-compare]

NER is the same function whichever engine runs a stage (``ingestion.stages.mentions``) and the costliest stage by
far, so it runs once: ``WORKDIR/base`` holds the documents, chunks, index and mentions of the inputs (a first run of
those four stages with the default settings, kept and reused; ``--base`` copies a lakehouse whose mentions are done
instead, its later stages' tables removed, which the four stages then bring up to date with the inputs). For each
scope, each engine then gets a copy of it, on which every other stage (documents, chunks, index, entities, quotes,
relations, cooccurrences, graph; not neo4j) is forced from scratch in a fresh process with settings that leave it
one engine:
``ingestion.driver_max_chars`` (what ``LakehouseTables.small_increment`` and so ``relational.engine_for`` decide by)
and ``driver_max_delete_bytes`` at 0 for Spark, unbounded for in process. The mentions stage stays up to date on every
copy: the documents' and chunks' output fingerprints are those of their contents and settings, which neither engine
changes.

Every Delta table found in either lakehouse is then compared as a multiset of rows: a map cell as its sorted items,
an array cell as it is (order included), a double (``cooccurrences.weight``, ``graph_edges.weight``,
``relations.confidence``, ``graph_nodes.weighted_degree`` and ``pagerank``: the schema says which) equal within
``math.isclose(rel_tol=1e-9, abs_tol=1e-12)`` — rows are matched on their other columns first. ``documents.source``
and ``rejects.source`` name the input files, the same in both. Printed per table: the rows of each engine and how
many rows one has that the other lacks, with examples, and the seconds of each run's stages. The ``_index/`` files
(BM25) are no table and are built by one path in the driver from the chunks whatever the engine.

Never a test: it measures and prints (docs/benchmarks.md). At 8× War and Peace the Spark runs take a while.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The stages whose engine the settings choose, forced on each copy of the base (the mentions stage is NER, run once;
# neo4j loads a server).
RERUN = ["documents", "chunks", "index", "entities", "quotes", "relations", "cooccurrences", "graph"]
BASE_STAGES = ["documents", "chunks", "index", "mentions"]
# Settings that leave every stage one engine: nothing is small enough for the driver, or everything is.
ENGINES: dict[str, dict[str, int]] = {
    "in_process": {"driver_max_chars": 2**62, "driver_max_delete_bytes": 2**62},
    "spark": {"driver_max_chars": 0, "driver_max_delete_bytes": 0},
}
REL_TOL, ABS_TOL = 1e-9, 1e-12
EXAMPLES = 3


def run_pipeline(inputs: list[str], lake: Path, master: str, stages: list[str], ingestion: dict[str, Any],
                 force: bool) -> dict[str, Any]:
    """One pipeline run in this process: its status and each stage's seconds and details (the ``--run`` child)."""
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings
    from tools.ingestion import IngestionRequest

    settings = load_settings(lakehouse={"root": lake}, spark={"master": master}, ingestion=ingestion)
    tool = GenericNERIngestionTool()
    tool.set_settings(settings)
    started = time.perf_counter()
    result = tool.execute_ingestion(IngestionRequest(inputs=inputs, stages=stages, force=force))
    return {
        "status": result.status, "reason": result.reason, "seconds": round(time.perf_counter() - started, 1),
        "stages": {s.stage: {"status": s.status, "seconds": s.seconds,
                             "details": {k: v for k, v in s.details.items() if isinstance(v, str)}}
                   for s in result.stages},
    }


def child(inputs: list[str], lake: Path, master: str, stages: list[str], ingestion: dict[str, Any],
          force: bool) -> dict[str, Any]:
    """``run_pipeline`` in a fresh process: each run its own JVM, nothing cached from the one before."""
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    spec = json.dumps({"inputs": inputs, "lake": str(lake), "master": master, "stages": stages,
                       "ingestion": ingestion, "force": force})
    done = subprocess.run([sys.executable, __file__, "--run", spec], capture_output=True, text=True, env=env,
                          check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        sys.exit(f"run on {lake} failed:\n{done.stderr[-4000:]}")
    report = json.loads(lines[-1])
    if report["status"] not in ("succeeded", "partial", "skipped"):
        sys.exit(f"run on {lake} ended {report['status']}: {report['reason']}\n{done.stderr[-4000:]}")
    return report


def prepare_base(inputs: list[str], workdir: Path, master: str, copy_of: Path | None) -> Path:
    """``workdir/base``: the inputs' documents, chunks, index and mentions (NER once), made or copied once."""
    base = workdir / "base"
    if not (base / "_markers" / "mentions" / "_SUCCESS").exists():
        if base.exists():
            shutil.rmtree(base)
        if copy_of is not None:
            shutil.copytree(copy_of, base, ignore=shutil.ignore_patterns("_lock.json", "_published.json"))
            _keep_only_base_stages(base)
    # up to date with the inputs: nothing to do when it is, an increment when a copy's inputs have changed since
    report = child(inputs, base, master, BASE_STAGES, {}, False)
    print(f"base (NER once): {report['seconds']} s {_stage_seconds(report)}", flush=True)
    return base


# The tables of the base stages. A copy keeps nothing else: the entities stage hands the ids of the entities table it
# finds on to its new entities (``ingestion.entity_ids``), so a table left by a run in another scope would change them.
BASE_TABLES = {"documents", "rejects", "chunks", "mentions", "mention_chunks"}


def _keep_only_base_stages(lake: Path) -> None:
    """Remove from a copied lakehouse every table and marker of the stages after the base's."""
    for table in delta_tables(lake) - BASE_TABLES:
        shutil.rmtree(lake / table)
    for marker in (lake / "_markers").iterdir():
        if marker.name not in BASE_STAGES:
            shutil.rmtree(marker)


def _stage_seconds(report: dict[str, Any]) -> str:
    return " ".join(f"{name} {stage['seconds']:.1f}" for name, stage in report["stages"].items())


def delta_tables(lake: Path) -> set[str]:
    """The names of the Delta tables directly under ``lake``."""
    return {p.name for p in lake.iterdir() if (p / "_delta_log").is_dir()} if lake.exists() else set()


def _cell(value: Any) -> Any:
    """A cell as a hashable, comparable value: a map's items sorted, an array as a tuple (its order kept)."""
    if isinstance(value, list):
        if value and isinstance(value[0], tuple):  # a map, as pyarrow gives it: (key, value) pairs
            return tuple(sorted(value))
        return tuple(_cell(v) for v in value)
    return value


def rows(lake: Path, table: str, drop: tuple[str, ...]) -> Iterator[tuple[tuple[Any, ...], tuple[float, ...]]]:
    """The table's rows as (the cells of its other columns, its doubles), batch by batch (an 8× table does not fit
    in the driver as Python rows)."""
    import pyarrow as pa
    from deltalake import DeltaTable

    dataset = DeltaTable(str(lake / table)).to_pyarrow_dataset()
    names = [f.name for f in dataset.schema if f.name not in drop]
    doubles = [n for n in names if pa.types.is_floating(dataset.schema.field(n).type)]
    others = [n for n in names if n not in doubles]
    for batch in dataset.to_batches(columns=others + doubles):
        columns = [batch.column(i).to_pylist() for i in range(batch.num_columns)]
        for row in zip(*columns, strict=True) if columns else ():
            yield tuple(_cell(v) for v in row[:len(others)]), tuple(row[len(others):])


def _digest(key: tuple[Any, ...]) -> bytes:
    return hashlib.blake2b(repr(key).encode(), digest_size=16).digest()


def _close(a: tuple[float | None, ...], b: tuple[float | None, ...]) -> bool:
    return all((x is None and y is None) or (x is not None and y is not None and (
        math.isclose(x, y, rel_tol=REL_TOL, abs_tol=ABS_TOL) or (math.isnan(x) and math.isnan(y))))
        for x, y in zip(a, b, strict=True))


def _tally(lake: Path, table: str, drop: tuple[str, ...]) -> tuple[Counter[bytes], dict[bytes, list[Any]], int]:
    """Each row's digest (of its cells but its doubles) counted, the doubles of each digest, and the row count."""
    counts: Counter[bytes] = Counter()
    doubles: dict[bytes, list[Any]] = defaultdict(list)
    n = 0
    for key, floats in rows(lake, table, drop):
        digest = _digest(key)
        counts[digest] += 1
        if floats:
            doubles[digest].append(floats)
        n += 1
    return counts, doubles, n


def _unmatched(mine: list[Any], theirs: list[Any]) -> int:
    """How many of ``mine`` (doubles of one key) have no partner within the tolerance in ``theirs``."""
    left = sorted(theirs, key=repr)
    missing = 0
    for floats in sorted(mine, key=repr):
        partner = next((i for i, other in enumerate(left) if _close(floats, other)), None)
        if partner is None:
            missing += 1
        else:
            left.pop(partner)
    return missing


def compare_table(a: Path, b: Path, table: str) -> dict[str, Any]:
    """Rows of ``table`` in lakehouse ``a`` and ``b`` and those of each the other lacks (counts and digests)."""
    drop = ("source",) if table in ("documents", "rejects") else ()
    count_a, doubles_a, n_a = _tally(a, table, drop)
    count_b, doubles_b, n_b = _tally(b, table, drop)
    only_a, only_b = count_a - count_b, count_b - count_a
    off_a, off_b = set(only_a), set(only_b)
    n_only_a, n_only_b = sum(only_a.values()), sum(only_b.values())
    for digest in set(doubles_a) | set(doubles_b):  # the same other cells: are the doubles close?
        if digest in only_a or digest in only_b:
            continue
        missing_a = _unmatched(doubles_a.get(digest, []), doubles_b.get(digest, []))
        missing_b = _unmatched(doubles_b.get(digest, []), doubles_a.get(digest, []))
        if missing_a or missing_b:
            n_only_a, n_only_b = n_only_a + missing_a, n_only_b + missing_b
            off_a.add(digest)
            off_b.add(digest)
    return {"rows": (n_a, n_b), "only": (n_only_a, n_only_b), "off": (off_a, off_b), "drop": drop}


def examples(lake: Path, table: str, digests: set[bytes], drop: tuple[str, ...]) -> list[str]:
    """A few rows of the table whose digest is one of ``digests``, cells shortened."""
    found = []
    for key, floats in rows(lake, table, drop):
        if _digest(key) in digests:
            found.append(repr(tuple(_short(v) for v in key + floats)))
            if len(found) == EXAMPLES:
                break
    return found


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > 60:
        return value[:57] + "…"
    if isinstance(value, tuple) and len(value) > 6:
        return (*value[:6], f"… {len(value) - 6} more")
    return value


def compare(a: Path, b: Path, names: tuple[str, str]) -> int:
    """Print every table's comparison between lakehouses ``a`` and ``b``; the number of tables that differ."""
    differing = 0
    print(f"{'table':<18} {names[0]:>12} {names[1]:>12} {'only ' + names[0]:>18} {'only ' + names[1]:>14}")
    for table in sorted(delta_tables(a) | delta_tables(b)):
        if table not in delta_tables(a) or table not in delta_tables(b):
            print(f"{table:<18} missing in {names[0] if table not in delta_tables(a) else names[1]}")
            differing += 1
            continue
        found = compare_table(a, b, table)
        (n_a, n_b), (only_a, only_b) = found["rows"], found["only"]
        print(f"{table:<18} {n_a:>12,} {n_b:>12,} {only_a:>18,} {only_b:>14,}", flush=True)
        if only_a or only_b:
            differing += 1
            for side, lake, digests in ((names[0], a, found["off"][0]), (names[1], b, found["off"][1])):
                for example in examples(lake, table, digests, found["drop"]):
                    print(f"    {side}: {example}")
    return differing


def main() -> int:
    """Build the base once, run each scope on each engine, compare; print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("inputs", nargs="*")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--scopes", nargs="+", choices=["corpus", "document"], default=["corpus", "document"])
    parser.add_argument("--base", type=Path, help="a lakehouse of these inputs whose mentions are done, copied")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--only-compare", action="store_true", help="compare the lakehouses the last run left")
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        spec = json.loads(args.run)
        print(json.dumps(run_pipeline(spec["inputs"], Path(spec["lake"]), spec["master"], spec["stages"],
                                      spec["ingestion"], spec["force"])), flush=True)
        return 0
    if not args.inputs or args.workdir is None:
        parser.error("INPUT… and --workdir are required")
    inputs = [str(Path(p).resolve()) for p in args.inputs]
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(f"{' '.join(inputs)} → {args.workdir}; load {os.getloadavg()[0]:.1f}", flush=True)
    base = prepare_base(inputs, args.workdir, args.master, args.base)
    differing = 0
    for scope in args.scopes:
        lakes = {engine: args.workdir / f"{engine}-{scope}" for engine in ENGINES}
        for engine, lake in lakes.items():
            if args.only_compare:
                continue
            if lake.exists():
                shutil.rmtree(lake)
            shutil.copytree(base, lake)
            report = child(inputs, lake, args.master, RERUN, {**ENGINES[engine], "entity_scope": scope}, True)
            engines = {name: stage["details"] for name, stage in report["stages"].items() if stage["details"]}
            print(f"{scope} scope, {engine}: {report['status']} in {report['seconds']} s (load "
                  f"{os.getloadavg()[0]:.1f}); {_stage_seconds(report)}; {json.dumps(engines)}", flush=True)
        print(f"\n{scope} scope: every table, in process against Spark")
        differing += compare(lakes["in_process"], lakes["spark"], ("in process", "Spark"))
        print(flush=True)
    print(f"tables that differ: {differing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
