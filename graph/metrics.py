"""Graph metrics of the entity graph: degree, weighted degree, PageRank and communities, computed in the driver.

``compute_metrics`` is a pure pandas → pandas function; the Spark ``graph`` stage collects ``entities`` and
``cooccurrences`` to the driver, calls it, and writes ``graph_nodes``. Everything is deterministic: the graph is held
as arrays in id order (``graph.indexed``), whatever the order of the input rows. Degrees and PageRank are computed
over the whole graph. Communities are computed per connected component (``graph.communities``): one book's
communities do not depend on the other books of a shared lakehouse, and a run given the previous graph reuses the
partition of every component that has not changed, with the same result as a fresh computation.

The 8× library in document scope (21,766 nodes, 59,429 edges, 3,060 components of at most 24 nodes), the graph
stage's ``compute`` on a copy of its four tables, the 2-core box shared with other jobs (load average 2–5): one
chapter added (one new component of 16 nodes) **0.39–0.51 s**, of which the metrics 0.15 s and the rest reading and
writing the tables — 3.4–5.1 s when Louvain ran over the whole graph every time; nothing changed
0.3–0.5 s; a fresh computation (first run, ``--force``, a new stage version) 1.7–2.7 s, Louvain on each of the 2,818
components of two nodes or more (before: 2.5–4.8 s).

PageRank is a weighted power iteration in numpy with networkx's semantics (``alpha`` 0.85, uniform teleport,
dangling mass spread uniformly, stop when the L1 change < N × 1e-6): ``networkx.pagerank`` itself needs scipy,
which is not a dependency of this project, and its pure-Python fallback is private (the tests compare against it).

Where the driver stops being the right place — measured with ``bench/bench_metrics.py <nodes> <edges>`` (random
graph with skewed degrees: one big component) on the project's 2-core box, shared with other jobs at the time (wall
times). The first two rows since the graph became numpy arrays (load average ~5; the code before took 1.9 s to
build, 0.7 s of PageRank and 14.6 s of Louvain for the second graph, 346 MB, at the same time); the last row is from
before, with a networkx build, not measured again:

================  ===========  ========  ===========================  ========
nodes / edges     graph build  PageRank  Louvain                      peak RSS
================  ===========  ========  ===========================  ========
3,000 / 100,000   0.03 s       0.01 s    3.2 s                        215 MB
10,000 / 300,000  0.2 s        0.04 s    11.0 s                       400 MB
50,000 / 1M       4.3 s        2.0 s     246 s (≈ 100 s of CPU)       910 MB
================  ===========  ========  ===========================  ========

A novel gives a few thousand entities and ~10^5 pairs: seconds. The limit is about 10^6 edges / 5·10^4 nodes:
there Louvain in pure Python takes minutes and the driver needs ~1 GB; past it, do not collect to the driver. For
bigger graphs the Spark path of the ``graph`` stage (written by the lead, not here) computes degree and weighted
degree by SQL aggregation over ``cooccurrences`` (``UNION ALL`` of both ends, ``GROUP BY``) and leaves PageRank and
communities to a graph engine (GraphFrames or Neo4j GDS); this module does not try to be that path.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd

from graph.communities import LOUVAIN_SEED, PreviousGraph, communities
from graph.indexed import IndexedGraph

logger = logging.getLogger(__name__)

PAGERANK_ALPHA = 0.85
PAGERANK_TOL = 1.0e-6
PAGERANK_MAX_ITER = 200
METRIC_COLUMNS = ("degree", "weighted_degree", "pagerank", "community")


def pagerank(graph: IndexedGraph, *, alpha: float = PAGERANK_ALPHA, tol: float = PAGERANK_TOL) -> np.ndarray:
    """Weighted PageRank of every node by position (each edge counts in both directions), as networkx defines it."""
    n = graph.n_nodes
    if n == 0:
        return np.zeros(0)
    src = np.concatenate([graph.src, graph.dst])
    dst = np.concatenate([graph.dst, graph.src])
    weight = np.concatenate([graph.weight, graph.weight])
    out = np.bincount(src, weights=weight, minlength=n)
    dangling = out == 0
    share = np.divide(weight, out[src], out=np.zeros_like(weight), where=out[src] > 0)
    x = np.full(n, 1.0 / n)
    for _ in range(PAGERANK_MAX_ITER):
        previous = x
        x = alpha * np.bincount(dst, weights=previous[src] * share, minlength=n)
        x += (alpha * previous[dangling].sum() + (1.0 - alpha)) / n
        if np.abs(x - previous).sum() < n * tol:
            break
    else:
        logger.warning("PageRank did not converge in %d iterations; using the last iterate", PAGERANK_MAX_ITER)
    return x


def compute_metrics(
    nodes: pd.DataFrame, edges: pd.DataFrame, *, seed: int = LOUVAIN_SEED, previous: PreviousGraph | None = None
) -> pd.DataFrame:
    """Return ``nodes`` (same rows, same order) with degree, weighted_degree, pagerank and community set.

    ``nodes`` needs ``entity_id``; ``edges`` needs ``src_id``, ``dst_id`` and ``weight`` (one row per unordered
    pair). Existing metric columns are replaced. ``previous``, the graph of an earlier run with the same seed, lends
    the communities of the components it holds unchanged.
    """
    started = time.perf_counter()
    graph = IndexedGraph.from_frames(nodes, edges)
    degree, weighted_degree = graph.degrees()
    community = communities(graph, seed=seed, previous=previous)
    result = nodes.drop(columns=[c for c in METRIC_COLUMNS if c in nodes.columns]).copy()
    position = graph.ids.get_indexer(result["entity_id"].astype(str))
    result["degree"] = degree[position].astype("int64")
    result["weighted_degree"] = weighted_degree[position].astype("float64")
    result["pagerank"] = pagerank(graph)[position]
    result["community"] = community[position].astype("int64")
    logger.info(
        "metrics of %d nodes / %d edges in %.2f s (%d communities)",
        graph.n_nodes, graph.n_edges, time.perf_counter() - started, len(np.unique(community)),
    )
    return result
