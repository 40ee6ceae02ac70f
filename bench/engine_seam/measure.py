"""One relational seam for the two engines, measured (docs/decisions/0012-one-relational-seam.md): the co-occurrence
stage (``turns`` windows + pair counts) and the entities stage's relational tail (keyed mentions → attach → entity
table), each written

- today: the driver twin over Arrow/Python rows, and the Spark DataFrame transform (``today.py``: the stages' own
  functions, called as the stages call them);
- once as an Ibis expression, run on DuckDB and on PySpark (``ibis_seam.py``);
- once as SQL text in DuckDB's dialect, run by DuckDB and, transpiled by sqlglot, by Spark SQL (``sql_seam.py``).

Dependencies, not the project's (kept out of the shared venv)::

    pip install --target /tmp/engine-deps --no-deps ibis-framework==12.0.0 duckdb==2.0.1 sqlglot==30.31.0 \
        atpublic parsy toolz pyarrow-hotfix

Lakehouses the current pipeline wrote, one folder per corpus under ``--lakes`` (``samples_en``, ``war_and_peace``)::

    .venv/bin/python -m jobs.pipeline ingestion/samples/en --lakehouse /tmp/engine-lakes/samples_en
    .venv/bin/python -m jobs.pipeline ../shared/corpora/war_and_peace.txt --lakehouse /tmp/engine-lakes/war_and_peace

Then (``PYTHONPATH=.:/tmp/engine-deps``, ``PYSPARK_PYTHON=.venv/bin/python``)::

    .venv/bin/python bench/engine_seam/measure.py --lakes /tmp/engine-lakes [--corpora sample wp wp8] [--repeat 3]
    .venv/bin/python bench/engine_seam/measure.py --lakes /tmp/engine-lakes --cold wp   # fresh processes
    .venv/bin/python bench/engine_seam/measure.py --lakes /tmp/engine-lakes --floor     # Spark's fixed costs
    .venv/bin/python bench/engine_seam/measure.py --imports                             # each library's import

Inputs (``inputs.extract``): the upstream tables of the two pieces read from a lakehouse and kept as Parquet under
``--workdir`` (``wp8``: 8 copies of War and Peace's, every id and name made the copy's own); every variant reads the
same files and returns Arrow tables, compared row for row with today's driver rows (the first differing row is
printed) and, for a corpus's co-occurrences, with the table the stage wrote. Warm figures: the variants interleaved,
``--repeat`` rounds after one first run each, the minimum kept; the one-minute load average is printed before each
round. ``--cold``: each variant in a fresh process — engine start (the JVM), imports and first run timed apart. Lines
of code: each variant's functions without docstrings, comments or blank lines. Never a test: it measures and prints.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import pyarrow as pa  # noqa: E402

from bench.engine_seam.inputs import extract  # noqa: E402

CORPORA = {"sample": ("samples_en", 1), "wp": ("war_and_peace", 1), "wp8": ("war_and_peace", 8)}
KEYS = {"cooccurrences": ["src_id", "dst_id"], "mention_entities": ["mention_id"], "entities": ["entity_id"]}
VARIANTS = ("driver", "spark", "ibis-duckdb", "ibis-spark", "sql-duckdb", "sql-spark")
SPARK_VARIANTS = ("spark", "ibis-spark", "sql-spark")


def _load() -> str:
    return open("/proc/loadavg").read().split()[0]


def start_spark() -> Any:
    """The session the pipeline would start (``ingestion.spark.get_spark`` with the default settings)."""
    from ingestion.spark import get_spark
    from settings.config import load_settings

    return get_spark(load_settings().spark)


def runners(piece: str, spark: Any) -> dict[str, Callable[[dict[str, Path]], dict[str, pa.Table]]]:
    """variant → a function of the input paths returning the piece's output tables by name."""
    import duckdb
    import ibis

    from bench.engine_seam import ibis_seam, sql_seam, today

    con = duckdb.connect()
    ibis_duck = ibis.duckdb.connect()
    ibis_spark = ibis.pyspark.connect(spark) if spark is not None else None
    if piece == "cooccurrences":
        def out(table: pa.Table) -> dict[str, pa.Table]:
            return {"cooccurrences": table}

        return {
            "driver": lambda p: out(today.cooc_driver(p)),
            "spark": lambda p: out(today.cooc_spark(spark, p)),
            "ibis-duckdb": lambda p: out(ibis_seam.run_cooc(ibis_duck, p)),
            "ibis-spark": lambda p: out(ibis_seam.run_cooc(ibis_spark, p)),
            "sql-duckdb": lambda p: out(sql_seam.duckdb_cooc(con, p)),
            "sql-spark": lambda p: out(sql_seam.spark_cooc(spark, p)),
        }

    def both(tables: tuple[pa.Table, pa.Table]) -> dict[str, pa.Table]:
        return {"mention_entities": tables[0], "entities": tables[1]}

    return {
        "driver": lambda p: both(today.tail_driver(p)),
        "spark": lambda p: both(today.tail_spark(spark, p)),
        "ibis-duckdb": lambda p: both(ibis_seam.run_tail(ibis_duck, p)),
        "ibis-spark": lambda p: both(ibis_seam.run_tail(ibis_spark, p)),
        "sql-duckdb": lambda p: both(sql_seam.duckdb_tail(con, p)),
        "sql-spark": lambda p: both(sql_seam.spark_tail(spark, p)),
    }


def _rows(table: pa.Table, keys: list[str]) -> list[dict[str, Any]]:
    return table.sort_by([(key, "ascending") for key in keys]).to_pylist()


def differences(got: dict[str, pa.Table], want: dict[str, pa.Table]) -> tuple[int, str | None]:
    """How many rows differ (missing, extra or unequal; floats to 1e-12 relative) between two outputs, and the first
    difference (table, the row got and the row wanted), for the report."""
    wrong, first = 0, None
    for name, table in want.items():
        mine, theirs = _rows(got[name], KEYS[name]), _rows(table, KEYS[name])
        if len(mine) != len(theirs):
            wrong += abs(len(mine) - len(theirs))
            first = first or f"{name}: {len(mine)} rows, want {len(theirs)}"
        for a, b in zip(mine, theirs, strict=False):
            same = a.keys() == b.keys() and all(
                math.isclose(a[k], b[k], rel_tol=1e-12) if isinstance(a[k], float) else a[k] == b[k] for k in a
            )
            if not same:
                wrong += 1
                first = first or f"{name}: got {a} want {b}"
    return wrong, first


def written_table(corpus: str) -> pa.Table | None:
    """The cooccurrences table the pipeline wrote for this corpus (none for the scaled copies)."""
    from deltalake import DeltaTable

    lake, scale = CORPORA[corpus]
    if scale != 1:
        return None
    return DeltaTable(str(Path(ARGS.lakes) / lake / "cooccurrences")).to_pyarrow_table()


def warm(corpus: str, paths: dict[str, Path], spark: Any, repeat: int) -> list[dict[str, Any]]:
    """Each piece's variants interleaved: one first run each, then ``repeat`` rounds; the rows of the table."""
    results = []
    for piece in ("cooccurrences", "tail"):
        run = runners(piece, spark)
        reference = run["driver"](paths)
        written = written_table(corpus) if piece == "cooccurrences" else None
        times: dict[str, list[float]] = {v: [] for v in VARIANTS}
        first: dict[str, float] = {}
        wrong: dict[str, int] = {}
        first_wrong: dict[str, str | None] = {}
        loads = []
        for round_ in range(repeat + 1):
            loads.append(_load())
            for variant in VARIANTS:
                started = time.perf_counter()
                got = run[variant](paths)
                seconds = time.perf_counter() - started
                if round_ == 0:
                    first[variant] = seconds
                    wrong[variant], first_wrong[variant] = differences(got, reference)
                else:
                    times[variant].append(seconds)
        for variant in VARIANTS:
            results.append({
                "corpus": corpus, "piece": piece, "variant": variant, "first": first[variant],
                "min": min(times[variant]), "rows": sum(t.num_rows for t in reference.values()),
                "rows_differing": wrong[variant], "first_difference": first_wrong[variant], "loads": loads,
                "written_differs": None if written is None else differences({"cooccurrences": written}, reference)[0],
            })
            print(json.dumps(results[-1]), flush=True)
    return results


def cold(corpus: str, variant: str, piece: str) -> dict[str, Any]:
    """In this fresh process: imports, engine start and the first run of one variant, timed apart."""
    load = _load()
    started = time.perf_counter()
    spark = None
    if variant in SPARK_VARIANTS:
        spark = start_spark()
        spark.range(1).count()  # the session's first job: the JVM up and its executor ready
    engine = time.perf_counter() - started
    started = time.perf_counter()
    run = runners(piece, spark)[variant]
    imports = time.perf_counter() - started
    paths = inputs(corpus)
    started = time.perf_counter()
    run(paths)
    return {"corpus": corpus, "piece": piece, "variant": variant, "load": load, "engine_start": engine,
            "imports": imports, "first_run": time.perf_counter() - started}


IMPORTS = {
    "duckdb": "import duckdb; duckdb.connect().sql('select 1').fetchall()",
    "sqlglot": "import sqlglot; sqlglot.transpile('select 1', read='duckdb', write='spark')",
    "ibis+duckdb": "import ibis; ibis.duckdb.connect().raw_sql('select 1')",
    "pyspark.sql": "import pyspark.sql",
    "ingestion.stages.cooccurrences": "import ingestion.stages.cooccurrences",
}


def import_costs(repeat: int) -> dict[str, float]:
    """Seconds to import (and touch) each library in a fresh interpreter, less a bare interpreter's start; the
    minimum of ``repeat``."""

    def seconds(code: str) -> float:
        best = math.inf
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=os.environ)
            best = min(best, time.perf_counter() - started)
        return best

    bare = seconds("pass")
    return {name: seconds(code) - bare for name, code in IMPORTS.items()}


def inputs(corpus: str) -> dict[str, Path]:
    lake, scale = CORPORA[corpus]
    return extract(Path(ARGS.lakes) / lake, Path(ARGS.workdir) / corpus, scale)


# the co-occurrence stage's twins, before it became one query
TWINS_COMMIT = "6a3fcf0"
ENTITY_TWINS_COMMIT = "7efd772"  # the entities stage's last twins


def logic_lines() -> dict[str, int]:
    """Lines of each variant's logic for the two pieces: code lines without docstrings, comments or blank lines.

    Today's co-occurrence twins (``TWINS_COMMIT``) and the converted stage cover the four windows; the Ibis and SQL
    pieces of this bench the ``turns`` window only.
    """
    from bench.engine_seam import ibis_seam, sql_seam
    from ingestion.stages import cooccurrences, entities

    def lines(source: str, names: list[str]) -> int:
        total = 0
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef) and node.name in names:
                body = ast.get_docstring(node)
                segment = ast.get_source_segment(source, node) or ""
                code = [s for s in segment.splitlines() if s.strip() and not s.strip().startswith("#")]
                total += len(code) - (len(body.splitlines()) if body else 0)
        return total

    def at(commit: str, path: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"], capture_output=True, text=True,
                              check=True).stdout

    twins = at(TWINS_COMMIT, "ingestion/stages/cooccurrences.py")
    entity_twins = at(ENTITY_TWINS_COMMIT, "ingestion/stages/entities.py")
    sql = [sql_seam.COOCCURRENCES_SQL, sql_seam.ATTACH_SQL + sql_seam.ENTITIES_SQL]
    return {
        "cooccurrences/spark": lines(twins, ["paragraph_numbers", "_windows", "cooccurrence_pairs"]),
        "cooccurrences/driver": lines(twins, ["cooccurrence_rows", "_collector_paused", "_rows", "_paragraph_starts"]),
        "cooccurrences/stage_now": lines(inspect.getsource(cooccurrences), [
            "cooccurrence_sql", "_shared_keys", "_shared_paragraphs", "cooccurrence_pairs", "cooccurrence_rows"]),
        "cooccurrences/ibis": lines(inspect.getsource(ibis_seam), [
            "_breaks", "paragraph_numbers", "turn_windows", "cooccurrences"]),
        "cooccurrences/sql": len([s for s in sql[0].splitlines() if s.strip()]),
        "tail/spark": lines(entity_twins, ["keyed_mentions", "attach_entities", "entity_table"]),
        "tail/driver": lines(entity_twins, [
            "keyed_rows", "attach_rows", "_mapping_table", "entity_table_rows", "_places"]),
        "tail/stage_now": lines(inspect.getsource(entities), [
            "keyed_mentions", "attach_sql", "attach_entities", "_mapping_table", "entity_table_sql", "entity_table"]),
        "tail/ibis": lines(inspect.getsource(ibis_seam), ["attach", "entity_table"]),
        "tail/sql": len([s for s in sql[1].splitlines() if s.strip()]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", nargs="+", default=list(CORPORA), choices=list(CORPORA))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lakes", default="/tmp/csillag-qa", help="the lakehouses (one folder per corpus) to read")
    parser.add_argument("--workdir", default="/tmp/engine-inputs")
    parser.add_argument("--cold", metavar="CORPUS", help="time each variant's first run in fresh processes")
    parser.add_argument("--floor", action="store_true", help="Spark's floor: a trivial job, shuffle partitions")
    parser.add_argument("--imports", action="store_true", help="each library's import cost in fresh interpreters")
    parser.add_argument("--child", nargs=3, metavar=("CORPUS", "VARIANT", "PIECE"), help=argparse.SUPPRESS)
    global ARGS
    ARGS = parser.parse_args()
    if ARGS.child:
        print(json.dumps(cold(*ARGS.child)), flush=True)
        return 0
    print(json.dumps({"lines": logic_lines()}), flush=True)
    if ARGS.imports:
        print(json.dumps({"imports": import_costs(ARGS.repeat), "load": _load()}), flush=True)
        return 0
    if ARGS.cold:
        inputs(ARGS.cold)
        for piece in ("cooccurrences", "tail"):
            for variant in VARIANTS:
                command = [sys.executable, __file__, "--lakes", ARGS.lakes, "--workdir", ARGS.workdir,
                           "--child", ARGS.cold, variant, piece]
                done = subprocess.run(command, capture_output=True, text=True, env=os.environ, check=True)
                print(done.stdout.strip().splitlines()[-1], flush=True)
        return 0
    started = time.perf_counter()
    load = _load()
    spark = start_spark()
    spark.range(1).count()
    print(json.dumps({"spark_start": time.perf_counter() - started, "load": load}), flush=True)
    if ARGS.floor:
        floor(spark, ARGS.repeat)
        return 0
    results = [row for corpus in ARGS.corpora for row in warm(corpus, inputs(corpus), spark, ARGS.repeat)]
    print_table(results)
    return 0


def floor(spark: Any, repeat: int) -> None:
    """What a warm session costs whatever the work: a one-row job, and today's Spark co-occurrences with the
    configured shuffle partitions against one (interleaved, the minimum of ``repeat``)."""
    from bench.engine_seam import today

    trivial = []
    for _ in range(5):
        started = time.perf_counter()
        spark.range(1).count()
        trivial.append(time.perf_counter() - started)
    print(json.dumps({"trivial_job": min(trivial), "load": _load()}), flush=True)
    configured = spark.conf.get("spark.sql.shuffle.partitions")
    for corpus in ARGS.corpora:
        paths = inputs(corpus)
        times: dict[str, list[float]] = {configured: [], "1": []}
        loads = []
        for _ in range(repeat):
            loads.append(_load())
            for partitions in times:
                spark.conf.set("spark.sql.shuffle.partitions", partitions)
                started = time.perf_counter()
                today.cooc_spark(spark, paths)
                times[partitions].append(time.perf_counter() - started)
        spark.conf.set("spark.sql.shuffle.partitions", configured)
        print(json.dumps({"corpus": corpus, "partitions": {k: min(v) for k, v in times.items()}, "loads": loads}))


def print_table(results: list[dict[str, Any]]) -> None:
    """Seconds, warm minimum (first run), per corpus and piece; a row count that differs from today's is flagged."""
    print(f"\n{'corpus':7} {'piece':14} {'rows':>7}  " + "  ".join(f"{v:>17}" for v in VARIANTS))
    for corpus in ARGS.corpora:
        for piece in ("cooccurrences", "tail"):
            mine = {r["variant"]: r for r in results if r["corpus"] == corpus and r["piece"] == piece}
            cells = []
            for variant in VARIANTS:
                r = mine[variant]
                flag = "" if r["rows_differing"] == 0 else f" !{r['rows_differing']}"
                cells.append(f"{r['min']:7.3f} ({r['first']:6.2f}){flag}".rjust(17))
            loads = mine["driver"]["loads"]
            head = f"{corpus:7} {piece:14} {mine['driver']['rows']:>7}  "
            print(head + "  ".join(cells) + f"  load {'/'.join(loads)}")


ARGS: argparse.Namespace

if __name__ == "__main__":
    sys.exit(main())
