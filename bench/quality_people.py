"""Who's who on many whole books: the pipeline's name resolution scored against hand-written character lists.

    .venv/bin/python bench/quality_people.py [--books SUBSTR …] [--cache DIR …] [--update] [--top 20]
                                             [--min-chapters 5] [--details] [--json FILE] [--resolve [--off RULE …]]

1. Lists: ``tests/data/gold_people/<book>.json``, one per novel of ``../shared/data/litbank/original/`` (written by
   reading the book; each says how in its ``source``): every character named about five times or more, with the
   forms the text writes for them, sex and family ties; forms naming two characters (``ambiguous``); name-like forms
   that are no one (``not_people``).
2. Lakehouses, DEFAULT settings: a book's lakehouse is ``<cache>/<book>`` in the first ``--cache`` holding it built
   (default caches ``/tmp/csillag-people`` then ``/tmp/csillag-qa``, where bench/quality_qa.py builds the QA books);
   it is read as it is unless ``--update`` (then ``csillag pipeline`` reruns its stale stages, as quality_qa does).
   A book built nowhere is built in the first cache by ``csillag pipeline <text> --lakehouse <cache>/<book>``.
   ``--resolve`` scores instead what the entities stage of the code checked out would write on the lakehouse's
   ``mentions`` and ``chunks`` (its own in-process steps; nothing is written), with the rules ``--off`` switched off:
   a rule measured on every book in seconds, without rerunning the pipeline.
3. Scores per book (bench/people_scoring.py), from the ``mentions``, ``mention_entities``, ``entities`` and ``chunks``
   tables:
   - B³ precision/recall/F1 of name clustering over the PERSON mentions (NER label PERSON, or resolved into a PERSON
     entity) whose text is an unambiguous alias of the list: the gold cluster is the character, the system cluster
     the mention's ``entity_id`` (an unresolved mention is alone);
   - wrong merges: PERSON entities holding (in their aliases or their mentions' texts) aliases of two characters,
     ``family`` when the list records a tie between two of them; splits: per character, the PERSON entities holding
     its aliases less one, summed;
   - precision of the ``--top`` PERSON entities by mentions: the share holding a character's alias or ambiguous form;
   - non-people: PERSON entities seen in ``--min-chapters`` chapters or more (distinct ``unit_id`` of their mentions'
     chunks) holding a form the list calls no one and no character's form.
   Averages: the mean over the books of each score (merges and splits also summed).

Never a test: it measures and prints. Record the figures in docs/quality.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd
from deltalake import DeltaTable

os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from people_scoring import (  # noqa: E402
    GoldPeople,
    form_key,
    load_gold,
    mention_clustering,
    merges_and_splits,
    non_people,
    top_people_precision,
)
from quality_qa import build_lakehouse  # noqa: E402

LISTS = ROOT / "tests" / "data" / "gold_people"
TEXTS = ROOT.parent / "shared" / "data" / "litbank" / "original"
CACHES = [Path("/tmp/csillag-people"), Path("/tmp/csillag-qa")]


def is_built(lake: Path) -> bool:
    """Whether a lakehouse has its entities stage done (the pipeline's own marker)."""
    return (lake / "_markers" / "entities").exists()


def lakehouse_for(book: str, caches: list[Path], update: bool) -> Path:
    """The book's lakehouse: the first cache holding it built (rerun when ``update``), else built in the first."""
    lake = next((cache / book for cache in caches if is_built(cache / book)), None)
    if lake is not None and not update:
        return lake
    lake = lake or caches[0] / book
    source = TEXTS / f"{book}.txt"
    if not source.exists():
        raise FileNotFoundError(f"no text for {book}: {source} is missing")
    print(f"{book}: csillag pipeline → {lake} …", flush=True)
    build_lakehouse(source, lake)
    return lake


def read(lake: Path, table: str, columns: list[str]) -> pd.DataFrame:
    return DeltaTable(str(lake / table)).to_pandas(columns=columns)


def resolved(lake: Path, off: list[str]) -> dict[str, pd.DataFrame]:
    """The ``entities`` and ``mention_entities`` tables the entities stage of this code would write on the lakehouse's
    mentions and chunks, with default settings and the rules ``off`` switched off (the stage's in-process steps; the
    ids of a previous table are not carried over, which no score reads)."""
    from types import SimpleNamespace

    from ingestion.domains.generic import GenericNERIngestionTool
    from ingestion.relational import query
    from ingestion.stages import entities as stage
    from settings.config import load_settings

    settings = load_settings(ingestion={"disabled_resolution_rules": off})
    tool = GenericNERIngestionTool()
    tool.set_settings(settings)
    ctx = SimpleNamespace(settings=settings, domain=tool.domain_spec(), lakehouse=None, force=False)
    written = DeltaTable(str(lake / "mentions")).to_pyarrow_table(columns=stage.MENTION_COLUMNS)
    chunks = DeltaTable(str(lake / "chunks")).to_pyarrow_table(columns=stage.CHUNK_COLUMNS)
    entities = stage.EntitiesStage()
    found = entities._resolve(ctx, stage.STEPS, written, chunks, [])  # type: ignore[arg-type]
    links = stage.attach_entities(found.mentions, found.mapping, False)
    carriable = entities._carriable(ctx, found, stage.STEPS, chunks)  # type: ignore[arg-type]
    if carriable:
        carried = stage.carried_mentions(chunks, written, carriable, False)
        links = query(stage.UNION_SQL, {"attached": links, "carried": carried})
    rows = stage._entities_rows(found.entities, found.inflected)
    table = stage.entity_table(rows, links, chunks, settings.ingestion.min_entity_mentions)
    kept = query(stage.KEPT_SQL, {"mention_entities": links, "entities": table})
    return {"entities": table.to_pandas(), "mention_entities": kept.to_pandas()}


def book_tables(lake: Path, tables: dict[str, pd.DataFrame] | None = None) -> dict[str, Any]:
    """What the scores read from one lakehouse: PERSON mentions with their entity, and PERSON entities with their
    forms, mention counts and chapters; the entities and their mentions from ``tables`` when given (``resolved``)."""
    mentions = read(lake, "mentions", ["mention_id", "text", "label"])
    if tables is None:
        links = read(lake, "mention_entities", ["mention_id", "entity_id", "chunk_id", "text"])
        entities = read(lake, "entities", ["entity_id", "canonical_name", "label", "aliases", "mention_count"])
    else:
        links, entities = tables["mention_entities"], tables["entities"]
    chunks = read(lake, "chunks", ["chunk_id", "unit_id"])
    label = dict(zip(entities.entity_id, entities.label, strict=True))
    entity_of = dict(zip(links.mention_id, links.entity_id, strict=True))
    person_ids = {e for e, lab in label.items() if lab == "PERSON"}
    rows = zip(mentions.mention_id, mentions.text, mentions.label, strict=True)
    scored = [(t, entity_of.get(m)) for m, t, lab in rows if lab == "PERSON" or entity_of.get(m) in person_ids]
    known = set(mentions.mention_id)
    scored += [(t, e) for m, e, t in zip(links.mention_id, links.entity_id, links.text, strict=True)
               if m not in known and e in person_ids]
    unit = dict(zip(chunks.chunk_id, chunks.unit_id, strict=True))
    forms: dict[str, set[str]] = defaultdict(set)
    units: dict[str, set[str]] = defaultdict(set)
    for e, chunk, text in zip(links.entity_id, links.chunk_id, links.text, strict=True):
        forms[e].add(text)
        units[e].add(unit.get(chunk, chunk))
    people = entities[entities.label == "PERSON"].sort_values(["mention_count", "entity_id"], ascending=[False, True])
    found = [(r.entity_id, r.canonical_name, set(r.aliases) | forms[r.entity_id], len(units[r.entity_id]))
             for r in people.itertuples()]
    return {"mentions": scored, "people": found}


def score_book(gold: GoldPeople, tables: dict[str, Any], top: int, min_chapters: int) -> dict[str, Any]:
    people = tables["people"]
    clustering = mention_clustering(tables["mentions"], gold)
    named = {entity_id: name for entity_id, name, _, _ in people}
    held = {entity_id: f for entity_id, _, f, _ in people}
    structure = merges_and_splits(held, gold)
    owner = gold.owner()
    for merge in structure["merged"]:
        merge["forms"] = sorted(f for f in held[merge["entity"]] if form_key(f) in owner)
        merge["entity"] = named[merge["entity"]]
    # per split character, each entity holding its forms with the forms it holds (what --details prints)
    structure["split_forms"] = {
        c: [(named[e], sorted({form_key(f) for f in held[e] if owner.get(form_key(f)) == c})) for e in ids]
        for c, ids in structure["split"].items()
    }
    structure["split"] = {c: [named[e] for e in ids] for c, ids in structure["split"].items()}
    head = top_people_precision([(name, f) for _, name, f, _ in people], gold, top)
    places = non_people([(name, f, n) for _, name, f, n in people], gold, min_chapters)
    return {"book": gold.book, **{f"b3_{k}": v for k, v in clustering.items()}, **structure,
            "top_precision": head["precision"], "top_others": head["others"], "non_people": len(places),
            "non_people_found": places}


def table(rows: list[dict[str, Any]], top: int, min_chapters: int) -> str:
    head = (f"| book | mentions | B³ P | B³ R | B³ F1 | wrong merges (family) | splits | top-{top} precision "
            f"| non-people in ≥{min_chapters} chapters |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['book']} | {r['b3_mentions']:,} | {r['b3_precision']:.3f} | {r['b3_recall']:.3f} | "
                     f"{r['b3_f1']:.3f} | {r['wrong_merges']} ({r['family_merges']}) | {r['splits']} | "
                     f"{r['top_precision']:.2f} | {r['non_people']} |")
    n = len(rows) or 1

    def mean(key: str) -> float:
        return sum(r[key] for r in rows) / n

    lines.append(f"| **mean of {len(rows)}** | {mean('b3_mentions'):,.0f} | {mean('b3_precision'):.3f} | "
                 f"{mean('b3_recall'):.3f} | {mean('b3_f1'):.3f} | {mean('wrong_merges'):.1f} "
                 f"({mean('family_merges'):.1f}) | {mean('splits'):.1f} | {mean('top_precision'):.2f} | "
                 f"{mean('non_people'):.1f} |")
    lines.append(f"| **total** | {sum(r['b3_mentions'] for r in rows):,} | | | | "
                 f"{sum(r['wrong_merges'] for r in rows)} ({sum(r['family_merges'] for r in rows)}) | "
                 f"{sum(r['splits'] for r in rows)} | | {sum(r['non_people'] for r in rows)} |")
    return "\n".join(lines)


def details(row: dict[str, Any]) -> str:
    lines = [f"\n## {row['book']}"]
    lines += [f"  merge{' (family)' if m['family'] else ''}: {m['entity']} ← {', '.join(m['characters'])}"
              f" [{'; '.join(m['forms'])}]" for m in row["merged"]]
    lines += [f"  split: {c} → " + " | ".join(f"{name} [{'; '.join(forms)}]" for name, forms in held)
              for c, held in row["split_forms"].items()]
    lines += [f"  top, not a character: {', '.join(row['top_others'])}"] if row["top_others"] else []
    lines += [f"  non-person: {p['entity']} ({', '.join(p['kinds'])}; {p['chapters']} chapters)"
              for p in row["non_people_found"]]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", nargs="*", help="only the lists whose name contains one of these")
    parser.add_argument("--cache", type=Path, action="append", help="lakehouse folders, first = where to build")
    parser.add_argument("--update", action="store_true", help="rerun the stale stages of lakehouses already built")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--min-chapters", type=int, default=5)
    parser.add_argument("--details", action="store_true", help="print each book's merges, splits and non-people")
    parser.add_argument("--json", type=Path, help="write every figure and detail here")
    parser.add_argument("--resolve", action="store_true", help="score this code's resolution of the mentions")
    parser.add_argument("--off", action="append", default=[], help="with --resolve: a rule switched off")
    args = parser.parse_args()
    caches = args.cache or CACHES
    paths = sorted(LISTS.glob("*.json"), key=lambda p: int(p.stem.split("_")[0]))
    paths = [p for p in paths if not args.books or any(s in p.stem for s in args.books)]
    rows = []
    for path in paths:
        gold = load_gold(path)
        lake = lakehouse_for(gold.book, caches, args.update)
        tables = resolved(lake, args.off) if args.resolve else None
        rows.append(score_book(gold, book_tables(lake, tables), args.top, args.min_chapters))
    print(table(rows, args.top, args.min_chapters))
    if args.details:
        print("\n".join(details(r) for r in rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
