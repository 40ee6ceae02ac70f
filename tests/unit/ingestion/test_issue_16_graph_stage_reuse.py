"""Issue 16: the graph stage hands the previous ``graph_nodes``/``graph_edges`` to the metrics after a complete run
of the same version, so only new and changed components run Louvain — and the tables are a fresh run's.

No Spark: on the driver's path the stage reads and writes its tables with delta-rs, which is what is run here.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import pandas as pd
import pyarrow as pa
from deltalake import write_deltalake

from graph.lakehouse import Lakehouse
from graph.tables import COOCCURRENCES, ENTITIES
from ingestion.lakehouse import LakehouseTables
from ingestion.markers import Marker
from ingestion.stages.graph import GraphStage

from .tables import read


def _cliques(prefix: str) -> list[tuple[str, str, int]]:
    """Two K4s joined by one edge (counts 3 inside, 1 across): two communities."""
    quads = ((1, 2, 3, 4), (5, 6, 7, 8))
    inside = [(f"{prefix}{a}", f"{prefix}{b}", 3) for quad in quads for a in quad for b in quad if a < b]
    return [*inside, (f"{prefix}4", f"{prefix}5", 1)]


def _write(lake: Path, pairs: list[tuple[str, str, int]], mode: Literal["append", "overwrite"]) -> None:
    ids = sorted({x for u, v, _ in pairs for x in (u, v)})
    entities: dict[str, list[Any]] = {name: [None] * len(ids) for name in ENTITIES.names}
    entities.update(entity_id=ids, canonical_name=ids, aliases=[[]] * len(ids))
    write_deltalake(str(lake / "entities"), pa.table(entities, schema=ENTITIES.arrow_schema()), mode=mode)
    edges: dict[str, list[Any]] = {name: [None] * len(pairs) for name in COOCCURRENCES.names}
    # The normalised weight deliberately disagrees with the count: the stage weighs by the count.
    edges.update(src_id=[u for u, _, _ in pairs], dst_id=[v for _, v, _ in pairs], count=[c for _, _, c in pairs],
                 weight=[1.0 / c for _, _, c in pairs], chunk_ids=[[]] * len(pairs), unit_ids=[[]] * len(pairs))
    write_deltalake(str(lake / "cooccurrences"), pa.table(edges, schema=COOCCURRENCES.arrow_schema()), mode=mode)


def _upstream_done(lake: LakehouseTables, output: str) -> None:
    """Markers of the two stages the graph stage reads, as if they had just produced ``output``."""
    for stage in GraphStage.requires:
        lake.markers.write(Marker(stage=stage, run_id=output, config_fingerprint="c", input_fingerprint="i",
                                  output_fingerprint=output))


def _run(lake: LakehouseTables, *, force: bool = False) -> None:
    GraphStage().run(SimpleNamespace(lakehouse=lake, force=force, run_id="r", settings=None))  # type: ignore[arg-type]


def test_issue_16_graph_stage_reuses_the_previous_communities(tmp_path: Path, louvain_sizes: list[int]) -> None:
    lake = LakehouseTables(Lakehouse.for_root(tmp_path), None)  # type: ignore[arg-type]
    _write(tmp_path, [*_cliques("a"), *_cliques("b")], "overwrite")
    _upstream_done(lake, "1")
    _run(lake)
    assert louvain_sizes == [8, 8]

    _write(tmp_path, _cliques("c"), "append")
    _upstream_done(lake, "2")
    louvain_sizes.clear()
    _run(lake)
    assert louvain_sizes == [8]  # c only
    reused = read(tmp_path, "graph_nodes"), read(tmp_path, "graph_edges")

    louvain_sizes.clear()
    _run(lake, force=True)
    assert louvain_sizes == [8, 8, 8]
    pd.testing.assert_frame_equal(read(tmp_path, "graph_nodes"), reused[0])
    pd.testing.assert_frame_equal(read(tmp_path, "graph_edges"), reused[1])
    assert reused[0]["community"].tolist() == [n for n in range(6) for _ in range(4)]  # a1-a4, a5-a8, b1-b4, …


def test_issue_16_graph_stage_after_a_crashed_run_computes_afresh(tmp_path: Path, louvain_sizes: list[int]) -> None:
    # A crash clears the marker: the tables may be one old and one new, so nothing is reused from them.
    lake = LakehouseTables(Lakehouse.for_root(tmp_path), None)  # type: ignore[arg-type]
    _write(tmp_path, _cliques("a"), "overwrite")
    _upstream_done(lake, "1")
    _run(lake)
    marker = lake.markers.read("graph")
    assert marker is not None
    lake.markers.clear("graph")
    lake.markers.mark_started("graph", run_id="crashed", config_fingerprint=marker.config_fingerprint)
    louvain_sizes.clear()
    _run(lake)
    assert louvain_sizes == [8]
