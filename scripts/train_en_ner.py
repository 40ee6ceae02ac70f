"""Train the English literary NER shipped in ingestion/models/en_litbank, with 5-fold cross-validation on LitBank.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python scripts/train_en_ner.py [--litbank ../shared/data/litbank]
        [--workdir .cache/en_ner] [--folds 5] [--fold N ...] [--max-steps N] [--skip-cv] [--no-final] [--retrain]
        [--caps 0.0] [--rename 0.0] [--unsure LABELS] [--base-share S]

Steps: convert LitBank (ingestion.training.litbank), train one model per fold on the other folds' books
(conf/training/en_litbank.cfg: en_core_web_sm's NER fine-tuned), score en_core_web_sm, the fold's NER alone and the
shipped form (the fold's NER mixed with en_core_web_sm's by ``--base-share``, then ingestion.name_labels) on the
fold's books (ingestion.training.ner_scores), print the pooled table, then train on all 75 books, mix, and package
the result into ingestion/models/en_litbank. A fold already trained in the workdir is reused unless ``--retrain``
(so trying another ``--base-share`` only re-scores); fold results go to ``<workdir>/cv-base<S>.json``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ingestion.training import en_ner  # noqa: E402
from ingestion.training.ner_scores import pooled  # noqa: E402

MODEL_DIR = ROOT / "ingestion" / "models" / "en_litbank"
VERSION = "1.1.0"


def main(argv: list[str] | None = None) -> int:
    """Run the conversion, the cross-validation and the final training; print progress and scores."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--litbank", type=Path, default=ROOT.parent / "shared" / "data" / "litbank")
    parser.add_argument("--workdir", type=Path, default=ROOT / ".cache" / "en_ner")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--fold", type=int, action="append", help="only these folds (repeatable)")
    parser.add_argument("--max-steps", type=int, default=None, help="override training.max_steps")
    parser.add_argument("--skip-cv", action="store_true")
    parser.add_argument("--no-final", action="store_true")
    parser.add_argument("--retrain", action="store_true")
    parser.add_argument("--caps", type=float, default=en_ner.CAPS_SHARE, help="share of capitalised copies")
    parser.add_argument("--rename", type=float, default=en_ner.RENAME_SHARE, help="share of renamed copies")
    parser.add_argument("--unsure", default=",".join(en_ner.UNSURE_LABELS),
                        help="labels whose base-model spans are left out of the loss (comma-separated; '' for none)")
    parser.add_argument("--base-share", type=float, default=en_ner.BASE_SHARE,
                        help="share of en_core_web_sm's ner weights mixed into the trained ner (0 to 1)")
    args = parser.parse_args(argv)
    if not 0.0 <= args.base_share <= 1.0:
        parser.error(f"--base-share must be between 0 and 1, got {args.base_share}")
    en_ner.CAPS_SHARE, en_ner.RENAME_SHARE = args.caps, args.rename
    en_ner.UNSURE_LABELS = tuple(label for label in args.unsure.split(",") if label)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if not args.litbank.is_dir():
        print(f"LitBank not found at {args.litbank}", file=sys.stderr)
        return 2

    def report(line: str) -> None:
        print(line, flush=True)

    overrides = {"training.max_steps": args.max_steps} if args.max_steps else {}
    by_book = en_ner.load_pieces(args.litbank)
    report(f"LitBank: {len(by_book)} books, {sum(len(p) for p in by_book.values())} pieces")
    results: dict = {}
    if not args.skip_cv:
        results = en_ner.cross_validate(
            by_book, args.workdir, args.folds, args.fold, args.retrain, overrides, report, args.base_share
        )
        report(en_ner.pooled_table(results))
    if not args.no_final:
        books = sorted(by_book)
        report(f"final: training on all {len(books)} books")
        # spaCy wants a dev set; it only logs progress, and the final model has seen those books too.
        _, dev_books = en_ner.split_dev(books)
        out = args.workdir / "final"
        model = en_ner.train(
            [p for b in books for p in by_book[b]], [p for b in dev_books for p in by_book[b]], out, overrides
        )
        shipped = en_ner.assemble(model, out / "pipeline", args.base_share)
        cv = {m: pooled([f[m]["names"] for f in results.values() if m in f]).as_dict() for m in en_ner.PIPELINES}
        extra = {"csillag_base_share": args.base_share}
        if results:
            extra["csillag_cv_named"] = cv
        en_ner.package(shipped, MODEL_DIR, VERSION, extra)
        report(f"final: packaged into {MODEL_DIR.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
