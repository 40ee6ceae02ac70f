"""Benchmark: loading the War and Peace graph into Neo4j (batched vs naive) and query latency of both stores.

In one run, on the graph of a real lakehouse (``GraphData.from_lakehouse``):
  1. the batched loader (``Neo4jGraphStore.load``: ``UNWIND $rows … MERGE``, ``--batch-size`` rows per transaction),
     after one unmeasured warm-up load (JIT, query plans), ``--load-repeats`` times on an emptied database:
     nodes/s over the node phases, relationships/s over the relationship phases, the whole load, and a reload of the
     same graph (which must change nothing);
  2. the naive loader (one ``MERGE`` per row, one transaction each) on every node row and on the first
     ``--naive-fraction`` of the relationship rows of each kind (the naive loader takes minutes on the whole graph;
     its cost per row does not depend on how many rows came before, so a prefix gives its rate);
  3. the latency (median, p95) of every ``GraphStore`` query on the Neo4j and the embedded store, ``--repeats`` calls
     each with arguments drawn (seeded) from the graph, after a few unmeasured calls.

    eval "$(scripts/neo4j.sh env)"
    .venv/bin/python -m jobs.pipeline ../shared/corpora/war_and_peace.txt --lakehouse /tmp/wp --master 'local[2]'
    .venv/bin/python bench/bench_graph.py /tmp/wp [--naive-fraction 0.25] [--repeats 50]

The Neo4j server is the one named by CSILLAG_NEO4J_URI / _USER / _PASSWORD; the benchmark empties its database.
Never a test: it measures and prints. Record the figures in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
if "--pure-python-driver" in sys.argv:  # before neo4j is imported: hide neo4j-rust-ext's packer, if installed
    sys.modules["neo4j._codec.packstream._rust"] = None  # type: ignore[assignment]

from pydantic import SecretStr  # noqa: E402

from graph import cypher, matching  # noqa: E402
from graph.embedded import EmbeddedGraphStore  # noqa: E402
from graph.lakehouse import Lakehouse  # noqa: E402
from graph.model import GraphData  # noqa: E402
from graph.neo4j_store import Neo4jGraphStore  # noqa: E402
from graph.settings import GraphSettings, Neo4jSettings  # noqa: E402
from graph.store import GraphStore  # noqa: E402

logger = logging.getLogger(__name__)

NODE_PHASES = ("documents", "units", "chunks", "entities")
RELATION_PHASES = ("co-occurrences", "mentions")


class ServerCpu:
    """CPU seconds used by the local Neo4j server process (``scripts/neo4j.sh pid``), when it runs on this machine."""

    def __init__(self, uri: str) -> None:
        self.pid: int | None = None
        self._tick = os.sysconf("SC_CLK_TCK")
        if f"CSILLAG_NEO4J_URI={uri}" not in self._script("env"):
            return  # another server than the project's own: its CPU time is not ours to read
        pid = self._script("pid").strip()
        self.pid = int(pid) if pid.isdigit() else None

    @staticmethod
    def _script(command: str) -> str:
        done = subprocess.run(["bash", str(ROOT / "scripts" / "neo4j.sh"), command], capture_output=True, text=True,
                              check=False)
        return done.stdout if done.returncode == 0 else ""

    def seconds(self) -> float:
        """The server's user + system CPU seconds so far (0 when unknown)."""
        if self.pid is None:
            return 0.0
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / self._tick


class TimedNeo4jStore(Neo4jGraphStore):
    """The store with the wall and CPU seconds of each load phase recorded (the loader itself is unchanged)."""

    phases: dict[str, float]
    server_cpu: ServerCpu

    def _load_rows(self, step: tuple[str, str, Sequence[Any] | None]) -> int:
        kind = step[0]
        started, server, client = time.perf_counter(), self.server_cpu.seconds(), time.process_time()
        written = super()._load_rows(step)
        self.phases[kind] = time.perf_counter() - started
        self.phases[f"{kind} server cpu"] = self.server_cpu.seconds() - server
        self.phases[f"{kind} client cpu"] = time.process_time() - client
        return written

    def timed_load(self, graph: GraphData) -> dict[str, float]:
        """Load ``graph``; the seconds of each phase and of the whole load (``total``)."""
        self.phases = {}
        started = time.perf_counter()
        self.load(graph)
        return self.phases | {"total": time.perf_counter() - started}


@dataclass
class LoadFigures:
    """Rows and seconds of one load, by phase."""

    seconds: dict[str, float]
    rows: dict[str, int]
    extra_relations: int = 0  # HAS_UNIT / HAS_CHUNK, created in the node phases
    notes: list[str] = field(default_factory=list)

    def rate(self, phases: Sequence[str]) -> float:
        return sum(self.rows[p] for p in phases) / sum(self.seconds[p] for p in phases)


def row_counts(graph: GraphData) -> dict[str, int]:
    """Rows of each load phase."""
    return {
        "documents": len(graph.documents), "units": len(graph.units), "chunks": len(graph.chunks),
        "entities": len(graph.entities), "co-occurrences": len(graph.relations), "mentions": len(graph.mentions),
    }


def raw_counts(store: Neo4jGraphStore) -> dict[str, int]:
    """Every node label and relationship type with its count, straight from the database."""
    driver, database = store._driver, store._database
    nodes, _, _ = driver.execute_query("MATCH (n) RETURN labels(n)[0] AS k, count(*) AS n", database_=database)
    rels, _, _ = driver.execute_query("MATCH ()-[r]->() RETURN type(r) AS k, count(*) AS n", database_=database)
    return dict(sorted((r["k"], r["n"]) for r in [*nodes, *rels]))


# -- the naive loader ------------------------------------------------------------------------------------------------

# One MERGE per row, one transaction each: the baseline the batched loader is measured against (never product code).
MERGE_ONE_DOCUMENT = f"MERGE (d:{cypher.DOCUMENT} {{doc_id: $row.doc_id}}) SET d = $row"
MERGE_ONE_UNIT = (
    f"MERGE (u:{cypher.UNIT} {{unit_id: $row.unit_id}}) SET u = $row "
    f"WITH u MATCH (d:{cypher.DOCUMENT} {{doc_id: $row.doc_id}}) MERGE (d)-[:{cypher.HAS_UNIT}]->(u)"
)
MERGE_ONE_CHUNK = (
    f"MERGE (c:{cypher.CHUNK} {{chunk_id: $row.chunk_id}}) SET c = $row "
    f"WITH c MATCH (u:{cypher.UNIT} {{unit_id: $row.unit_id}}) MERGE (u)-[:{cypher.HAS_CHUNK}]->(c)"
)
MERGE_ONE_ENTITY = f"MERGE (e:{cypher.ENTITY} {{entity_id: $row.entity_id}}) SET e = $row"
MERGE_ONE_CO_OCCURRENCE = (
    f"MATCH (a:{cypher.ENTITY} {{entity_id: $src_id}}) MATCH (b:{cypher.ENTITY} {{entity_id: $dst_id}}) "
    f"MERGE (a)-[r:{cypher.CO_OCCURS_WITH}]->(b) SET r.count = $count, r.weight = $weight, r.chunk_ids = $chunk_ids, "
    "r.unit_ids = $unit_ids, r.window = $window"
)
MERGE_ONE_MENTION = (
    f"MATCH (e:{cypher.ENTITY} {{entity_id: $entity_id}}) MATCH (c:{cypher.CHUNK} {{chunk_id: $chunk_id}}) "
    f"MERGE (e)-[m:{cypher.MENTIONED_IN} {{mention_id: $mention_id}}]->(c) "
    "SET m.start = $start, m.end = $end, m.text = $text"
)


def naive_load(store: Neo4jGraphStore, graph: GraphData, fraction: float) -> LoadFigures:
    """One MERGE per row, one auto-commit transaction each: all node rows, a prefix of each relationship kind."""
    driver, database = store._driver, store._database
    documents = [
        d.model_dump(exclude={"metadata"}) | {"metadata_json": json.dumps(d.metadata, sort_keys=True)}
        for d in graph.documents
    ]
    entities = [
        e.model_dump() | {"search_keys": matching.search_keys(e.canonical_name, e.aliases)} for e in graph.entities
    ]
    pairs = [
        r.model_dump() | {"src_id": min(r.src_id, r.dst_id), "dst_id": max(r.src_id, r.dst_id)}
        for r in graph.relations
    ]
    mentions = [m.model_dump() for m in graph.mentions]
    plan: list[tuple[str, str, list[dict[str, Any]], bool]] = [
        ("documents", MERGE_ONE_DOCUMENT, documents, True),
        ("units", MERGE_ONE_UNIT, [u.model_dump() for u in graph.units], True),
        ("chunks", MERGE_ONE_CHUNK, [c.model_dump() for c in graph.chunks], True),
        ("entities", MERGE_ONE_ENTITY, entities, True),
        ("co-occurrences", MERGE_ONE_CO_OCCURRENCE, pairs[: max(1, round(len(pairs) * fraction))], False),
        ("mentions", MERGE_ONE_MENTION, mentions[: max(1, round(len(mentions) * fraction))], False),
    ]
    seconds, rows = {}, {}
    with driver.session(database=database) as session:
        for kind, statement, kind_rows, wrapped in plan:
            started = time.perf_counter()
            for row in kind_rows:
                params = {"row": row} if wrapped else row
                session.run(statement, params).consume()
            seconds[kind] = time.perf_counter() - started
            rows[kind] = len(kind_rows)
            print(f"    naive {kind:15s} {len(kind_rows):6d} rows  {seconds[kind]:7.2f} s  "
                  f"{len(kind_rows) / seconds[kind]:8.0f} rows/s", flush=True)
    return LoadFigures(seconds, rows, extra_relations=len(graph.units) + len(graph.chunks))


# -- query latency ---------------------------------------------------------------------------------------------------


def query_plan(graph: GraphData, repeats: int, seed: int) -> dict[str, list[Callable[[GraphStore], Any]]]:
    """For each query, ``repeats`` calls with arguments drawn from the graph (the same calls for both stores)."""
    rng = random.Random(seed)
    connected = sorted({r.src_id for r in graph.relations} | {r.dst_id for r in graph.relations})
    by_rank = [e.entity_id for e in sorted(graph.entities, key=lambda e: (-e.pagerank, e.entity_id))]
    main = by_rank[:100]  # the characters a reader asks about; paths between them are the realistic case
    names = [n for e in graph.entities for n in (e.canonical_name, *e.aliases)]
    labels = [None, "PERSON", "GPE", "ORG"]

    def draw(values: Sequence[Any]) -> Any:
        return rng.choice(values)

    def fuzz(name: str) -> str:  # lower case, no accents, or a dropped letter: what users type
        kind = rng.randrange(3)
        if kind == 0:
            return name.lower()
        if kind == 1 and len(name) > 4:
            cut = rng.randrange(1, len(name) - 1)
            return name[:cut] + name[cut + 1 :]
        return name

    metrics = ["pagerank", "degree", "mentions"]
    args: dict[str, list[tuple[Any, ...]]] = {
        "find_entity": [(fuzz(draw(names)),) for _ in range(repeats)],
        "get_entity": [(draw(connected),) for _ in range(repeats)],
        "neighbours": [(draw(connected),) for _ in range(repeats)],
        "shortest_path": [(draw(main), draw(connected)) for _ in range(repeats)],
        "mentions": [(draw(main),) for _ in range(repeats)],
        "top_entities": [(draw(metrics), draw(labels)) for _ in range(repeats)],
        "timeline": [(draw(main),) for _ in range(repeats)],
        "stats": [() for _ in range(repeats)],
    }
    queries: dict[str, Callable[..., Any]] = {
        "find_entity": _found,
        "get_entity": lambda s, i: s.get_entity(i),
        "neighbours": lambda s, i: s.neighbours(i, limit=10),
        "shortest_path": lambda s, a, b: s.shortest_path(a, b, max_hops=4),
        "mentions": lambda s, i: s.mentions(i, limit=20),
        "top_entities": lambda s, by, label: s.top_entities(by=by, label=label),
        "timeline": lambda s, i: s.timeline(i),
        "stats": lambda s: s.stats(),
    }
    plan: dict[str, list[Callable[[GraphStore], Any]]] = {
        name: [functools.partial(_call, queries[name], call_args) for call_args in args[name]] for name in queries
    }
    return plan


def _call(query: Callable[..., Any], args: tuple[Any, ...], store: GraphStore) -> Any:
    return query(store, *args)


def _found(store: GraphStore, name: str) -> Any:
    from graph.errors import EntityNotFoundError

    try:
        return store.find_entity(name)
    except EntityNotFoundError:  # a typo too far is an answer too: the near misses
        return None


def latencies(store: GraphStore, calls: list[Callable[[GraphStore], Any]], warmup: int = 5) -> list[float]:
    """Milliseconds of each call (after ``warmup`` unmeasured ones)."""
    for call in calls[:warmup]:
        call(store)
    times = []
    for call in calls:
        started = time.perf_counter()
        call(store)
        times.append((time.perf_counter() - started) * 1000)
    return times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18]


# -- main ------------------------------------------------------------------------------------------------------------


def neo4j_settings(batch_size: int) -> Neo4jSettings:
    """The server named by the environment (``eval "$(scripts/neo4j.sh env)"``)."""
    missing = [n for n in ("CSILLAG_NEO4J_URI", "CSILLAG_NEO4J_PASSWORD") if not os.environ.get(n)]
    if missing:
        sys.exit(f"set {', '.join(missing)} first, e.g. eval \"$(scripts/neo4j.sh env)\"")
    return Neo4jSettings(
        uri=os.environ["CSILLAG_NEO4J_URI"], user=os.environ.get("CSILLAG_NEO4J_USER", "neo4j"),
        password=SecretStr(os.environ["CSILLAG_NEO4J_PASSWORD"]),
        database=os.environ.get("CSILLAG_NEO4J_DATABASE", "neo4j"), batch_size=batch_size,
    )


def machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} CPUs, load average {load}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lakehouse", type=Lakehouse.for_root,
                        help="a lakehouse with the graph stage done (jobs.pipeline)")
    parser.add_argument("--batch-size", type=int, default=Neo4jSettings().batch_size)
    parser.add_argument("--load-repeats", type=int, default=3)
    parser.add_argument("--naive-fraction", type=float, default=0.25,
                        help="share of each relationship kind the naive loader loads (default 0.25; 1 for all)")
    parser.add_argument("--repeats", type=int, default=50, help="calls per query for the latencies (>= 50)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pure-python-driver", action="store_true",
                        help="do not use the neo4j-rust-ext packer even when it is installed")
    args = parser.parse_args(argv)
    if not 0 < args.naive_fraction <= 1:
        parser.error(f"--naive-fraction must be in (0, 1], got {args.naive_fraction}")
    logging.basicConfig(level=logging.WARNING)

    print(f"machine: {machine()}")
    started = time.perf_counter()
    graph = GraphData.from_lakehouse(args.lakehouse)
    rows = row_counts(graph)
    nodes = sum(rows[p] for p in NODE_PHASES)
    structure = len(graph.units) + len(graph.chunks)
    print(f"graph of {args.lakehouse}: read in {time.perf_counter() - started:.2f} s; rows {rows}")
    print(f"  = {nodes} nodes; {rows['co-occurrences'] + rows['mentions']} CO_OCCURS_WITH + MENTIONED_IN "
          f"relationships (+ {structure} HAS_UNIT / HAS_CHUNK made in the node phases)")

    settings = neo4j_settings(args.batch_size)
    store = TimedNeo4jStore.from_settings(settings)
    store.server_cpu = ServerCpu(settings.uri)
    with store._driver.session(database=settings.database) as session:
        record = session.run("CALL dbms.components() YIELD name, versions, edition "
                             "RETURN name + ' ' + versions[0] + ' ' + edition AS v").single()
        server = record["v"] if record else "unknown"
    from neo4j._codec.packstream import v1 as packstream

    packer = f"neo4j-rust-ext {version('neo4j-rust-ext')}" if packstream._rust_pack else "pure Python"
    print(f"Neo4j: {server} at {settings.uri}; driver neo4j {version('neo4j')} ({packer} packstream); "
          f"batch size {args.batch_size}")

    # 1. batched
    store.clear()
    warm = store.timed_load(graph)
    print(f"\nbatched loader, warm-up load (cold JIT and query plans): {warm['total']:.2f} s")
    runs = []
    for _ in range(args.load_repeats):
        store.clear()
        runs.append(store.timed_load(graph))
    loaded = raw_counts(store)
    reload = store.timed_load(graph)
    unchanged = raw_counts(store) == loaded
    best = min(runs, key=lambda r: r["total"])
    median = sorted(runs, key=lambda r: r["total"])[len(runs) // 2]
    for name, run in (("median", median), ("best", best)):
        figures = LoadFigures(run, rows)
        print(f"  {name} of {len(runs)} loads: total {run['total']:.2f} s | "
              f"nodes {figures.rate(NODE_PHASES):,.0f}/s | relationships {figures.rate(RELATION_PHASES):,.0f}/s | "
              f"everything {(nodes + structure + rows['co-occurrences'] + rows['mentions']) / run['total']:,.0f} "
              "nodes+relationships/s")
        print("    " + "  ".join(f"{p} {run[p]:.2f}s ({rows[p] / run[p]:,.0f}/s)" for p in (*NODE_PHASES,
                                                                                         *RELATION_PHASES)))
        if store.server_cpu.pid is not None:
            server = sum(run[f"{p} server cpu"] for p in RELATION_PHASES)
            client = sum(run[f"{p} client cpu"] for p in RELATION_PHASES)
            relations = rows["co-occurrences"] + rows["mentions"]
            print(f"    relationship phases used {server:.2f} CPU-s in Neo4j + {client:.2f} CPU-s in this client: "
                  f"{relations / (server + client):,.0f} relationships per CPU-second")
    print(f"  reload of the same graph: {reload['total']:.2f} s, counts unchanged: {unchanged} {loaded}")
    batched = LoadFigures(median, rows)

    # 2. naive
    print(f"\nnaive loader (one MERGE per row and transaction; all nodes, {args.naive_fraction:.0%} of each "
          "relationship kind):", flush=True)
    store.clear()
    naive = naive_load(store, graph, args.naive_fraction)
    if args.naive_fraction == 1:
        print(f"  same graph as the batched loader: {raw_counts(store) == loaded}")
    naive_nodes, naive_rels = naive.rate(NODE_PHASES), naive.rate(RELATION_PHASES)
    print(f"  naive: nodes {naive_nodes:,.0f}/s | relationships {naive_rels:,.0f}/s "
          f"({sum(naive.rows[p] for p in RELATION_PHASES)} relationship rows in "
          f"{sum(naive.seconds[p] for p in RELATION_PHASES):.1f} s)")
    print(f"  batched / naive (medians): nodes {batched.rate(NODE_PHASES) / naive_nodes:.0f}x | "
          f"relationships {batched.rate(RELATION_PHASES) / naive_rels:.0f}x")

    # 3. latency
    store.clear()
    store.load(graph)
    with tempfile.TemporaryDirectory() as cache:
        cache_settings = GraphSettings(cache_dir=Path(cache))
        t0 = time.perf_counter()
        EmbeddedGraphStore.from_settings(args.lakehouse, cache_settings).close()
        t1 = time.perf_counter()
        embedded = EmbeddedGraphStore.from_settings(args.lakehouse, cache_settings)
        t2 = time.perf_counter()
    print(f"\nembedded store start: {t1 - t0:.2f} s from the Delta tables, {t2 - t1:.3f} s from its cache")
    plan = query_plan(graph, args.repeats, args.seed)
    print(f"query latency in ms, {args.repeats} calls each with varied arguments (median / p95):")
    print(f"  {'query':20s} {'neo4j':>17s} {'embedded':>17s}")
    for query, calls in plan.items():
        neo, emb = latencies(store, calls), latencies(embedded, calls)
        print(f"  {query:20s} {statistics.median(neo):8.2f} /{p95(neo):7.2f} "
              f"{statistics.median(emb):8.3f} /{p95(emb):7.3f}", flush=True)
    store.clear()
    store.close()
    print(f"\nmachine at the end: {machine()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
