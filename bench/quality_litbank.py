"""Quality figures of the English literary NER, all of them reproduced by one command.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/quality_litbank.py [--workdir .cache/en_ner] [--retrain]
        [--skip-cv] [--litbank ../shared/data/litbank] [--base-share S ...]

1. LitBank 5-fold cross-validation by book (75 books): named people (PER mentions LitBank's coreference layer marks
   PROP) and named places (PROP GPE/LOC/FAC): P/R/F1 of en_core_web_sm, of the fold's fine-tuned NER alone and of
   the default pipeline (that NER mixed with en_core_web_sm's by the base share, + the name-label step). Folds
   trained before in ``--workdir`` (by scripts/train_en_ner.py or an earlier run of this bench) are reused; missing
   ones are trained (~2–10 min each). Several ``--base-share`` values score the same fold models mixed each way (the
   sweep that chose ``en_ner.BASE_SHARE``), each with the folds' mean on the news sample.
2. The shipped model (ingestion/models/en_litbank, trained on all 75 books) on the fixed slice the unit test uses —
   seen in training, so a regression guard, not a measure of generalisation.
3. News-style English: en_core_web_sm vs the default pipeline on tests/data/news_ner_sample.txt (see its README).
4. War and Peace: of the occurrences of the 20 gold characters' aliases (tests/data/gold_war_and_peace.json), the
   share that each pipeline puts inside a PERSON entity.

Never a test: it measures and prints. Record the figures in docs/quality.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ingestion.training import en_ner  # noqa: E402
from ingestion.training.news import NEWS_SAMPLE, score_news  # noqa: E402

# The slice the unit test scores (tests/unit/ingestion/test_issue_14_literary_ner.py): the first piece of each.
WAR_AND_PEACE = ROOT.parent / "shared" / "corpora" / "war_and_peace.txt"
GOLD_WP = ROOT / "tests" / "data" / "gold_war_and_peace.json"
SLICE = ("1023_bleak_house", "155_the_moonstone", "3268_the_mysteries_of_udolpho", "599_vanity_fair")


def main() -> int:
    """Print the cross-validated table, the slice figure and the news comparison."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--litbank", type=Path, default=ROOT.parent / "shared" / "data" / "litbank")
    parser.add_argument("--workdir", type=Path, default=ROOT / ".cache" / "en_ner")
    parser.add_argument("--retrain", action="store_true")
    parser.add_argument("--skip-cv", action="store_true", help="only the slice and news figures")
    parser.add_argument("--base-share", type=float, nargs="+", default=[en_ner.BASE_SHARE],
                        help="shares of en_core_web_sm's ner weights to score (default: the shipped one)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if not args.litbank.is_dir():
        print(f"LitBank not found at {args.litbank}: nothing to measure", file=sys.stderr)
        return 2
    by_book = en_ner.load_pieces(args.litbank)
    if not args.skip_cv:
        for share in args.base_share:
            results = en_ner.cross_validate(by_book, args.workdir, retrain=args.retrain, base_share=share)
            print(f"base share {share:g}: " + en_ner.pooled_table(results))
    pieces = [by_book[name][0] for name in SLICE]
    for model in ("en_core_web_sm", "en_litbank"):
        scores = en_ner.evaluate(model, pieces)["names"]
        print(f"slice ({len(pieces)} pieces) {model:<15} " + json.dumps(
            {cls: row["exact_f1"] for cls, row in scores.items()}))
    if NEWS_SAMPLE.exists():
        for model in ("en_core_web_sm", "en_litbank"):
            print(f"news sample {model:<15} {score_news(model)}")
    if WAR_AND_PEACE.exists() and GOLD_WP.exists():
        for model in ("en_core_web_sm", "en_litbank"):
            print(f"War and Peace {model:<15} {gold_alias_person_share(model)}")
    return 0


def gold_alias_person_share(model: str) -> str:
    """Of the occurrences of the 20 gold characters' aliases in War and Peace, the share inside a PERSON entity
    (and inside an entity of another label), with the pipeline reading the novel in 1,500-character paragraphs."""
    import re

    from ingestion.nlp import NlpSpec, build_nlp

    gold = json.loads(GOLD_WP.read_text(encoding="utf-8"))
    aliases = sorted({a for e in gold["entities"] for a in e["aliases"]}, key=len, reverse=True)
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(a) for a in aliases) + r")\b")
    chunks, current = [], ""
    for para in WAR_AND_PEACE.read_text(encoding="utf-8").split("\n\n"):
        if len(current) + len(para) > 1500 and current:
            chunks.append(current)
            current = ""
        current += para + "\n\n"
    chunks.append(current)
    nlp = build_nlp(NlpSpec(language="en", model=model))
    total = person = other = 0
    for text, doc in zip(chunks, nlp.pipe(chunks, batch_size=64), strict=True):
        ents = [(e.start_char, e.end_char, e.label_) for e in doc.ents]
        for match in pattern.finditer(text):
            total += 1
            labels = {label for s, e, label in ents if s < match.end() and match.start() < e}
            person += "PERSON" in labels
            other += bool(labels) and "PERSON" not in labels
    return (
        f"gold-alias occurrences {total}: in a PERSON {person / total:.3f}, "
        f"only in another label {other / total:.3f}"
    )


if __name__ == "__main__":
    sys.exit(main())
