"""Typed relations on whole novels: the extractor (ingestion/relations/) scored against family and romance ties
written by reading the books, and its rows printed with their evidence for judging by reading.

    .venv/bin/python bench/quality_relations.py [--books SUBSTR …] [--rows FILE] [--judged FILE] [--json FILE]
                                                [--no-coref] [--nominals] [--no-quotes] [--no-descriptions]
                                                [--link-alone]

1. Lakehouses built before (read only, no NER run): ``/tmp/csillag-people/<book>`` or ``/tmp/csillag-qa/<book>``
   (bench/quality_people.py and bench/quality_qa.py build them); the ``documents`` text and the PERSON mentions of
   ``mention_entities`` (joined with ``entities`` on ``entity_id``, label PERSON).
2. Gold: the family ties of ``tests/data/gold_people/<book>.json`` (parents, children, siblings, spouses) and the rows
   of ``tests/data/gold_relations/<book>.json`` (any type; written by reading, each with where the book says it).
   An entity is the character whose unambiguous aliases most of its mentions are written as (the resolver's merges
   do not move a relation onto the wrong character).
3. Recall: the share of the gold family and romance relations some extracted row (stated or derived inverse) holds
   between the two characters with the same type; again with the kinship those rows imply (``infer``). Proxy
   precision: of the stated rows between two listed characters, the share the gold holds (a gold list is never
   complete, so this is a floor).
4. Precision by reading: every statement is written to ``--rows`` (TSV: book, key, pattern, src, type, dst,
   evidence sentence), and every inferred row (one of each inverse pair, pattern ``inferred``); ``--judged`` (the
   same rows with a note and a last column ``ok`` / ``wrong``, judged by reading) gives the precision over the
   judged rows the run still produces.

Never a test: it measures and prints. Record the figures in docs/quality.md.
"""

from __future__ import annotations

import argparse
import bisect
import csv
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from people_scoring import GoldPeople, form_key, load_gold  # noqa: E402

from ingestion.relations import (  # noqa: E402
    FAMILY_TYPES,
    INVERSE,
    ROMANCE_TYPES,
    PersonMention,
    SpokenQuote,
    aggregate,
    infer,
    relation_mentions,
)
from ingestion.relations import descriptions as descriptions_module  # noqa: E402
from ingestion.relations import extract as extract_module  # noqa: E402
from ingestion.relations.sentences import sentence_spans  # noqa: E402
from ingestion.stages.quotes import document_quotes  # noqa: E402
from ingestion.stages.references import document_references  # noqa: E402

CACHES = (Path("/tmp/csillag-people"), Path("/tmp/csillag-qa"))
PEOPLE = ROOT / "tests" / "data" / "gold_people"
RELATIONS = ROOT / "tests" / "data" / "gold_relations"
# Every book with a gold character list (tests/data/gold_people/, tests/data/gold_relations/) and a built lakehouse.
BOOKS = tuple(sorted({path.stem for path in PEOPLE.glob("*.json")} | {path.stem for path in RELATIONS.glob("*.json")}))
# Books built there without a list: read for the precision by reading, which needs more rows than the listed give.
UNLISTED = ("1661_the_adventures_of_sherlock_holmes",)
COREF = True  # --no-coref: without the pronoun links that confirm a pronoun's person in the sentence before
NOMINALS = False  # --nominals: the quotes stage's descriptions linked to a person ("the old prince") read as names
QUOTES = True  # --no-quotes: without the quotes stage's quotations (no kinship vocatives, no "your KIN")
FAMILY_KEYS = {"parents": "child", "children": "parent", "siblings": "sibling", "spouses": "spouse"}
SCORED = FAMILY_TYPES | ROMANCE_TYPES


def lakehouse(book: str) -> Path | None:
    """The first cache holding ``book``'s built lakehouse, or None (the book is left out, and said so)."""
    for cache in CACHES:
        if (cache / book / "mention_entities").exists():
            return cache / book
    print(f"{book}: no lakehouse in {[str(c) for c in CACHES]}, left out", file=sys.stderr)
    return None


def load_book(root: Path) -> tuple[str, str, list[PersonMention], dict[str, str]]:
    """The document's text and language, its PERSON mentions, each entity's canonical name."""
    documents = DeltaTable(str(root / "documents")).to_pyarrow_table(columns=["doc_id", "text", "language"])
    if documents.num_rows != 1:
        raise SystemExit(f"{root}: expected one document, found {documents.num_rows}")
    entities = DeltaTable(str(root / "entities")).to_pyarrow_table(columns=["entity_id", "canonical_name", "label"])
    people = entities.filter(pc.is_in(entities["label"], pa.array(["PERSON", "PER"])))  # en_litbank, hu_nerkor
    names = dict(zip(people["entity_id"].to_pylist(), people["canonical_name"].to_pylist(), strict=True))
    table = DeltaTable(str(root / "mention_entities")).to_pyarrow_table()
    columns = ["entity_id", "chunk_id", "start", "end"]
    if "kind" in table.column_names:  # the quotes stage's pronoun and nominal rows are not names
        kinds = ["name", "nominal"] if NOMINALS else ["name"]
        table = table.filter(pc.is_in(table["kind"], pa.array(kinds)))
    mentions = [
        PersonMention(row["start"], row["end"], row["entity_id"], row["chunk_id"])
        for row in table.select(columns).to_pylist()
        if row["entity_id"] in names
    ]
    return documents["text"][0].as_py(), documents["language"][0].as_py(), mentions, names


def gold_for(book: str) -> tuple[GoldPeople, set[tuple[str, str, str]]]:
    """The book's characters and its gold relations (src, type, dst), each with its inverse; none for a book
    without a list (its rows count for the precision by reading only)."""
    extra = RELATIONS / f"{book}.json"
    if not extra.exists() and not (PEOPLE / f"{book}.json").exists():
        return GoldPeople(book, [], {}, {}), set()
    relations_file = json.loads(extra.read_text(encoding="utf-8")) if extra.exists() else {}
    people_file = ROOT / relations_file["characters"] if "characters" in relations_file else PEOPLE / f"{book}.json"
    gold = load_gold(people_file)
    stated = [
        (character.name, FAMILY_KEYS[key], other)
        for character in gold.characters
        for key, others in (character.family or {}).items()
        if key in FAMILY_KEYS
        for other in others
    ]
    stated += [(row["src"], row["type"], row["dst"]) for row in relations_file.get("relations", [])]
    known = {character.name for character in gold.characters}
    unknown = [row for row in stated if not {row[0], row[2]} <= known]
    if unknown:  # a tie to someone the list does not hold (named too rarely): nobody can be scored on it
        print(f"{book}: {len(unknown)} gold ties name people not in {people_file.name}, left out: {unknown[:3]} …")
    stated = [row for row in stated if row not in unknown]
    with_inverses = set(stated)
    for src, type_, dst in stated:
        if INVERSE[type_] is not None:
            with_inverses.add((dst, INVERSE[type_], src))  # type: ignore[arg-type]
    return gold, with_inverses


def characters_of(text: str, mentions: list[PersonMention], gold: GoldPeople) -> dict[str, str]:
    """Each entity's character: the one most of its mentions name by an unambiguous alias (a majority)."""
    owner = gold.owner()
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    for mention in mentions:
        written = text[mention.start : mention.end].removesuffix("'s").removesuffix("’s")
        votes[mention.entity_id][owner.get(form_key(written), "")] += 1
    return {
        entity: tally.most_common(1)[0][0]
        for entity, tally in votes.items()
        if tally.most_common(1)[0][0] and 2 * tally.most_common(1)[0][1] > sum(tally.values())
    }


def sentence_of(text: str, spans: list[tuple[int, int]], starts: list[int], start: int, end: int) -> str:
    """The sentence(s) around text[start:end], on one line."""
    first = spans[max(0, bisect.bisect_right(starts, start) - 1)][0]
    last = spans[max(0, bisect.bisect_right(starts, end - 1) - 1)][1]
    return " ".join(text[first:last].split())


def pronoun_links(text: str, mentions: list[PersonMention], quotes: list[SpokenQuote]) -> dict[int, str]:
    """Start of each pronoun -> the entity the quotes stage links it to (its ``mention_entities`` rows of kind
    pronoun, ``ingestion.stages.references``), from the names and the quotations with their speakers."""
    people = sorted({(m.start, m.end, m.entity_id, f"s{m.start}") for m in mentions})
    spoken = [(q.start, q.end, q.speaker_id, q.addressee_ids) for q in quotes]
    rows = document_references("doc", text, [(0, "chunk")], people, spoken)
    return {row["start"]: row["entity_id"] for row in rows if row["kind"] == "pronoun"}


def spoken_quotes(text: str, mentions: list[PersonMention]) -> list[SpokenQuote]:
    """The document's quotations with their speakers and addressees, as the quotes stage writes them."""
    people = sorted({(m.start, m.end, m.entity_id) for m in mentions})
    rows = document_quotes("doc", text, [(0, "chunk")], people)
    return [
        SpokenQuote(r["start"], r["end"], r["speaker_id"], tuple(r["addressee_ids"]), r["attribution"]) for r in rows
    ]


def score_book(book: str, rows_out: list[list[str]]) -> dict[str, Any]:
    """Extract one book's relations and score them; append its stated statements to ``rows_out``."""
    text, language, mentions, names = load_book(lakehouse(book))  # type: ignore[arg-type]
    gold, gold_rows = gold_for(book)
    quotes = spoken_quotes(text, mentions) if QUOTES else []
    links = pronoun_links(text, mentions, quotes) if COREF else None
    statements = relation_mentions(text, mentions, language, links, quotes)
    relations = aggregate(statements)
    inferred = [r for r in infer(relations) if r.inferred]
    character = characters_of(text, mentions, gold)
    found = {(character.get(r.src_id), r.type, character.get(r.dst_id)) for r in relations}
    found_inferred = found | {(character.get(r.src_id), r.type, character.get(r.dst_id)) for r in inferred}
    scored_gold = {row for row in gold_rows if row[1] in SCORED}
    hit, hit_inferred = scored_gold & found, scored_gold & found_inferred
    listed = [r for r in relations if r.stated and r.src_id in character and r.dst_id in character]
    in_gold = [r for r in listed if (character[r.src_id], r.type, character[r.dst_id]) in gold_rows]
    spans = list(sentence_spans(text))
    starts = [span[0] for span in spans]
    for row in statements:
        key = f"{row.start}-{row.end}:{row.src_id}:{row.type}:{row.dst_id}"
        rows_out.append([
            book, key, row.pattern, names[row.src_id], row.type, names[row.dst_id],
            sentence_of(text, spans, starts, row.start, row.end),
        ])  # fmt: skip
    written: set[tuple[str, str, str]] = set()
    for relation in inferred:  # one of each pair: the inverse says the same
        inverse = INVERSE[relation.type]
        src, type_, dst = relation.src_id, relation.type, relation.dst_id
        if inverse is None or (dst, inverse, src) not in written:
            written.add((src, type_, dst))
            rows_out.append([book, f"inferred:{src}:{type_}:{dst}", "inferred", names[src], type_, names[dst], "-"])
    return {
        "book": book, "person_mentions": len(mentions), "statements": len(statements),
        "relations_stated": sum(r.stated for r in relations), "relations_with_inverses": len(relations),
        "by_type": dict(Counter(row.type for row in statements).most_common()),
        "by_pattern": dict(Counter(row.pattern for row in statements).most_common()),
        "gold_family_romance": len(scored_gold), "gold_found": len(hit),
        "recall": round(len(hit) / len(scored_gold), 3) if scored_gold else None,
        "gold_found_with_inference": len(hit_inferred), "inferred": len(inferred),
        "recall_with_inference": round(len(hit_inferred) / len(scored_gold), 3) if scored_gold else None,
        "missed": sorted(scored_gold - found_inferred)[:40],
        "stated_between_listed": len(listed), "stated_in_gold": len(in_gold),
        "proxy_precision": round(len(in_gold) / len(listed), 3) if listed else None,
    }  # fmt: skip


def judged_precision(rows: list[list[str]], judged: Path) -> dict[str, Any]:
    """Precision over the rows of this run that ``judged`` (TSV, last column ok/wrong) judged by reading: all of
    them, and the family and romance ones (the issue's target) apart."""
    verdicts = {}
    with judged.open(encoding="utf-8") as handle:
        for line in csv.reader(handle, delimiter="\t"):
            if len(line) >= 8 and line[-1] in ("ok", "wrong"):
                verdicts[(line[0], line[1])] = line[-1]
    seen = [(row[4], verdicts[(row[0], row[1])]) for row in rows if (row[0], row[1]) in verdicts]
    scores: dict[str, Any] = {"unjudged": sum((row[0], row[1]) not in verdicts for row in rows)}
    for name, kept in (("all", seen), ("family_romance", [pair for pair in seen if pair[0] in SCORED])):
        right = sum(verdict == "ok" for _, verdict in kept)
        precision = round(right / len(kept), 3) if kept else None
        scores[name] = {"judged": len(kept), "right": right, "precision": precision}
    return scores


def main(argv: list[str] | None = None) -> int:
    """Score the books; print one JSON object per book and the totals."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--books", nargs="*", default=list(BOOKS), help="book names (or substrings) to score")
    parser.add_argument("--rows", type=Path, default=Path("/tmp/relations_rows.tsv"), help="statements to judge")
    parser.add_argument("--judged", type=Path, default=RELATIONS / "judged_rows.tsv", help="judged statements")
    parser.add_argument("--json", type=Path, help="write the results here too")
    parser.add_argument("--no-coref", action="store_true", help="without the quotes stage's pronoun links")
    parser.add_argument("--nominals", action="store_true", help="descriptions linked to a person read as names")
    parser.add_argument("--no-quotes", action="store_true", help="without the quotes stage's speakers and vocatives")
    parser.add_argument("--no-descriptions", action="store_true", help="without kinship descriptions ('her father')")
    parser.add_argument("--link-alone", action="store_true", help="a description's his/her by its pronoun link alone")
    args = parser.parse_args(argv)
    global COREF, NOMINALS, QUOTES
    COREF, NOMINALS, QUOTES = not args.no_coref, args.nominals, not args.no_quotes
    extract_module.DESCRIPTIONS = not args.no_descriptions
    descriptions_module.LINK_ALONE = args.link_alone
    books = [
        book for book in BOOKS + UNLISTED if any(part in book for part in args.books) and lakehouse(book) is not None
    ]
    rows: list[list[str]] = []
    results = [score_book(book, rows) for book in books]
    for result in results:
        print(json.dumps(result, ensure_ascii=False))
    with args.rows.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, delimiter="\t").writerows(rows)
    results = [r for r in results if r["gold_family_romance"]] + [r for r in results if not r["gold_family_romance"]]
    total_gold = sum(r["gold_family_romance"] for r in results)
    total_hit = sum(r["gold_found"] for r in results)
    summary: dict[str, Any] = {
        "books": len(results), "rows_to_judge": len(rows), "gold_family_romance": total_gold, "gold_found": total_hit,
        "recall": round(total_hit / total_gold, 3) if total_gold else None,
        "recall_with_inference": round(sum(r["gold_found_with_inference"] for r in results) / total_gold, 3)
        if total_gold
        else None,
        "mean_recall": round(sum(r["recall"] or 0 for r in results) / len(results), 3) if results else None,
        "proxy_precision": round(
            sum(r["stated_in_gold"] for r in results) / max(1, sum(r["stated_between_listed"] for r in results)), 3
        ),
    }  # fmt: skip
    if args.judged.exists():
        summary["by_reading"] = judged_precision(rows, args.judged)
    print(json.dumps(summary, ensure_ascii=False))
    print(f"statements written to {args.rows}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({"books": results, "summary": summary}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
