"""Prints what a lakehouse holds: table sizes, the entity-resolution score against the gold list (when the entities
stage made one), the main entities and the strongest relations.

Reads the Delta tables with delta-rs (no Spark), so it is instant after a run: ``csillag summary LAKEHOUSE``, or
``python -m jobs.summary LAKEHOUSE`` (the same command).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from graph.errors import StorageError
from graph.storage import LakehouseStorage, as_storage
from tools.cli import EXIT_FAILED, Command, fail, lakehouse_storage, run

logger = logging.getLogger(__name__)

TABLES = ("documents", "chunks", "mentions", "entities", "cooccurrences", "graph_nodes", "rejects")


def summarize(lake: Path | LakehouseStorage, top: int = 10) -> str:
    """The summary as text, of the tables as the last completed run published them; a missing table is reported,
    not raised."""
    from deltalake.exceptions import TableNotFoundError

    from graph.published import arrow_dataset, open_table, read_published

    storage = as_storage(lake)
    lines = [f"lakehouse {storage.uri()}", ""]
    frames = {}
    manifest = read_published(storage)
    for table in TABLES:
        try:
            frames[table] = arrow_dataset(open_table(storage, table, manifest), storage).to_table().to_pandas()
            lines.append(f"  {table:<15}{len(frames[table]):>8} rows")
        except TableNotFoundError:
            lines.append(f"  {table:<15}{'—':>8} (not written yet)")
    gold = _gold_report(storage)
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


def _gold_report(lake: Path | LakehouseStorage) -> dict[str, Any] | None:
    """The entities stage's score against ``ner.gold_list`` (its marker's ``details["gold"]``), if it made one."""
    from ingestion.markers import MarkerStore

    marker = MarkerStore(lake).read("entities")
    return marker.details.get("gold") if marker is not None else None


@click.command("summary", cls=Command)
@click.argument("lakehouse")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True,
              help="Entities and relations listed.")
def summary(lakehouse: str, top: int) -> None:
    """What LAKEHOUSE holds as its last completed run published it: table sizes, the score against the gold list,
    the main entities and the strongest relations. Reads Delta with delta-rs (no Spark), so it answers at once.

    LAKEHOUSE is a folder, a file:// URI or an s3a:// URI (reached with the settings' lakehouse.s3). Exit code 2
    when LAKEHOUSE does not exist.
    """
    storage = lakehouse_storage(lakehouse, None)
    try:
        if not storage.is_dir():
            fail(f"lakehouse {lakehouse} does not exist; run the pipeline first")
        text = summarize(storage, top)
    except StorageError as exc:  # a bucket that cannot be reached: one line naming it and the endpoint
        fail(str(exc), EXIT_FAILED)
    click.echo(text)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m jobs.summary LAKEHOUSE [--top N]``: the ``csillag summary`` command."""
    return run(summary, argv, prog_name="csillag summary")


if __name__ == "__main__":
    sys.exit(main())
