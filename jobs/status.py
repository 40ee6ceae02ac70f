"""What ``csillag status`` and ``csillag summary`` report about a lakehouse: the published run, the run writing it
now (if any), every stage's ``_SUCCESS`` marker, every table's size, the entity-resolution score against the gold list
(when the entities stage made one), the main entities and the strongest relations.

Readers see the lakehouse as the last completed run published it (``graph.published``): the stage markers and table
sizes shown are those of the published run, not the half-written state of a run in progress, which is shown apart
from its lock (``ingestion.lock``). A lakehouse without a manifest is shown at its latest versions. Reads the marker
files, the manifest, the lock and the Delta logs only (delta-rs, no Spark), so it answers at once, even mid-run.
"""

from __future__ import annotations

import logging
from typing import Any

from graph.lakehouse import Lakehouse
from graph.published import PublishedRun, arrow_dataset, open_table, read_published
from ingestion.errors import LakehouseError
from ingestion.lock import is_stale, read_holder
from ingestion.markers import MarkerStore
from ingestion.pipeline import STAGE_NAMES

logger = logging.getLogger(__name__)

TABLES = ("documents", "chunks", "mentions", "entities", "cooccurrences", "graph_nodes", "rejects")


def summarize(lake: Lakehouse, top: int = 10) -> str:
    """The summary as text, of the tables as the last completed run published them; a missing table is reported,
    not raised."""
    from deltalake.exceptions import TableNotFoundError

    lines = [f"lakehouse {lake.uri()}", ""]
    frames = {}
    manifest = read_published(lake)
    for table in TABLES:
        try:
            frames[table] = arrow_dataset(open_table(lake, table, manifest), lake).to_table().to_pandas()
            lines.append(f"  {table:<15}{len(frames[table]):>8} rows")
        except TableNotFoundError:
            lines.append(f"  {table:<15}{'—':>8} (not written yet)")
    gold = _gold_report(lake)
    if gold:
        lines += ["", gold_line(gold)]
    nodes = frames.get("graph_nodes")
    if nodes is None or nodes.empty:
        return "\n".join(lines)
    ranked = nodes.sort_values(["pagerank", "mention_count", "entity_id"], ascending=[False, False, True]).head(top)
    lines += [
        "",
        f"Top {len(ranked)} entities (by PageRank):",
        f"  {'name':<28}{'label':<8}{'mentions':>9}{'pagerank':>10}",
    ]
    for node in ranked.itertuples():
        lines.append(f"  {node.canonical_name[:27]:<28}{node.label:<8}{node.mention_count:>9}{node.pagerank:>10.4f}")
    pairs = frames.get("cooccurrences")
    if pairs is not None and not pairs.empty:
        names = dict(zip(nodes.entity_id, nodes.canonical_name, strict=True))
        strongest = pairs.sort_values(["count", "weight", "src_id", "dst_id"], ascending=[False, False, True, True])
        lines += ["", f"Strongest relations (co-occurrences per {pairs.window.iloc[0]}):"]
        for pair in strongest.head(top).itertuples():
            a, b = names.get(pair.src_id, pair.src_id), names.get(pair.dst_id, pair.dst_id)
            lines.append(f"  {a[:24]:<25}— {b[:24]:<25}{pair.count:>5} times")
    return "\n".join(lines)


def gold_line(gold: dict[str, Any]) -> str:
    """The entities stage's score against ``ner.gold_list`` (its ``details["gold"]``), as one line."""
    from ingestion.resolution_eval import describe_gold_report

    return f"entity resolution vs gold {gold.get('path', '')}: {describe_gold_report(gold)}"


def _gold_report(lake: Lakehouse) -> dict[str, Any] | None:
    """The entities stage's score against ``ner.gold_list`` (its marker's ``details["gold"]``), if it made one."""
    marker = MarkerStore(lake).read("entities")
    return marker.details.get("gold") if marker is not None else None


def table_rows(root: Lakehouse, manifest: PublishedRun | None = None) -> dict[str, int | None]:
    """Rows per table of ``TABLES`` at the published versions; None for a table not published."""
    from deltalake.exceptions import TableNotFoundError

    rows: dict[str, int | None] = {}
    for table in TABLES:
        try:
            rows[table] = arrow_dataset(open_table(root, table, manifest), root).count_rows()
        except TableNotFoundError:
            rows[table] = None
    return rows


def running_run(root: Lakehouse) -> dict[str, Any] | None:
    """The lock's holder with ``stale`` (its process is gone) and the stages it has finished so far; None if the
    lakehouse is not locked."""
    try:
        holder = read_holder(root)
    except LakehouseError as exc:
        return {"error": str(exc)}
    if holder is None:
        return None
    markers = MarkerStore(root)
    done = [stage for stage in STAGE_NAMES if (m := markers.read(stage)) is not None and m.run_id == holder.run_id]
    return holder.model_dump() | {"stale": is_stale(holder), "stages_done": done}


def lakehouse_status(root: Lakehouse, graph_store: str | None = None) -> dict[str, Any]:
    """``{"lakehouse", "published", "running", "stages": {stage: marker dict | None}, "unused": {stage: why},
    "tables": {table: rows | None}}``, stages in order; ``stages`` and ``tables`` as published (latest without a
    manifest). ``graph_store`` (the ``graph.store`` setting) tells whether the ``neo4j`` stage is used at all: with
    the embedded store it never runs, and "pending" would send a user looking for a run that will never come."""
    manifest = read_published(root)
    if manifest is not None:
        stages = {stage: manifest.markers.get(stage) for stage in STAGE_NAMES}
        published = manifest.model_dump(include={"run_id", "tool", "finished_at", "tables", "index_files"})
    else:
        markers = MarkerStore(root)
        stages = {stage: (m.model_dump(mode="json") if (m := markers.read(stage)) else None) for stage in STAGE_NAMES}
        published = None
    unused = {}
    if graph_store is not None and graph_store != "neo4j" and stages.get("neo4j") is None:
        unused["neo4j"] = f"graph.store is {graph_store!r}"
    return {
        "lakehouse": root.uri(),
        "published": published,
        "running": running_run(root),
        "stages": stages,
        "unused": unused,
        "tables": table_rows(root, manifest),
    }


def render_status(report: dict[str, Any], root: Lakehouse, top: int = 10) -> str:
    """The stage table, the published and the running run, then ``summarize``'s table sizes, top entities and
    strongest relations (as published)."""
    lines = [f"{'stage':<15}{'state':<9}{'finished':<27}{'run':<26}counts"]
    unused = report.get("unused", {})
    for stage, marker in report["stages"].items():
        if stage in unused:
            lines.append(f"{stage:<15}{'unused':<9}{'—':<27}{'—':<26}{unused[stage]}")
            continue
        if marker is None:
            lines.append(f"{stage:<15}{'pending':<9}{'—':<27}{'—':<26}")
            continue
        counts = ", ".join(f"{k}={v}" for k, v in marker["counts"].items())
        lines.append(f"{stage:<15}{'done':<9}{marker['finished_at']:<27}{marker['run_id']:<26}{counts}")
    used = [stage for stage in report["stages"] if stage not in unused]
    done = sum(report["stages"][stage] is not None for stage in used)
    not_used = f" ({', '.join(unused)} not used)" if unused else ""
    lines += [f"{done}/{len(used)} stages done{not_used}", *run_lines(report), "", summarize(root, top)]
    return "\n".join(lines)


def run_lines(report: dict[str, Any]) -> list[str]:
    """``published: …`` and ``running: …``, one line each."""
    published, running = report.get("published"), report.get("running")
    if published is None:
        lines = ["published: no manifest (lakehouse written before publishing): the latest versions are shown"]
    elif published["run_id"] is None:
        lines = [f"published: the tables as found on {published['finished_at']} (no run completed since)"]
    else:
        lines = [f"published: run {published['run_id']} ({published['tool']}), finished {published['finished_at']}"]
    if running is None:
        lines.append("running: —")
    elif "error" in running:
        lines.append(f"running: {running['error']}")
    else:
        state = "STALE, its process is gone: the next run takes it over" if running["stale"] else "running"
        done = ", ".join(running["stages_done"]) or "none yet"
        lines.append(
            f"running: run {running['run_id']} ({running['tool']}, pid {running['pid']} on host {running['host']} "
            f"since {running['started_at']}; {state}); stages done: {done}"
        )
    return lines
