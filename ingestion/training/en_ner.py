"""Train and cross-validate the English literary NER on LitBank (used by scripts/train_en_ner.py and bench/).

Folds split by book: the books, sorted by name, go to fold ``index % k``. A fold's model is trained on the other
folds' books (a tenth of them held apart as spaCy's dev set, which only logs progress — the model kept is the last
one, after a fixed number of steps, so the test fold never chooses anything) and scored on its own books with
``ner_scores``. The shipped model is trained the same way on all the books.
"""

from __future__ import annotations

import json
import logging
import random
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ingestion.name_labels import TITLES
from ingestion.nlp import NlpSpec, build_nlp, resolve_model_name
from ingestion.training.litbank import (
    Piece,
    add_rehearsal,
    book_names,
    capitalised_copy,
    name_words,
    pieces,
    read_book,
    renamed_copy,
    to_doc,
)
from ingestion.training.ner_scores import pooled, score_pipeline, score_with_entity_labels
from ingestion.training.news import NEWS_SAMPLE, score_news

if TYPE_CHECKING:
    from spacy.language import Language

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "conf" / "training" / "en_litbank.cfg"
BASE_MODEL = "en_core_web_sm"
# "entity_labels": the default pipeline's names labelled by their entities, as the graph and the answers label them;
# "carried": that, and the people's names carried to the occurrences the NER left unlabelled (ingestion.carrying) —
# what the entities stage writes since its version 6
PIPELINES = ("en_core_web_sm", "ner_only", "default", "entity_labels", "carried")
# Share of training pieces that also get a copy with some sentences in capitals (litbank.capitalised_copy), and
# with their people and places renamed (litbank.renamed_copy). Off: with 0.3 / 0.5, three folds moved named-people F1
# by -1.9, +0.2 and +1.3 points (docs/quality.md) — no gain worth the longer training.
CAPS_SHARE = 0.0
RENAME_SHARE = 0.0
# Labels whose base-model spans outside LitBank's names are left out of the loss (``litbank.add_rehearsal``)
UNSURE_LABELS: tuple[str, ...] = ()  # measured with ("ORG",) on fold 0: docs/quality.md; not adopted
# The share of en_core_web_sm's own ner weights in the shipped ner: every weight is (1 - s) · fine-tuned + s · base
# (``mix_with_base``; weight-space ensembling, Wortsman et al., "Robust fine-tuning of zero-shot models", CVPR 2022).
# Fine-tuning on LitBank alone wears down what the base model knows of other text (news organisations: F1 0.81 →
# 0.22); the mix keeps the fiction gain and most of that knowledge, at no cost at run time (one ner, the same
# architecture). 0.4 is the largest share of the sweep 0 / 0.3 / 0.4 / 0.5 / 0.6 that keeps the cross-validated
# named-people F1 at the 0.85 target (docs/quality.md: people 0.850 → 0.852, news F1 0.694 → 0.797, ORG 0.22 → 0.69).
BASE_SHARE = 0.4
LITBANK_CITATION = (
    "David Bamman, Sejal Popat and Sheng Shen (2019), An Annotated Dataset of Literary Entities, NAACL 2019; "
    "David Bamman, Olivia Lewke and Anya Mansoor (2020), An Annotated Dataset of Coreference in English "
    "Literature, LREC 2020. https://github.com/dbamman/litbank"
)


def load_pieces(litbank: Path, max_chars: int = 1500) -> dict[str, list[Piece]]:
    """Every book's prose pieces, by book name."""
    return {name: list(pieces(read_book(litbank, name), max_chars)) for name in book_names(litbank)}


def folds(books: Sequence[str], k: int = 5) -> list[list[str]]:
    """The books of each fold: sorted by name, book ``i`` in fold ``i % k``."""
    ordered = sorted(books)
    return [ordered[i::k] for i in range(k)]


def write_corpus(
    path: Path, book_pieces: Sequence[Piece], rehearse: bool = True, caps: float = 0.0, rename: float = 0.0
) -> None:
    """A DocBin of the pieces with gold names (+ the base model's rehearsal entities) for ``spacy train``.

    ``caps``: the share of pieces that also get a copy with some sentences in capitals (``capitalised_copy``);
    ``rename``: the share that also get a copy whose people have other names of the corpus (``renamed_copy``).
    """
    import spacy
    from spacy.tokens import DocBin

    base = spacy.load(resolve_model_name(BASE_MODEL), exclude=["tagger", "parser", "attribute_ruler", "lemmatizer"])
    docs = [to_doc(base.vocab, piece) for piece in book_pieces]
    added = add_rehearsal(docs, base, unsure=UNSURE_LABELS) if rehearse else 0
    rng = random.Random(0)
    copies = [
        capitalised_copy(doc, rng, starts=piece.sentence_starts)
        for doc, piece in zip(docs, book_pieces, strict=True)
        if rng.random() < caps
    ]
    pools = name_words(docs, TITLES)
    renamed = [renamed_copy(doc, rng, pools, TITLES) for doc in docs if rng.random() < rename]
    docs.extend(copies + renamed)
    logger.info("corpus %s: %d docs, %d rehearsal entities, %d capitalised and %d renamed copies", path.name,
                len(docs), added, len(copies), len(renamed))
    path.parent.mkdir(parents=True, exist_ok=True)
    DocBin(docs=docs, store_user_data=False).to_disk(path)


def train(
    train_pieces: Sequence[Piece],
    dev_pieces: Sequence[Piece],
    output: Path,
    overrides: dict[str, Any] | None = None,
    config: Path = CONFIG,
) -> Path:
    """Fine-tune per ``config`` on the pieces; returns the trained pipeline's folder (``model-last``)."""
    from spacy.cli.train import train as spacy_train

    corpus = output / "corpus"
    write_corpus(corpus / "train.spacy", train_pieces, caps=CAPS_SHARE, rename=RENAME_SHARE)
    write_corpus(corpus / "dev.spacy", dev_pieces)
    settings = {"paths.train": str(corpus / "train.spacy"), "paths.dev": str(corpus / "dev.spacy")}
    settings.update(overrides or {})
    started = time.perf_counter()
    spacy_train(config, output, use_gpu=-1, overrides=settings)
    logger.info("trained %s in %.0f s", output.name, time.perf_counter() - started)
    return output / "model-last"


def assemble(model_dir: Path, target: Path, base_share: float = 0.0) -> Path:
    """The shipped form of a trained pipeline: its ner, mixed with the base model's by ``base_share``
    (``mix_with_base``), followed by the name-label step (ingestion.name_labels)."""
    import spacy

    from ingestion import name_labels

    nlp = spacy.load(model_dir)
    if base_share:
        mix_with_base(nlp, base_share)
    name_labels.add_to(nlp)
    if target.exists():
        shutil.rmtree(target)
    nlp.to_disk(target)
    return target


def mix_with_base(nlp: Language, base_share: float, base: str = BASE_MODEL) -> None:
    """Mix ``nlp``'s ner weights, in place, with ``base``'s ner: (1 - share) · its own + share · the base's.

    Both ners must be of one architecture with the same labels in the same order (a fine-tuned copy of the base
    ner is); anything else is refused with a ValueError naming the difference, since averaging unrelated weights
    gives a model that looks fine and predicts nonsense.
    """
    import spacy

    if not 0.0 <= base_share <= 1.0:
        raise ValueError(f"base_share must be between 0 and 1, got {base_share!r}")
    reference = spacy.load(resolve_model_name(base), exclude=["tagger", "parser", "attribute_ruler", "lemmatizer"])
    tuned_ner, base_ner = cast(Any, nlp.get_pipe("ner")), cast(Any, reference.get_pipe("ner"))
    if tuned_ner.labels != base_ner.labels:
        raise ValueError(f"cannot mix ners with other labels: {tuned_ner.labels} vs {base} {base_ner.labels}")
    tuned_nodes, base_nodes = list(tuned_ner.model.walk()), list(base_ner.model.walk())
    if [n.name for n in tuned_nodes] != [n.name for n in base_nodes]:
        raise ValueError(f"cannot mix ners of other architectures: {nlp.meta.get('name')} and {base}")
    for mine, theirs in zip(tuned_nodes, base_nodes, strict=True):
        for param in mine.param_names:
            if not (mine.has_param(param) and theirs.has_param(param)):
                continue
            ours, other = mine.get_param(param), theirs.get_param(param)
            if ours.shape != other.shape:
                raise ValueError(f"cannot mix {mine.name}.{param}: shape {ours.shape} vs {base}'s {other.shape}")
            mine.set_param(param, (1.0 - base_share) * ours + base_share * other)


def evaluate(
    model: str, test_pieces: Sequence[Piece], entity_labels: bool = False, carry: bool = False
) -> dict[str, dict[str, dict[str, float | int]]]:
    """Score the pipeline the mentions stage would build for ``model`` (package, alias or path).

    Returns ``{"names": …, "raw": …}``: scores against the names and against LitBank's whole mention spans. With
    ``entity_labels``, each name is labelled by its entity, per book, as the entities stage labels it
    (``score_with_entity_labels``), and with ``carry`` the people's names are carried too.
    """
    nlp = build_nlp(NlpSpec(language="en", model=model))
    if entity_labels:
        names, raw = score_with_entity_labels(nlp, test_pieces, carry=carry)
    else:
        names, raw = score_pipeline(nlp, test_pieces)
    return {"names": names.as_dict(), "raw": raw.as_dict()}


def cross_validate(
    by_book: dict[str, list[Piece]],
    workdir: Path,
    k: int = 5,
    only: Sequence[int] | None = None,
    retrain: bool = False,
    overrides: dict[str, Any] | None = None,
    report: Callable[[str], None] = print,
    base_share: float | None = None,
) -> dict[str, dict[str, Any]]:
    """Train (or reuse) each fold's model in ``workdir/fold<i>`` and score it; results also go to
    ``workdir/cv-base<share>.json``.

    The pipelines of ``PIPELINES`` per fold, on the fold's books: ``en_core_web_sm``, the fold's fine-tuned ``ner``
    alone (``ner_only``, unmixed) and the shipped form — that ner mixed with the base model's by ``base_share``
    (default ``BASE_SHARE``) and followed by the name-label step — as the NER gives it (``default``), labelled by
    entities and carried (see ``PIPELINES``). Each fold's shipped form is also scored on the news sample (``news``).
    """
    share = BASE_SHARE if base_share is None else base_share
    results_path = workdir / f"cv-base{share:g}.json"
    results: dict[str, dict[str, Any]] = json.loads(results_path.read_text()) if results_path.exists() else {}
    for index, test_books in enumerate(folds(list(by_book), k)):
        if only and index not in only:
            continue
        out = workdir / f"fold{index}"
        train_books, dev_books = split_dev([b for b in sorted(by_book) if b not in test_books])
        if retrain or not (out / "model-last" / "meta.json").exists() or not (out / "done").exists():
            report(f"fold {index}: training on {len(train_books)} books (+{len(dev_books)} dev)")
            started = time.perf_counter()
            train([p for b in train_books for p in by_book[b]], [p for b in dev_books for p in by_book[b]], out,
                  overrides)
            (out / "done").write_text("ok\n")
            report(f"fold {index}: trained in {time.perf_counter() - started:.0f} s")
        shipped = assemble(out / "model-last", out / f"pipeline-base{share:g}", share)
        test = [p for b in test_books for p in by_book[b]]
        fold: dict[str, Any] = {
            "books": test_books,
            "base_share": share,
            "en_core_web_sm": evaluate(BASE_MODEL, test),
            "ner_only": evaluate(str(out / "model-last"), test),
            "default": evaluate(str(shipped), test),
            "entity_labels": evaluate(str(shipped), test, entity_labels=True),
            "carried": evaluate(str(shipped), test, entity_labels=True, carry=True),
        }
        if NEWS_SAMPLE.exists():
            fold["news"] = score_news(str(shipped))
        results[str(index)] = fold
        workdir.mkdir(parents=True, exist_ok=True)
        results_path.write_text(json.dumps(results, indent=1))
        report(
            f"fold {index}: named people F1 en_core_web_sm {fold['en_core_web_sm']['names']['people']['exact_f1']:.3f}"
            f", ner only {fold['ner_only']['names']['people']['exact_f1']:.3f}"
            f", default {fold['default']['names']['people']['exact_f1']:.3f}"
            f", carried {fold['carried']['names']['people']['exact_f1']:.3f}"
            + (f"; news F1 {fold['news']['f1']:.3f} (ORG {fold['news']['ORG_f1']:.3f})" if "news" in fold else "")
        )
    return results


def pooled_table(results: dict[str, dict[str, Any]]) -> str:
    """The folds' counts pooled per pipeline: exact P/R/F1 and overlap F1, against names and raw LitBank spans."""
    lines = [f"pooled over folds {sorted(results)} ({sum(len(f['books']) for f in results.values())} books):"]
    for spans in ("names", "raw"):
        for model in PIPELINES:
            scores = pooled([fold[model][spans] for fold in results.values() if model in fold])
            for cls, row in scores.as_dict().items():
                lines.append(
                    f"  {spans:<5} {model:<15} {cls:<7} P {row['exact_p']:.3f} R {row['exact_r']:.3f} "
                    f"F1 {row['exact_f1']:.3f}  overlap F1 {row['overlap_f1']:.3f}  "
                    f"(gold {row['gold']}, predicted {row['predicted']})"
                )
    news = [fold["news"] for fold in results.values() if "news" in fold]
    if news:
        mean = {key: sum(n[key] for n in news) / len(news) for key in ("p", "r", "f1", "ORG_f1", "PERSON_f1")}
        lines.append(
            f"  news sample, mean of the {len(news)} folds' shipped form: P {mean['p']:.3f} R {mean['r']:.3f} "
            f"F1 {mean['f1']:.3f} (ORG {mean['ORG_f1']:.3f}, PERSON {mean['PERSON_f1']:.3f})"
        )
    return "\n".join(lines)


def split_dev(books: Sequence[str]) -> tuple[list[str], list[str]]:
    """Training books and the tenth of them held apart for spaCy's progress log."""
    dev = list(books[::10])
    return [b for b in books if b not in dev], dev


def package(model_dir: Path, target: Path, version: str, extra_meta: dict[str, Any]) -> None:
    """Copy a trained pipeline to ``target`` with a meta that carries the licence, the sources and the scores."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(model_dir, target)
    from spacy.util import load_config

    config = load_config(target / "config.cfg")
    config["paths"]["train"] = config["paths"]["dev"] = None  # the training machine's paths mean nothing elsewhere
    config.to_disk(target / "config.cfg")
    meta_path = target / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta.update(
        {
            "name": "litbank",
            "version": version,
            "description": "English NER for fiction: en_core_web_sm's NER fine-tuned on LitBank's named entities "
            "(OntoNotes labels; PERSON/GPE/LOC/FAC/ORG from LitBank, the other labels rehearsed), its weights "
            "then mixed with en_core_web_sm's (csillag_base_share) so that other English text keeps the base "
            "model's knowledge.",
            "license": "CC BY 4.0 (training data: LitBank); base model en_core_web_sm: MIT",
            "author": "csillag (scripts/train_en_ner.py)",
            "sources": [
                {"name": "LitBank", "url": "https://github.com/dbamman/litbank", "license": "CC BY 4.0",
                 "author": LITBANK_CITATION},
                {"name": "en_core_web_sm", "url": "https://spacy.io/models/en", "license": "MIT",
                 "author": "Explosion"},
            ],
        }
    )
    meta.update(extra_meta)
    meta.pop("performance", None)
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    readme = MODEL_README.format(
        version=version, citation=LITBANK_CITATION, base_share=meta.get("csillag_base_share", 0.0)
    )
    (target / "README.md").write_text(readme, "utf-8")


MODEL_README = """# en_litbank {version} — English NER for fiction

csillag's default English NER pipeline (`ner.model = "en_litbank"`; `en_core_web_sm` stays available by setting).
The named-entity recognizer of spaCy's `en_core_web_sm` 3.8.0 (MIT), fine-tuned on the named entities of LitBank,
its weights then mixed with `en_core_web_sm`'s own ({base_share:g} of the base model's, `csillag_base_share` in
meta.json: weight-space ensembling, so news-style text keeps the base model's organisations), followed by csillag's
name-label step (`ingestion/name_labels.py`, factory `csillag_name_labels`). OntoNotes labels (PERSON, GPE, LOC,
FAC, ORG, NORP, DATE, …). Built by `scripts/train_en_ner.py` (config `conf/training/en_litbank.cfg`); figures in
docs/quality.md ("English literary NER").

## Training data and licence

This model is trained on **LitBank** (entity and coreference layers, 75 books), licensed under the Creative Commons
Attribution 4.0 International License (CC BY 4.0, https://creativecommons.org/licenses/by/4.0/); the model weights
are a derivative of it and are distributed under CC BY 4.0 too. Attribution:

{citation}

Changes made to the data: only the mentions LitBank marks as proper names (PROP) were used, cut to their name part,
renamed to OntoNotes labels (PER→PERSON, VEH→PRODUCT), and the text was detokenised. The base model `en_core_web_sm`
is © Explosion AI, MIT licence.
"""
