#!/usr/bin/env python
"""Train csillag's Hungarian NER model from NYTK-NerKor and ship it in ingestion/models/hu_nerkor.

    .venv/bin/python scripts/train_hu_ner.py                  # vectors if missing, convert, train, assemble, evaluate
    .venv/bin/python scripts/train_hu_ner.py --assemble-only  # re-assemble and evaluate the last training run

Steps: the floret vectors (``scripts/train_hu_vectors.py``'s ``build`` with its defaults, into
``.cache/training/hu_vectors``) when that folder has none; convert ``../shared/data/nerkor/{train,devel}``
(``ingestion.training.nerkor``) to DocBins under ``.cache/training/hu_nerkor``; ``spacy train
conf/training/hu_nerkor.cfg`` with the vectors as static vectors (progress table on the console; the best devel
checkpoint is kept); add the base-form component with rules learned from train's lemma column
(``ingestion.baseform``); write the pipeline with its meta (licence CC BY-SA 4.0, NerKor attribution, scores), a
LICENSE and a README; print NER P/R/F1 per label and genre and the base-form accuracy on devel. The defaults are the
shipped model's run (7,000 steps, about 15 min of one core on a quiet machine, 39 min at load 2–6, plus about 21 min
for the vectors when they are missing; more steps and a second phase, ``--init-from``, are measured in
docs/decisions/0022; a tok2vec pretrained by ``scripts/pretrain_hu_tok2vec.py``, ``--init-tok2vec``, in
docs/decisions/0043; the place-gazetteer flag, on by default (``--no-place-flag``), in docs/decisions/0048). Run it
with ``nice -n 10`` and ``OMP_NUM_THREADS=1`` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # its sibling scripts (vectors, pretraining)

from ingestion.baseform import FACTORY, learn_from_nerkor, register  # noqa: E402
from ingestion.training.hu_quality import evaluate_base_forms, evaluate_ner, format_ner  # noqa: E402
from ingestion.training.nerkor import convert  # noqa: E402

logger = logging.getLogger("train_hu_ner")

CONFIG = ROOT / "conf" / "training" / "hu_nerkor.cfg"
NERKOR = ROOT.parent / "shared" / "data" / "nerkor"
WORK = ROOT / ".cache" / "training" / "hu_nerkor"
OUT = ROOT / "ingestion" / "models" / "hu_nerkor"
VECTORS = ROOT / ".cache" / "training" / "hu_vectors" / "vectors"
VERSION = "1.2.0"  # with the place-gazetteer flag (1.1.0 without; 1.0.0 without vectors either)
NERKOR_URL = "https://github.com/nytud/NYTK-NerKor"
CITATION = (
    "Simon, Eszter; Vadász, Noémi. (2021) Introducing NYTK-NerKor, A Gold Standard Hungarian Named Entity Annotated "
    "Corpus. In: Ekštein K., Pártl F., Konopík M. (eds) Text, Speech, and Dialogue. TSD 2021. Lecture Notes in "
    "Computer Science, vol 12848. Springer, Cham. https://doi.org/10.1007/978-3-030-83527-9_19"
)


def main(argv: list[str] | None = None) -> int:
    """Convert, train, assemble, evaluate; 0 on success, 2 when the corpus is missing."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nerkor", type=Path, default=NERKOR, help="NerKor folder with train/ and devel/")
    parser.add_argument("--work", type=Path, default=WORK, help="DocBins and the training run")
    parser.add_argument("--out", type=Path, default=OUT, help="where the shipped pipeline is written")
    parser.add_argument("--assemble-only", action="store_true", help="skip conversion and training")
    parser.add_argument("--max-steps", type=int, default=None, help="override training.max_steps (quick trials)")
    parser.add_argument("--vectors", type=Path, default=VECTORS,
                        help="a spaCy vectors folder the tok2vec reads as static vectors; built when it is the default "
                        "and missing (scripts/train_hu_vectors.py)")
    parser.add_argument("--no-vectors", action="store_true", help="train without static vectors (as 1.0.0)")
    parser.add_argument("--init-from", type=Path, default=None,
                        help="a trained pipeline whose tok2vec and ner the training starts from (a second phase)")
    parser.add_argument("--init-tok2vec", type=Path, default=None,
                        help="pretrained tok2vec weights (scripts/pretrain_hu_tok2vec.py's model-last.bin) the "
                        "training starts from")
    parser.add_argument("--place-flag", action=argparse.BooleanOptionalAction, default=True,
                        help="give the tok2vec the place-gazetteer flag (ingestion.hu_places) as one more attribute "
                        "(the default; --no-place-flag trains without it)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", type=_override,
                        help="a config override for a trial, e.g. components.tok2vec.model.encode.width=256")
    args = parser.parse_args(argv)
    if args.init_from is not None and args.init_tok2vec is not None:
        parser.error("--init-from and --init-tok2vec both set the tok2vec's starting weights: choose one")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not (args.nerkor / "train").is_dir() or not (args.nerkor / "devel").is_dir():
        print(f"NerKor not found at {args.nerkor} (needs train/ and devel/)", file=sys.stderr)
        return 2
    corpus, run = args.work / "corpus", args.work / "run"
    started = time.perf_counter()
    vectors = None if args.no_vectors else args.vectors
    if vectors is not None and not (vectors / "vocab" / "vectors").is_file() and not args.assemble_only:
        if vectors != VECTORS:
            print(f"no spaCy vectors folder at {vectors}", file=sys.stderr)
            return 2
        from train_hu_vectors import build

        build(VECTORS.parent)
    if not args.assemble_only:
        for split in ("train", "devel"):
            n = convert(args.nerkor / split, corpus / f"{split}.spacy")
            print(f"converted {split}: {n} docs", flush=True)
        train(corpus, run, args.max_steps, vectors, dict(args.set), init_from=args.init_from,
              init_tok2vec=args.init_tok2vec, place_flag=args.place_flag)
        print(f"trained in {time.perf_counter() - started:.0f}s", flush=True)
    nlp = assemble(run / "model-best", args.nerkor, args.out, with_vectors=vectors is not None)
    report(nlp, args.nerkor, args.out, corpus)
    print(f"done in {time.perf_counter() - started:.0f}s; model in {args.out}", flush=True)
    return 0


def _override(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` of ``--set``; the value is read as JSON when it parses (numbers, booleans), else kept as text."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--set wants KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def train(corpus: Path, run: Path, max_steps: int | None, vectors: Path | None = None,
          extra: dict[str, object] | None = None, *, init_from: Path | None = None,
          init_tok2vec: Path | None = None, place_flag: bool = False) -> None:
    """``spacy train`` with the checked-in config (its console logger prints the progress table); with ``vectors``,
    the tok2vec also reads them as static vectors; ``extra`` overrides more of the config (trials); with
    ``init_from``, the tok2vec and ner start from that pipeline's weights instead of random ones; with
    ``init_tok2vec``, the tok2vec starts from weights ``spacy pretrain`` wrote; with ``place_flag``, the tok2vec also
    embeds the place-gazetteer flag (``ingestion.hu_places``)."""
    from spacy.cli.train import train as spacy_train
    from spacy.util import load_config

    config = CONFIG
    if init_from is not None:  # spaCy refuses a sourced component that also names its factory: a config of its own
        register()  # the source pipeline is loaded whole, its base-form component too
        sourced = load_config(CONFIG, interpolate=False)
        for name in ("tok2vec", "ner"):
            sourced["components"][name] = {"source": str(init_from)}
        config = run.parent / "sourced.cfg"
        run.parent.mkdir(parents=True, exist_ok=True)
        sourced.to_disk(config)
    if init_tok2vec is not None:  # spaCy reads init_tok2vec only when the config has a [pretraining] block
        from pretrain_hu_tok2vec import pretraining_config

        config = run.parent / "pretrained.cfg"
        run.parent.mkdir(parents=True, exist_ok=True)
        pretraining_config(None, vectors).to_disk(config)

    overrides: dict[str, object] = {
        "paths.train": str(corpus / "train.spacy"),
        "paths.dev": str(corpus / "devel.spacy"),
    }
    if vectors is not None:
        overrides["paths.vectors"] = str(vectors)
        if init_from is None:  # a sourced tok2vec keeps its own architecture
            overrides["components.tok2vec.model.embed.include_static_vectors"] = True
    if max_steps is not None:
        overrides["training.max_steps"] = max_steps
    if place_flag:
        overrides.update(place_flag_overrides(load_config(config, interpolate=False)))
    if init_tok2vec is not None:
        overrides["paths.init_tok2vec"] = str(init_tok2vec)
    overrides.update(extra or {})
    if run.exists():
        shutil.rmtree(run)
    spacy_train(config, run, use_gpu=-1, overrides=overrides)


def place_flag_overrides(config) -> dict[str, object]:  # noqa: ANN001 - a thinc Config
    """The overrides that add the gazetteer flag: the callback that installs it, and one more hashed attribute (a
    table of 64 rows: the flag has two values) in the tok2vec's embedding."""
    from ingestion.hu_places import CALLBACK, PLACE_ATTR
    from ingestion.hu_places import register as register_places

    register_places()
    embed = config["components"]["tok2vec"]["model"]["embed"]
    return {
        "nlp.after_creation": {"@callbacks": CALLBACK},
        "components.tok2vec.model.embed.attrs": [*embed["attrs"], PLACE_ATTR],
        "components.tok2vec.model.embed.rows": [*embed["rows"], 64],
    }


# The text the static vectors were trained on (only the vectors are shipped; ../shared/data/hu_novels/README.md)
VECTORS_SOURCE = {
    "name": "ELTE Novel Corpus (606 novels' text, for the word vectors only)",
    "url": "https://github.com/ELTE-DH/regenykorpusz",
    "license": "public domain (the texts; the corpus's markup is not used)",
    "author": "Department of Digital Humanities, Eötvös Loránd University (ELTE-DH); texts from MEK",
    "citation": "the ELTE Novel Corpus (ELTE-DH), https://github.com/ELTE-DH/regenykorpusz",
}


# The gazetteer a --place-flag pipeline reads (ingestion/data/hu_places.txt, ingestion/data/README.md)
PLACES_SOURCE = {
    "name": "magyar 4.2.0 (PyPI): Hungarian place names, for the place flag only",
    "url": "https://github.com/kobanya/nevek",
    "license": "MIT",
    "author": "Nagy Béla",
}


def assemble(model: Path, nerkor: Path, out: Path, *, with_vectors: bool = False):  # noqa: ANN201 - spacy.Language
    """The trained pipeline + the base-form component, with meta; written to ``out`` (replacing it)."""
    import spacy

    from ingestion.hu_places import register as register_places

    register()
    register_places()  # a pipeline trained with the place flag names its callback
    nlp = spacy.load(model)
    with_places = nlp.config["nlp"]["after_creation"] is not None  # trained with --place-flag
    rules = learn_from_nerkor(nerkor / "train")
    component = nlp.add_pipe(FACTORY, last=True, config={"labels": []})
    component.rules = rules  # type: ignore[attr-defined]  # a BaseForms; add_pipe is typed as any component
    for key in nlp.config["paths"]:
        nlp.config["paths"][key] = None  # the build machine's paths mean nothing in the shipped model
    nlp.meta.update(
        {
            "lang": "hu",
            "name": "nerkor",
            "version": VERSION,
            "description": (
                "Hungarian NER (PER, LOC, ORG, MISC) for csillag: CNN tok2vec + transition-based NER trained on "
                "NYTK-NerKor train (tuned on devel), "
                + ("with floret word vectors trained on 606 public-domain Hungarian novels (the ELTE Novel Corpus, "
                   "text from MEK) and NerKor train; " if with_vectors else "no word vectors; ")
                + ("a place-gazetteer flag (PyPI magyar's place names) as one more tok2vec feature; "
                   if with_places else "")
                + "and csillag_base_forms, which keys each name by its base form (nominative) with suffix rules "
                "learned from NerKor's lemmas."
            ),
            "author": "csillag (model); NYTK — Hungarian Research Centre for Linguistics (training data)",
            "url": NERKOR_URL,
            "license": "CC BY-SA 4.0",
            "sources": [
                {
                    "name": "NYTK-NerKor",
                    "url": NERKOR_URL,
                    "license": "CC BY-SA 4.0",
                    "author": "Hungarian Research Centre for Linguistics (NYTK); Eszter Simon, Noémi Vadász",
                    "citation": CITATION,
                },
                *([VECTORS_SOURCE] if with_vectors else []),
                *([PLACES_SOURCE] if with_places else []),
            ],
        }
    )
    if out.exists():
        shutil.rmtree(out)
    nlp.to_disk(out)
    return nlp


def report(nlp, nerkor: Path, out: Path, corpus: Path) -> None:  # noqa: ANN001
    """Evaluate on devel, print the figures, keep them in the meta and write LICENSE and README next to the model."""
    from spacy.tokens import DocBin

    docs = list(DocBin().from_disk(corpus / "devel.spacy").get_docs(nlp.vocab))
    began = time.perf_counter()
    scores = evaluate_ner(nlp, docs)
    seconds = time.perf_counter() - began
    base = evaluate_base_forms(nlp.get_pipe(FACTORY).rules, nerkor / "devel")
    print(format_ner(scores), flush=True)
    print(f"base forms: {base.accuracy:.4f} of {base.n} devel PER/LOC/ORG names "
          f"({base.inflected_accuracy:.4f} of the {base.n_inflected} inflected)", flush=True)
    print(f"devel speed: {scores.n_words / seconds:.0f} words/s", flush=True)
    meta_path = out / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["performance"] = {
        "ents_p": scores.p, "ents_r": scores.r, "ents_f": scores.f, "ents_per_type": scores.per_label,
        "ents_f_per_genre": scores.per_genre, "base_form_acc": base.accuracy, "evaluated_on": "NerKor devel",
    }
    meta_path.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    shutil.copy(nerkor / "LICENSE.txt", out / "LICENSE")
    vectors = VECTORS_README if nlp.vocab.vectors.shape[0] else ""
    if nlp.config["nlp"]["after_creation"] is not None:
        vectors += PLACES_README
    (out / "README.md").write_text(README.format(version=VERSION, f=scores.f, p=scores.p, r=scores.r,
                                                 base=base.accuracy, url=NERKOR_URL, citation=CITATION,
                                                 vectors=vectors),
                                   encoding="utf-8")


README = """# hu_nerkor {version} — csillag's Hungarian NER model

A spaCy pipeline (tok2vec → ner → csillag_base_forms) trained by `scripts/train_hu_ner.py` with
`conf/training/hu_nerkor.cfg` on the train split of **NYTK-NerKor** and tuned on its devel split. Labels PER, LOC,
ORG, MISC (csillag keeps PER, LOC, ORG). On NerKor devel: P {p:.3f}, R {r:.3f}, F1 {f:.3f}; base forms of the
names {base:.3f} (docs/quality.md, "Hungarian NER").

Load it through csillag (`ner.model = "hu_nerkor"`, the default for Hungarian documents) — its last component is
registered by `ingestion.baseform.register()`.

## Licence and attribution

This model is derived from NYTK-NerKor and is shared under the same licence, **CC BY-SA 4.0** (`LICENSE`).
Training data: NYTK-NerKor ({url}), created by the Hungarian Research Centre for Linguistics (Nyelvtudományi
Kutatóközpont, NYTK); project leaders Eszter Simon and Noémi Vadász. Please cite:

{citation}
{vectors}"""
VECTORS_README = """
The static word vectors (floret: hashed subword rows, `vocab/vectors`) were trained by `scripts/train_hu_vectors.py`
on NerKor's train text and on 606 public-domain Hungarian novels — the text of the ELTE Novel Corpus (ELTE
Department of Digital Humanities, https://github.com/ELTE-DH/regenykorpusz), taken from the Hungarian Electronic
Library (MEK). Only the vectors are shipped, never the text.
"""

PLACES_README = """
The tok2vec also embeds a place flag (`ingestion.hu_places`): whether a word is a place name of
`ingestion/data/hu_places.txt` (as written or with a case ending), a list built from the PyPI package **magyar**
4.2.0 (Nagy Béla, MIT licence, https://github.com/kobanya/nevek). The list ships with csillag, not in this folder:
load the model through csillag, which installs the flag.
"""


if __name__ == "__main__":
    sys.exit(main())
