"""The entities stage's relational pieces timed in process on a lakehouse the pipeline wrote, for the code of one
checkout: its driver twins before they became queries (``mkdir /tmp/twins; git archive 7efd772 | tar -x -C
/tmp/twins``), or the queries.

    .venv/bin/python bench/engine_seam/entity_pieces.py /tmp/twins /tmp/engine-lakes/war_and_peace
    .venv/bin/python bench/engine_seam/entity_pieces.py . /tmp/engine-lakes/war_and_peace

Each piece runs on the same inputs read from the lakehouse (the mapping of forms to entities and the carried aliases
read off its written tables), once, then ``--repeat`` times; the best time and the rows it gave are printed. Never a
test: it measures and prints.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

MENTION_COLUMNS = ["mention_id", "doc_id", "chunk_id", "sentence_index", "sentence_id", "start", "end", "text",
                   "label", "ent_id"]
CHUNK_COLUMNS = ["chunk_id", "doc_id", "chunk_index", "unit_id", "unit_kind", "start", "text"]


def pieces(lake: Path) -> dict[str, Callable[[], Any]]:
    """name → the piece over the lakehouse's rows, by whichever code ``sys.path`` holds."""
    import pyarrow as pa
    from deltalake import DeltaTable

    import ingestion.casing as casing
    import ingestion.stages.entities as entities

    def read(table: str, columns: list[str] | None = None) -> pa.Table:
        return DeltaTable(str(lake / table)).to_pyarrow_table(columns=columns)

    mentions, chunks = read("mentions", MENTION_COLUMNS), read("chunks", CHUNK_COLUMNS)
    written = read("mention_entities")
    table = read("entities", ["entity_id", "canonical_name", "label", "aliases"])
    twins = hasattr(entities, "keyed_rows")
    keyed = (entities.keyed_rows if twins else entities.keyed_mentions)(mentions)
    joined = keyed.select(["mention_id", "text", "label"]).join(written.select(["mention_id", "entity_id"]),
                                                                 "mention_id")
    mapping = {("", text, label): entity_id for text, label, entity_id in zip(
        *(joined.column(c).to_pylist() for c in ("text", "label", "entity_id")), strict=True)}
    people = zip(*(table.column(c).to_pylist() for c in ("entity_id", "label", "aliases")), strict=True)
    aliases = {"": {alias: e for e, label, names in people if label in ("PERSON", "PER") for alias in names
                    if " " not in alias}}
    words = sorted({text for _, text, _ in mapping})
    asked = {"lowercase": words, "capitalised": words[:300], "articled": words}
    if twins:
        return {
            "keyed": lambda: entities.keyed_rows(mentions),
            "surface_forms": lambda: entities.surface_forms_local(keyed, chunks, by_document=False),
            "written_aliases": lambda: entities.written_aliases_local(mentions, mapping, False),
            "attach": lambda: entities.attach_rows(keyed, mapping, False),
            "carried": lambda: entities.carried_rows(chunks, mentions, aliases, False),
            "entity_table": lambda: entities.entity_table_rows(table, written, chunks, 2),
            "casing_facts": lambda: casing.casing_facts(chunks, casing.CASING_PATTERNS, by_document=False),
            "casing_evidence": lambda: casing.casing_evidence_local(chunks, by_document=True, **asked),
        }
    return {
        "keyed": lambda: entities.keyed_mentions(mentions),
        "surface_forms": lambda: entities.surface_forms_by(keyed, chunks, by_document=False),
        "written_aliases": lambda: entities.written_aliases(mentions, mapping, False),
        "attach": lambda: entities.attach_entities(keyed, mapping, False),
        "carried": lambda: entities.carried_mentions(chunks, mentions, aliases, False),
        "entity_table": lambda: entities.entity_table(table, written, chunks, 2),
        "casing_facts": lambda: casing.casing_facts(chunks, by_document=False),
        "casing_evidence": lambda: casing.casing_evidence(chunks, by_document=True, **asked),
    }


def size(result: Any) -> int:
    """Rows of a table, entries of a dict (forms of a dict of them), or words of a ``Casing``'s article usage."""
    if hasattr(result, "num_rows"):
        return int(result.num_rows)
    if hasattr(result, "usage"):
        return sum(map(len, result.usage.values()))
    if isinstance(result, dict) and all(isinstance(group, list) for group in result.values()):
        return sum(map(len, result.values()))
    return len(result)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("code", type=Path, help="the checkout whose ingestion package is timed")
    parser.add_argument("lake", type=Path, help="a lakehouse the pipeline wrote (mentions, chunks, entities)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(args.code.resolve()))
    timed = pieces(args.lake)
    rows = {name: size(piece()) for name, piece in timed.items()}
    best = dict.fromkeys(timed, float("inf"))
    for _ in range(args.repeat):
        for name, piece in timed.items():
            started = time.perf_counter()
            piece()
            best[name] = min(best[name], time.perf_counter() - started)
    print(f"{args.code} load {open('/proc/loadavg').read().split()[0]}")
    for name in timed:
        print(f"  {name:16} {best[name]:7.3f} s  {rows[name]} rows")
    print(f"  {'total':16} {sum(best.values()):7.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
