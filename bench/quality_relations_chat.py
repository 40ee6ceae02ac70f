"""The relations tool on the own QA bench's relation and quotation questions (``bench/qa_own.jsonl``).

    .venv/bin/python bench/quality_relations_chat.py BOOK=LAKEHOUSE…

e.g. ``shared/corpora/war_and_peace.txt=/tmp/csillag-qa/war_and_peace``. Each lakehouse is only read: its quotations,
pronoun links and typed relations are made in memory by the quotes and relations stages' own functions (so a lakehouse
built before those stages serves too), added to its graph, and every question of that book whose kind is ``relation`` or
``quotation`` is put to ``tools.analysis.relations.read_question``. Prints each answer line (or that the graph has
none, so the question would take the usual path) beside the expected answers, and the counts. Judge by reading.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402
from deltalake import DeltaTable  # noqa: E402

from graph.embedded import EmbeddedGraphStore  # noqa: E402
from graph.lakehouse import Lakehouse  # noqa: E402
from graph.model import GraphData, QuoteNode, TypedRelationEdge  # noqa: E402
from graph.tables import MENTION_ENTITIES, QUOTES  # noqa: E402
from ingestion.stages.quotes import output_rows, quote_outputs  # noqa: E402
from ingestion.stages.relations import PRONOUN_COLUMNS, QUOTE_COLUMNS, relation_table, statements  # noqa: E402
from tools.analysis.relations import read_question  # noqa: E402
from tools.retrieval.analyzer import Analyzer  # noqa: E402

KINDS = ("relation", "quotation")


def book_store(root: Path) -> tuple[EmbeddedGraphStore, str]:
    """The lakehouse's graph with its quotations and typed relations made in memory, and the books' language."""

    def table(name: str, columns: list[str]) -> pa.Table:
        return DeltaTable(str(root / name)).to_pyarrow_table(columns=columns)

    documents = table("documents", ["doc_id", "text", "language"])
    people = table("mention_entities", ["doc_id", "chunk_id", "entity_id", "start", "end", "sentence_id", "kind"])
    name_columns = ["doc_id", "chunk_id", "entity_id", "start", "end"]  # as the relations stage reads them
    names = people.filter(pc.equal(people["kind"], "name")).select(name_columns)
    entities = table("entities", ["entity_id", "label"])
    chunks = table("chunks", ["doc_id", "chunk_id", "start", "unit_kind"])
    outputs = quote_outputs(documents, chunks, people, entities)  # reads the names of people only
    quotes = output_rows(outputs, QUOTES)
    references = output_rows(outputs, MENTION_ENTITIES)
    linked = references.filter(pc.equal(references["kind"], "pronoun")).select(PRONOUN_COLUMNS)
    relations = relation_table(statements(documents, names, entities, quotes.select(QUOTE_COLUMNS), linked))
    graph = GraphData.from_lakehouse(Lakehouse.for_root(root)).model_copy(
        update={
            "typed_relations": [TypedRelationEdge.model_validate(row) for row in relations.to_pylist()],
            "quotes": [QuoteNode.model_validate(row) for row in quotes.to_pylist()],
        }
    )
    languages = documents.column("language").to_pylist()
    language = max(set(languages), key=languages.count)
    print(f"{root}: {len(graph.quotes)} quotations, {len(graph.typed_relations)} typed relations", flush=True)
    return EmbeddedGraphStore.from_graph(graph), language


def main() -> int:
    """Ask every relation and quotation question of the named books; print answers and counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("books", nargs="+", help="BOOK=LAKEHOUSE, BOOK as bench/qa_own.jsonl names it")
    args = parser.parse_args()
    questions = [json.loads(line) for line in (ROOT / "bench" / "qa_own.jsonl").read_text().splitlines() if line]
    asked = answered = 0
    for pair in args.books:
        book, root = pair.split("=", 1)
        store, language = book_store(Path(root))
        for question in (q for q in questions if q["book"] == book and q["kind"] in KINDS):
            answer = read_question(store, question["question"], language, Analyzer(language))
            asked, answered = asked + 1, answered + (answer is not None)
            said = answer.lines[0] if answer else "(no answer from the graph: the usual path)"
            print(f"  {question['question']!r}  expected {question['answers']}\n    -> {said}")
    print(f"{answered} of {asked} questions answered from the graph")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
