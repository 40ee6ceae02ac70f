"""Quality of who's who and of relations: every figure of docs/quality.md's section.

    .venv/bin/python bench/quality_resolution.py [--wp-lake DIR] [--skip-wp] [--skip-litbank] [--json FILE]
                                                 [--turns-reach N …]

1. War and Peace *without* its alias table: the pipeline's default settings (``ner_ingestion``, no alias table)
   ingest ``../shared/corpora/war_and_peace.txt`` into ``--wp-lake`` (default ``/tmp/csillag-quality-wp``; built
   once, then reused: every stage is skipped when up to date), and the ``entities`` table is scored against the
   gold list ``tests/data/gold_war_and_peace.json``: pairwise precision/recall (``ingestion.resolution_eval``),
   wrong merges (entities holding the aliases of two gold characters) and splits (a gold character's found aliases
   spread over several entities: entities − 1, summed). The same mentions resolved *with* the alias table are shown
   for reference.
2. LitBank character clustering (``../shared/data/litbank``, coreference layer, 75 books): per book, the ``PROP``
   ``PER`` mentions' texts are resolved as PERSON surface forms by ``resolve_entities`` (no NER involved: the gold
   spans) and the name groupings are compared with LitBank's coreference ids — pairwise over the distinct names of a
   book (a name's gold character: the coreference id most of its mentions carry), summed over the books. Baseline:
   exact names (each distinct cleaned name its own character).
3. Relations. (a) LitBank: the reference says two characters interact in a sentence when the coreference layer
   has a mention of each there (names, nouns or pronouns: "she told him"); a pipeline sees only the names, so each
   window — the sentence, the sentence and its neighbours (±1, ±2) — is scored by pair precision/recall/F1 against
   the reference pairs and by the rank correlation (Spearman) of its counts with the reference's, over all pairs of
   a book's characters (the names grouped by coreference id, so only the window is measured). (b) War and Peace: each
   ``ingestion.cooccurrence_window`` is run by the pipeline's own transform over the resolved mentions (no alias
   table); its pairs among the 20 gold characters are compared with their co-appearance in chapters (a character
   appears in a chapter when one of its gold aliases occurs in the chapter's text — the published co-appearance
   networks are made this way) by pair precision/recall/F1 and Spearman over all 190 pairs.
4. Places by where they are said (LitBank's entities layer): how many of the gold person names and place names of
   the 100 openings the entities stage's rule (``names.said_somewhere``) would call places, counted in each book's
   text by the stage's own tally; and which person names its deity rule (``names.invoked``) would take out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ingestion.casing import casing_evidence  # noqa: E402
from ingestion.evidence import form_tallies  # noqa: E402
from ingestion.names import (  # noqa: E402
    PRONOUN_CLAUSE,
    PRONOUN_PATTERNS,
    PRONOUN_WINDOW,
    a_vessel,
    invoked,
    said_somewhere,
)
from ingestion.resolution import (  # noqa: E402
    AliasTable,
    ResolvedEntity,
    SurfaceForm,
    article_candidates,
    opener_candidates,
    resolve_entities,
)
from ingestion.resolution_eval import GoldEntity, alias_key, load_gold, score_details  # noqa: E402
from ingestion.stages.entities import keyed_mentions  # noqa: E402

SHARED = ROOT.parent / "shared"
LITBANK = SHARED / "data" / "litbank" / "coref" / "tsv"
LITBANK_ENTITIES = SHARED / "data" / "litbank" / "entities" / "brat"
WP_TEXT = SHARED / "corpora" / "war_and_peace.txt"
WP_GOLD = ROOT / "tests" / "data" / "gold_war_and_peace.json"
WP_ALIASES = ROOT / "conf" / "domains" / "war_and_peace_aliases.json"
WINDOWS = ("sentence", "paragraph", "turns", "chunk")
MIN_MENTIONS = 2  # ingestion.min_entity_mentions's default: what the entities table keeps


# -- scoring helpers -------------------------------------------------------------------------------------------


def pair_scores(predicted: set[Any], reference: set[Any]) -> dict[str, float]:
    """Precision, recall and F1 of a set of pairs."""
    hit = len(predicted & reference)
    precision = hit / len(predicted) if predicted else 1.0
    recall = hit / len(reference) if reference else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "predicted": len(predicted),
            "reference": len(reference)}


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Rank correlation (average ranks for ties)."""
    if len(a) < 2:
        return float("nan")
    return float(pd.Series(a).rank().corr(pd.Series(b).rank()))


def merges_and_splits(entities: list[ResolvedEntity], gold: list[GoldEntity]) -> dict[str, Any]:
    """Wrong merges (entities with aliases of two gold characters) and splits (extra entities per character)."""
    owner = {alias_key(alias): g.canonical_name for g in gold for alias in g.aliases}
    holders: dict[str, set[str]] = defaultdict(set)
    merged = []
    for entity in entities:
        characters = {owner[key] for key in map(alias_key, entity.aliases) if key in owner}
        if len(characters) > 1:
            merged.append(sorted(characters))
        for character in characters:
            holders[character].add(entity.canonical_name)
    splits = {name: sorted(names) for name, names in holders.items() if len(names) > 1}
    return {
        "wrong_merges": len(merged), "merged": merged,
        "splits": sum(len(names) - 1 for names in splits.values()), "split": splits,
    }


# -- 1. War and Peace without its alias table --------------------------------------------------------------------


def build_wp_lake(lake: Path) -> None:
    """Run the pipeline with default settings (no alias table) up to the entities stage (NER reused when done)."""
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    command = [sys.executable, "-m", "jobs.pipeline", str(WP_TEXT), "--lakehouse", str(lake), "--quiet"]
    # NER once (skipped when up to date); the cheap entities stage always anew, so the table is this code's
    for stages in (["--stages", "documents,chunks,mentions"], ["--stages", "entities", "--force"]):
        print("running:", " ".join(command[1:] + stages), flush=True)
        subprocess.run(command + stages, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def read_delta(lake: Path, table: str, columns: list[str] | None = None) -> pd.DataFrame:
    """A Delta table of the lakehouse as pandas (delta-rs, no Spark)."""
    from deltalake import DeltaTable

    return DeltaTable(str(lake / table)).to_pandas(columns=columns)


def wp_forms(lake: Path) -> list[SurfaceForm]:
    """The mentions table's distinct (text, label) forms as the entities stage aggregates them (``form_tallies``, the
    driver's twin of its Spark pass): keyed by ``ent_id`` where there is one, with the pronouns after each mention,
    the chapters, the places and speech verbs around them, and the names said in one sentence with them."""
    from deltalake import DeltaTable

    mentions = DeltaTable(str(lake / "mentions")).to_pyarrow_table(
        columns=["doc_id", "chunk_id", "sentence_id", "start", "end", "text", "label", "ent_id"])
    chunks = DeltaTable(str(lake / "chunks")).to_pyarrow_table(columns=["chunk_id", "unit_id", "start", "text"])
    return form_tallies(keyed_mentions(mentions), chunks, by_document=False)[""].surface_forms()


def resolve_kept(forms: list[SurfaceForm], table: AliasTable | None) -> list[ResolvedEntity]:
    """Resolve, then keep the entities with at least ``MIN_MENTIONS`` mentions (as the entities table does)."""
    entities, mapping = resolve_entities(forms, language="en", alias_table=table)
    mass: Counter[str] = Counter()
    for form in forms:
        if (form.text, form.label) in mapping:
            mass[mapping[(form.text, form.label)]] += form.count
    return [entity for entity in entities if mass[entity.entity_id] >= MIN_MENTIONS]


def table_entities(lake: Path) -> list[ResolvedEntity]:
    """The ``entities`` table as the pipeline wrote it (its own sentence openers applied, ``min_entity_mentions``)."""
    rows = read_delta(lake, "entities", ["entity_id", "canonical_name", "label", "aliases"])
    return [ResolvedEntity(r.entity_id, r.canonical_name, r.label, tuple(r.aliases)) for r in rows.itertuples()]


def characters_as_people(lake: Path, gold: list[GoldEntity], top: int = 20) -> dict[str, Any]:
    """The held-out measures of who's who on the pipeline's table: the gold characters found as a PERSON entity (one
    holding any of their aliases), and how many of the ``top`` most-mentioned PERSON entities hold a gold character's
    alias (the others are listed: minor characters the 20-name list lacks, or not characters at all — read them)."""
    rows = read_delta(lake, "entities", ["canonical_name", "label", "aliases", "mention_count"])
    people = rows[rows.label == "PERSON"].sort_values("mention_count", ascending=False)
    owner = {alias_key(alias): g.canonical_name for g in gold for alias in g.aliases}
    found = {owner[key] for aliases in people.aliases for key in map(alias_key, aliases) if key in owner}
    ranked = people.head(top)
    held = [any(alias_key(a) in owner for a in aliases) for aliases in ranked.aliases]
    named = zip(ranked.canonical_name, ranked.mention_count, held, strict=True)
    return {
        "characters_found_as_person": f"{len(found)}/{len(gold)}",
        "characters_not_found": sorted({g.canonical_name for g in gold} - found),
        f"top{top}_people_holding_a_gold_character": f"{sum(held)}/{len(ranked)}",
        f"top{top}_people_others": [
            f"{name} ({n})" for name, n, h in named if not h
        ],
    }


def wp_resolution(lake: Path) -> dict[str, Any]:
    """Gold-list figures of the pipeline's entities table, and of the same mentions re-resolved here without (and,
    for reference, with) the alias table — re-resolved without the corpus's sentence openers, so "Meanwhile Kutuzov"
    counts as a name there."""
    gold = load_gold(WP_GOLD)
    forms = wp_forms(lake)
    result: dict[str, Any] = {}
    entities = table_entities(lake)
    score = score_details(entities, gold)
    result["pipeline_entities_table"] = {
        "entities": len(entities), "precision": score.precision, "recall": score.recall,
        "correct_pairs": score.correct_pairs, "predicted_pairs": score.predicted_pairs, "gold_pairs": score.gold_pairs,
        "found_aliases": score.found_aliases, "gold_aliases": score.gold_aliases, **merges_and_splits(entities, gold),
        **characters_as_people(lake, gold),
    }
    for name, table in (("without_alias_table", None), ("with_alias_table", AliasTable.from_file(WP_ALIASES))):
        started = time.perf_counter()
        entities = resolve_kept(forms, table)
        seconds = time.perf_counter() - started
        score = score_details(entities, gold)
        result[name] = {
            "surface_forms": len(forms), "entities": len(entities), "resolve_seconds": round(seconds, 2),
            "precision": score.precision, "recall": score.recall, "correct_pairs": score.correct_pairs,
            "predicted_pairs": score.predicted_pairs, "gold_pairs": score.gold_pairs,
            "found_aliases": score.found_aliases, "gold_aliases": score.gold_aliases,
            **merges_and_splits(entities, gold),
        }
    return result


# -- 2. LitBank character clustering ---------------------------------------------------------------------------


def litbank_books() -> list[dict[str, Any]]:
    """Per book: its mentions (id, sentence, type, kind, text, the text just after it) and coreference ids."""
    books = []
    for path in sorted(LITBANK.glob("*.ann")):
        mentions, coref = {}, {}
        text_path = path.with_suffix(".txt")
        sentences = [line.split(" ") for line in text_path.read_text(encoding="utf-8").splitlines()] \
            if text_path.is_file() else []
        for line in path.read_text(encoding="utf-8").splitlines():
            cells = line.split("\t")
            if cells[0] == "MENTION":
                mentions[cells[1]] = {"sentence": int(cells[2]), "end_sentence": int(cells[4]), "text": cells[6],
                                      "type": cells[7], "kind": cells[8],
                                      "after": _text_after(sentences, int(cells[4]), int(cells[5]))}
            elif cells[0] == "COREF":
                coref[cells[1]] = cells[2]
        for mention_id, mention in mentions.items():
            mention["coref"] = coref.get(mention_id, mention_id)
        books.append({"book": path.stem.removesuffix("_brat"), "mentions": list(mentions.values()),
                      "text": "\n".join(_detok(" ".join(words)) for words in sentences)})
    return books


def _text_after(sentences: list[list[str]], sentence: int, token: int) -> str:
    """The ``PRONOUN_WINDOW`` characters after a mention ending at (sentence, token), up to the sentence's end, as
    the entities stage reads them after each mention in a chunk (``surface_forms_by``): the pronouns there are its
    evidence of a name's sex."""
    words: list[str] = []
    for index in range(sentence, len(sentences)):
        words.extend(sentences[index][token + 1:] if index == sentence else sentences[index])
        if sum(len(word) + 1 for word in words) > PRONOUN_WINDOW:
            break
    return re.match(PRONOUN_CLAUSE, _detok(" " + " ".join(words))[:PRONOUN_WINDOW]).group(0)  # type: ignore[union-attr]


def _detok(text: str) -> str:
    # LitBank's texts are tokenised ("Mr. Bennet 's"): undo the possessive split so names read as in a book
    return re.sub(r" (['’]s?)\b", r"\1", text)


def litbank_clustering(books: list[dict[str, Any]]) -> dict[str, Any]:
    """Pairwise precision/recall of name groupings vs coreference ids, summed over books; and the exact baseline.

    "ours" resolves the bare names; "ours, with pronouns" also gives each form the "he"/"she" pronouns in the text
    just after its mentions, as the pipeline's entities stage does — the evidence of a name's sex it has in a book;
    "ours, with pronouns and casing" also reads the book's text for the casing evidence the stage reads in its
    chunks (``ingestion.casing``: words capitalised only where a sentence starts, "Poor Jo"; one-word names mostly
    said after an article) — everything the stage reads but the chapters a name is said in (LitBank's openings have
    none)."""
    totals = {"ours": Counter[str](), "ours, with pronouns": Counter[str](),
              "ours, with pronouns and casing": Counter[str](), "exact names": Counter[str]()}
    patterns = {sex: re.compile(pattern) for sex, pattern in PRONOUN_PATTERNS.items()}
    for book in books:
        names = [m for m in book["mentions"] if m["type"] == "PER" and m["kind"] == "PROP"]
        by_key: dict[str, Counter[str]] = defaultdict(Counter)
        texts: dict[str, Counter[str]] = defaultdict(Counter)
        said: dict[str, Counter[str]] = defaultdict(Counter)
        for mention in names:
            text = _detok(mention["text"])
            key = alias_key(text)
            if key:
                by_key[key][mention["coref"]] += 1
                texts[key][text] += 1
                said[text].update({sex: len(p.findall(mention["after"])) for sex, p in patterns.items()})
        gold_of = {key: ids.most_common(1)[0][0] for key, ids in by_key.items()}
        forms = [SurfaceForm(text, "PERSON", n) for counter in texts.values() for text, n in counter.items()]
        _, mapping = resolve_entities(forms, language="en")
        ours = {key: mapping.get((texts[key].most_common(1)[0][0], "PERSON"), key) for key in by_key}
        forms = [SurfaceForm(form.text, "PERSON", form.count, he=said[form.text]["he"], she=said[form.text]["she"])
                 for form in forms]
        _, mapping = resolve_entities(forms, language="en")
        with_pronouns = {key: mapping.get((texts[key].most_common(1)[0][0], "PERSON"), key) for key in by_key}
        starters = opener_candidates(forms, "en")
        casing = casing_evidence(
            pa.table({"doc_id": [""], "text": [book["text"]]}), lowercase=starters, capitalised=starters,
            articled=article_candidates(forms, "en"), by_document=False,
        )
        openers = casing.sentence_openers(starters).get("", set())
        _, mapping = resolve_entities(forms, language="en", sentence_openers=openers,
                                      article_usage=casing.usage.get("", {}))
        with_casing = {key: mapping.get((texts[key].most_common(1)[0][0], "PERSON"), key) for key in by_key}
        exact = {key: key for key in by_key}
        systems = (("ours", ours), ("ours, with pronouns", with_pronouns),
                   ("ours, with pronouns and casing", with_casing), ("exact names", exact))
        for system, cluster in systems:
            for a, b in combinations(sorted(by_key), 2):
                together, same = cluster[a] == cluster[b], gold_of[a] == gold_of[b]
                totals[system]["predicted"] += together
                totals[system]["gold"] += same
                totals[system]["correct"] += together and same
    result = {}
    for system, t in totals.items():
        precision = t["correct"] / t["predicted"] if t["predicted"] else 1.0
        recall = t["correct"] / t["gold"] if t["gold"] else 1.0
        result[system] = {"precision": precision, "recall": recall,
                          "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
                          "predicted_pairs": t["predicted"], "gold_pairs": t["gold"], "correct_pairs": t["correct"]}
    return result


def litbank_places() -> dict[str, Any]:
    """Which of LitBank's gold names the entities stage's place rule (``names.said_somewhere``) would call places,
    which person names its deity rule (``names.invoked``) would call deities, and which names its ship rule
    (``names.a_vessel``) would call ships:
    each book's capitalised PER, GPE/LOC/FAC and VEH spans of the entities layer (``brat``), counted where they stand
    in the book's own text by the stage's tally (``form_tallies``). A person's name called a place or a ship is the
    error to avoid; a place or a ship called one is the rule's reach in a 2,000-word opening."""
    fired: dict[str, list[str]] = {"PER": [], "place": []}
    ships: dict[str, list[str]] = {"PER": [], "place": [], "VEH": []}
    invoked_names: list[str] = []
    names: Counter[str] = Counter()
    for ann in sorted(LITBANK_ENTITIES.glob("*.ann")):
        rows: dict[str, list[Any]] = {k: [] for k in ("doc_id", "chunk_id", "start", "end", "text", "label", "ent_id")}
        for line in ann.read_text(encoding="utf-8").splitlines():
            cells = line.split("\t")
            if len(cells) < 3 or " " not in cells[1]:
                continue
            label, start, end = cells[1].split()[:3]
            family = {"PER": "PER", "GPE": "place", "LOC": "place", "FAC": "place", "VEH": "VEH"}.get(label, "")
            if not family or not cells[2][:1].isupper() or cells[2].split()[0].lower() in ("the", "a", "an"):
                continue  # names only: "the streets" is a place but no name
            for key, value in zip(rows, ("d", "c", int(start), int(end), cells[2], family, ""), strict=True):
                rows[key].append(value)
        if not rows["start"]:
            continue
        chunks = pa.table({"chunk_id": ["c"], "unit_id": ["u"], "start": [0],
                           "text": [ann.with_suffix(".txt").read_text(encoding="utf-8")]})
        for form in form_tallies(keyed_mentions(pa.table(rows)), chunks, by_document=False)[""].surface_forms():
            names[form.label] += 1
            if said_somewhere(form.located, form.spoken, form.count):
                fired[form.label].append(f"{ann.stem.removesuffix('_brat')}: {form.text} ({form.located} of "
                                         f"{form.count})")
            if a_vessel(form.vessel, form.count):
                ships[form.label].append(f"{ann.stem.removesuffix('_brat')}: {form.text} ({form.vessel} of "
                                         f"{form.count})")
            if form.label == "PER" and invoked(form.sworn, form.count):
                invoked_names.append(f"{ann.stem.removesuffix('_brat')}: {form.text} ({form.sworn} of {form.count})")
    return {"person_names": names["PER"], "person_names_called_places": fired["PER"],
            "place_names": names["place"], "place_names_called_places": fired["place"],
            "person_names_invoked_in_oaths": invoked_names, "ship_names": names["VEH"],
            "ship_names_called_ships": ships["VEH"], "person_names_called_ships": ships["PER"],
            "place_names_called_ships": ships["place"]}


# -- 3a. LitBank relations: named-mention windows vs coreference co-presence -------------------------------------


def litbank_relations(books: list[dict[str, Any]]) -> dict[str, Any]:
    """Each sentence window over the names vs sentence co-presence of any mention (coreference): P/R/F1, Spearman."""
    reach_of = {"sentence": 0, "sentence ±1": 1, "sentence ±2": 2}
    predicted_all: dict[str, set[Any]] = {name: set() for name in reach_of}
    reference_all: set[Any] = set()
    ranks: dict[str, list[float]] = {name: [] for name in reach_of}
    reference_counts: list[float] = []
    for book in books:
        people = [m for m in book["mentions"] if m["type"] == "PER"]
        characters = {m["coref"] for m in people if m["kind"] == "PROP"}
        everyone: dict[int, set[str]] = defaultdict(set)
        named: dict[int, set[str]] = defaultdict(set)
        for mention in people:
            if mention["coref"] in characters:
                everyone[mention["sentence"]].add(mention["coref"])
                if mention["kind"] == "PROP":
                    named[mention["sentence"]].add(mention["coref"])
        reference = Counter(pair for present in everyone.values() for pair in combinations(sorted(present), 2))
        reference_all |= {(book["book"], *pair) for pair in reference}
        sentences = sorted(named)
        counts = {}
        for name, reach in reach_of.items():
            count: Counter[tuple[str, str]] = Counter()
            for s in sentences:  # a window: sentence s with its neighbours up to ``reach`` away
                present = set().union(*(named.get(t, set()) for t in range(s - reach, s + reach + 1)))
                anchored = named[s]
                count.update({(min(a, b), max(a, b)) for a in anchored for b in present if a != b})
            counts[name] = count
            predicted_all[name] |= {(book["book"], *pair) for pair in count}
        for pair in combinations(sorted(characters), 2):
            reference_counts.append(reference.get(pair, 0))
            for name in reach_of:
                ranks[name].append(counts[name].get(pair, 0))
    return {
        name: {**pair_scores(predicted_all[name], reference_all), "spearman": spearman(ranks[name], reference_counts)}
        for name in reach_of
    }


# -- 3b. War and Peace relations: each window vs chapter co-appearance -------------------------------------------


def chapter_coappearance(lake: Path, gold: list[GoldEntity]) -> Counter[tuple[str, str]]:
    """Chapters (units) in which both characters' gold aliases occur (whole words, case as in the gold list)."""
    chunks = read_delta(lake, "chunks", ["unit_id", "chunk_index", "text"]).sort_values("chunk_index")
    patterns = {g.canonical_name: re.compile(r"\b(?:" + "|".join(re.escape(a) for a in sorted(g.aliases, key=len,
                reverse=True)) + r")\b") for g in gold}
    together: Counter[tuple[str, str]] = Counter()
    for _, unit in chunks.groupby("unit_id"):
        text = "\n\n".join(unit.text)
        present = sorted(name for name, pattern in patterns.items() if pattern.search(text))
        together.update(combinations(present, 2))
    return together


def wp_relations(lake: Path, turns_reaches: Sequence[int] = ()) -> dict[str, Any]:
    """Every window through the pipeline's transform, its gold-character pairs vs chapter co-appearance; then the
    ``turns`` window again with each of ``turns_reaches`` as ``TURNS_REACH`` (an experiment, not a setting)."""
    from ingestion.spark import get_spark
    from ingestion.stages import cooccurrences
    from ingestion.stages.cooccurrences import cooccurrence_pairs
    from settings.config import SparkSettings

    gold = load_gold(WP_GOLD)
    owner = {alias_key(alias): g.canonical_name for g in gold for alias in g.aliases}
    entities = read_delta(lake, "entities", ["entity_id", "aliases"])
    character = {}
    for row in entities.itertuples():
        votes = Counter(owner[key] for key in map(alias_key, row.aliases) if key in owner)
        if votes:
            character[row.entity_id] = votes.most_common(1)[0][0]
    reference = chapter_coappearance(lake, gold)
    names = sorted(g.canonical_name for g in gold)
    all_pairs = list(combinations(names, 2))
    spark = get_spark(SparkSettings(master="local[2]", shuffle_partitions=4, app_name="csillag-quality"))
    read = {t: spark.read.format("delta").load(str(lake / t)) for t in ("mention_entities", "chunks", "entities",
                                                                        "mentions")}
    result = {}
    runs: list[tuple[str, str, int | None]] = [(window, window, None) for window in WINDOWS]
    runs += [(f"turns reaching {reach}", "turns", reach) for reach in turns_reaches]
    default_reach = cooccurrences.TURNS_REACH
    try:
        for name, window, reach in runs:
            cooccurrences.TURNS_REACH = default_reach if reach is None else reach
            started = time.perf_counter()
            pairs = cooccurrence_pairs(read["mention_entities"], read["chunks"], read["entities"], window,
                                       read["mentions"]).select("src_id", "dst_id", "count", "weight").toPandas()
            seconds = time.perf_counter() - started
            count: Counter[tuple[str, str]] = Counter()
            weight: dict[tuple[str, str], float] = {}
            for row in pd.DataFrame(pairs).itertuples():
                a, b = character.get(row.src_id), character.get(row.dst_id)
                if a and b and a != b:
                    pair = (min(a, b), max(a, b))
                    count[pair] += int(row.count)
                    weight[pair] = max(weight.get(pair, 0.0), float(row.weight))
            truth = [reference.get(p, 0) for p in all_pairs]
            result[name] = {
                **pair_scores(set(count), set(reference)),
                "spearman_count": spearman([count.get(p, 0) for p in all_pairs], truth),
                "spearman_weight": spearman([weight.get(p, 0.0) for p in all_pairs], truth),
                "edges": len(pairs), "transform_seconds": round(seconds, 1),
            }
    finally:
        cooccurrences.TURNS_REACH = default_reach
        spark.stop()
    return result


def main(argv: list[str] | None = None) -> int:
    """Measure and print; ``--json`` also writes the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wp-lake", type=Path, default=Path("/tmp/csillag-quality-wp"))
    parser.add_argument("--skip-wp", action="store_true")
    parser.add_argument("--skip-litbank", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--turns-reach", type=int, nargs="*", default=[],
                        help="also run the turns window reaching this many paragraphs (an experiment)")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {}
    if not args.skip_litbank:
        if not LITBANK.is_dir():
            print(f"LitBank not found at {LITBANK}: skipped")
        else:
            books = litbank_books()
            figures["litbank_clustering"] = litbank_clustering(books)
            figures["litbank_relations"] = litbank_relations(books)
            figures["litbank_places"] = litbank_places()
    if not args.skip_wp:
        if not WP_TEXT.is_file():
            print(f"War and Peace not found at {WP_TEXT}: skipped")
        else:
            build_wp_lake(args.wp_lake)  # every stage is skipped when up to date
            figures["wp_resolution"] = wp_resolution(args.wp_lake)
            figures["wp_relations"] = wp_relations(args.wp_lake, args.turns_reach)
    print(json.dumps(figures, indent=1, default=str))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
