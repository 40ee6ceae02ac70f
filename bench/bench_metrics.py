"""Benchmark: graph metrics (``graph.metrics``) in the driver on a random graph with skewed degrees.

    .venv/bin/python bench/bench_metrics.py NODES EDGES      # e.g. 3000 100000

Prints the time of the graph build (``IndexedGraph``), PageRank and Louvain, and the peak RSS; the figures are in the
``graph.metrics`` docstring and ``docs/benchmarks.md``. Never a test: it measures and prints.
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graph.communities import communities  # noqa: E402
from graph.indexed import IndexedGraph  # noqa: E402
from graph.metrics import pagerank  # noqa: E402


def synthetic(n_nodes: int, n_edges: int, seed: int = 7) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A random graph with skewed degrees (for the size measurement in the module docstring)."""
    rng = np.random.default_rng(seed)
    ids = np.array([f"ent_{i:07d}" for i in range(n_nodes)])
    popularity = 1.0 / np.arange(1, n_nodes + 1) ** 0.8
    popularity /= popularity.sum()
    a = rng.choice(n_nodes, size=int(n_edges * 1.3), p=popularity)
    b = rng.integers(0, n_nodes, size=a.size)
    pairs = pd.DataFrame({"u": np.minimum(a, b), "v": np.maximum(a, b)})
    pairs = pairs[pairs.u != pairs.v].drop_duplicates().head(n_edges)
    edges = pd.DataFrame({
        "src_id": ids[pairs.u.to_numpy()], "dst_id": ids[pairs.v.to_numpy()],
        "weight": rng.random(len(pairs)), "count": rng.integers(1, 20, len(pairs)),
    })
    return pd.DataFrame({"entity_id": ids}), edges


def measure(argv: list[str]) -> int:
    n_nodes, n_edges = (int(a) for a in argv[:2])
    nodes, edges = synthetic(n_nodes, n_edges)
    t0 = time.perf_counter()
    graph = IndexedGraph.from_frames(nodes, edges)
    t1 = time.perf_counter()
    pagerank(graph)
    t2 = time.perf_counter()
    communities(graph)
    t3 = time.perf_counter()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{n_nodes} nodes / {graph.n_edges} edges: build {t1 - t0:.2f} s, pagerank {t2 - t1:.2f} s, "
        f"louvain {t3 - t2:.1f} s, peak RSS {peak_mb:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(measure(sys.argv[1:]))
