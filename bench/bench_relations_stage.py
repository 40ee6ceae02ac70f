"""What the relations stage's driver path costs on built lakehouses: the statements of every document, then the sums.

    .venv/bin/python bench/bench_relations_stage.py LAKEHOUSE… [--repeat 3]

Reads each lakehouse's ``documents``, ``mention_entities`` and ``entities`` with delta-rs (only read, never written),
times ``ingestion.stages.relations.statements`` (the people by SQL, the per-document extractor) and
``relation_table`` (sums, inverses, inferred kinship), and prints the best of ``--repeat`` runs with the row counts.
Never a test: it measures and prints (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from deltalake import DeltaTable  # noqa: E402

from ingestion.stages.relations import relation_table, statements  # noqa: E402


def measure(root: Path, repeat: int) -> str:
    """One line: the book's size, the statements and relations made, the best seconds of each step."""
    documents = DeltaTable(str(root / "documents")).to_pyarrow_table(columns=["doc_id", "text", "language"])
    mentions = DeltaTable(str(root / "mention_entities")).to_pyarrow_table(
        columns=["doc_id", "chunk_id", "entity_id", "start", "end"]
    )
    entities = DeltaTable(str(root / "entities")).to_pyarrow_table(columns=["entity_id", "label"])
    extract, total = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        found = statements(documents, mentions, entities)
        extract.append(time.perf_counter() - started)
        relations = relation_table(found)
        total.append(time.perf_counter() - started)
    words = sum(len(text.split()) for text in documents.column("text").to_pylist())
    inferred = sum(1 for count in relations.column("count").to_pylist() if count == 0)
    return (
        f"{root.name}: {words:,} words, {mentions.num_rows:,} resolved mentions; {found.num_rows} statements, "
        f"{relations.num_rows} relations ({inferred} inferred); statements {min(extract):.2f} s, "
        f"whole {min(total):.2f} s"
    )


def main() -> int:
    """Measure every lakehouse named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lakehouses", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for root in args.lakehouses:
        print(measure(root, args.repeat), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
