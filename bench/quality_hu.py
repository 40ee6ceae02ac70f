"""Benchmark: csillag's Hungarian NER — NerKor devel scores, base forms, Egri csillagok with and without
its gazetteer, and the mentions stage's speed with the model vs the gazetteer alone.

    .venv/bin/python bench/quality_hu.py [--nerkor ../shared/data/nerkor]
        [--corpus ../shared/corpora/egri_csillagok.txt]
        [--skip-egri] [--skip-devel] [--egri-model-only] [--json FILE] [--model hu_nerkor|PATH]

1. NER precision/recall/F1 of the shipped ``hu_nerkor`` on NerKor devel (gold tokens, as ``spacy evaluate``), overall
   (PER/LOC/ORG/MISC, the anchors' measure), per label, per genre (P/R/F1 and words), and over csillag's labels
   PER/LOC/ORG only.
2. Base forms: share of devel PER/LOC/ORG gold names whose key (the base-form component on the name as written)
   equals the gold base form (the name with its last word's lemma; case ignored), overall and of the inflected ones.
3. Egri csillagok through the whole pipeline, three runs in one Spark session (local[2]): the gazetteer alone
   (``egri_csillagok_ner_ingestion`` with ``ner.model = ""``), the model alone (``ner_ingestion`` with
   ``ner.language = "hu"``: no gazetteer), and the domain's default (gazetteer first, model for the rest). Each is
   scored by the entities stage against the hand-made gold list (tests/data/gold_egri_csillagok.json: pairwise
   precision/recall, and the share of gold aliases found), with the mentions stage's words/s. ``--egri-model-only``
   makes only the model-alone run (comparing trained models).

Never a test: it measures and prints. Record the figures in docs/quality.md ("Hungarian NER") and the
speeds in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
NERKOR = ROOT.parent / "shared" / "data" / "nerkor"
CORPUS = ROOT.parent / "shared" / "corpora" / "egri_csillagok.txt"
GOLD = ROOT / "tests" / "data" / "gold_egri_csillagok.json"


def nerkor_scores(nerkor: Path, model: str = "hu_nerkor") -> dict[str, Any]:
    from spacy.tokens import Doc

    from ingestion.nlp import NlpSpec, build_nlp
    from ingestion.training.hu_quality import evaluate_base_forms, evaluate_ner, format_ner
    from ingestion.training.nerkor import docs_from_split

    nlp = build_nlp(NlpSpec(language="hu", model=model))
    docs = list(docs_from_split(nlp.vocab, nerkor / "devel"))
    began = time.perf_counter()
    scores = evaluate_ner(nlp, docs)
    seconds = time.perf_counter() - began
    print(format_ner(scores))
    names: list[Doc] = []
    for doc in docs:  # the same docs with MISC removed from gold, and MISC predictions dropped by the scorer below
        copy = doc.copy()
        copy.ents = [e for e in doc.ents if e.label_ != "MISC"]
        copy.user_data.update(doc.user_data)
        names.append(copy)
    no_misc = evaluate_ner(_DropMisc(nlp), names)
    print(f"PER/LOC/ORG only: P {no_misc.p:.4f} R {no_misc.r:.4f} F1 {no_misc.f:.4f}")
    base = evaluate_base_forms(nlp.get_pipe("csillag_base_forms").rules, nerkor / "devel")
    print(f"base forms: {base.accuracy:.4f} of {base.n} names; inflected {base.inflected_accuracy:.4f} of "
          f"{base.n_inflected}; e.g. wrong: {base.errors[:8]}")
    print(f"devel speed (one process, gold tokens): {scores.n_words / seconds:.0f} words/s")
    return {"ner": scores.as_dict(), "ner_per_loc_org": no_misc.as_dict(), "base_forms": {
        "accuracy": base.accuracy, "n": base.n, "inflected_accuracy": base.inflected_accuracy,
        "n_inflected": base.n_inflected}, "words_per_second": scores.n_words / seconds}


class _DropMisc:
    """The pipeline with MISC predictions removed (csillag keeps PER/LOC/ORG)."""

    def __init__(self, nlp: Any) -> None:
        self.nlp = nlp

    def pipe(self, docs: Any, batch_size: int = 64) -> Any:
        for doc in self.nlp.pipe(docs, batch_size=batch_size):
            doc.ents = [e for e in doc.ents if e.label_ != "MISC"]
            yield doc


def egri_runs(corpus: Path, model: str = "hu_nerkor", *, model_only: bool = False) -> dict[str, Any]:
    from ingestion.domains.egri_ingestion import EgriCsillagokNERIngestionTool
    from ingestion.domains.generic import GenericNERIngestionTool
    from ingestion.spark import get_spark
    from settings.config import load_settings
    from tools.ingestion import IngestionRequest

    runs = {
        "gazetteer only": (EgriCsillagokNERIngestionTool, {"model": ""}),
        "model only (no gazetteer)": (GenericNERIngestionTool, {"language": "hu", "model": model}),
        "gazetteer + model (default)": (EgriCsillagokNERIngestionTool, {"model": model}),
    }
    if model_only:
        runs = {name: run for name, run in runs.items() if name.startswith("model only")}
    results: dict[str, Any] = {}
    base = Path(tempfile.mkdtemp(prefix="quality_hu_"))
    spark = None
    for number, (name, (tool_class, ner)) in enumerate(runs.items()):
        settings = load_settings(
            lakehouse={"root": base / f"lake{number}"},
            spark={"master": "local[2]", "shuffle_partitions": 2},
            ner={**ner, "gold_list": GOLD},
            ingestion={"min_entity_mentions": 2, "cooccurrence_window": "sentence"},
        )
        spark = spark or get_spark(settings.spark)
        tool = tool_class()
        tool.set_settings(settings)
        tool.set_spark_session(spark)
        began = time.perf_counter()
        result = tool.execute_ingestion(IngestionRequest(inputs=[str(corpus)]))
        stages = {report.stage: report for report in result.stages}
        gold = stages["entities"].details.get("gold", {})
        mentions = stages["mentions"]
        row = {
            "status": result.status,
            "seconds": round(time.perf_counter() - began, 1),
            "mentions": mentions.counts.get("mentions"),
            "mentions_words_per_second": mentions.details.get("words_per_second"),
            "mentions_seconds": mentions.seconds,
            "entities": stages["entities"].counts.get("entities"),
            "gold_precision": gold.get("precision"),
            "gold_recall": gold.get("recall"),
            "gold_aliases_found": f"{gold.get('found_aliases')}/{gold.get('gold_aliases')}",
        }
        results[name] = row
        print(f"Egri csillagok, {name}: {json.dumps(row, ensure_ascii=False)}", flush=True)
        top = tool_entities(base / f"lake{number}")
        print(f"  top entities: {top}", flush=True)
    return results


def tool_entities(lake: Path) -> list[tuple[str, str, int]]:
    from deltalake import DeltaTable

    frame = DeltaTable(str(lake / "entities")).to_pandas()
    frame = frame.sort_values("mention_count", ascending=False).head(15)
    return [(r.canonical_name, r.label, int(r.mention_count)) for r in frame.itertuples()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nerkor", type=Path, default=NERKOR)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--skip-egri", action="store_true")
    parser.add_argument("--skip-devel", action="store_true")
    parser.add_argument("--egri-model-only", action="store_true", help="of Egri csillagok, only the model-alone run")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON")
    parser.add_argument("--model", default="hu_nerkor", help="the Hungarian pipeline: a shipped name or a folder")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    figures: dict[str, Any] = {}
    if not args.skip_devel:
        if (args.nerkor / "devel").is_dir():
            figures["nerkor_devel"] = nerkor_scores(args.nerkor, args.model)
        else:
            print(f"NerKor devel not found at {args.nerkor}: skipped")
    if not args.skip_egri:
        if args.corpus.is_file():
            figures["egri_csillagok"] = egri_runs(args.corpus, args.model, model_only=args.egri_model_only)
        else:
            print(f"{args.corpus} not found: Egri csillagok skipped")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
