"""How good the Hungarian pipeline is on NerKor: NER P/R/F1 per label and genre, and base-form accuracy.

Shared by the training script (its final scores), the benchmark (``bench/quality_hu.py``, docs/quality.md) and the
CI test (a fixed slice of devel). NER is scored as ``spacy evaluate`` does, on the corpus's own tokens (the anchors'
figures are on gold tokens too); the pipeline runs with whatever it has (the ruler, the base-form component).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingestion.training.nerkor import gold_base_form, gold_names

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

    from ingestion.baseform import SuffixRules

logger = logging.getLogger(__name__)

NAME_LABELS = ("PER", "LOC", "ORG")


@dataclass
class NerScores:
    """Overall and per-label precision/recall/F1, F1 per genre, and per genre P/R/F1 with its size in words."""

    p: float
    r: float
    f: float
    per_label: dict[str, dict[str, float]] = field(default_factory=dict)
    per_genre: dict[str, float] = field(default_factory=dict)
    n_docs: int = 0
    n_words: int = 0
    genre_detail: dict[str, dict[str, float]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Plain dict (JSON)."""
        return {"p": self.p, "r": self.r, "f": self.f, "per_label": self.per_label, "per_genre": self.per_genre,
                "genre_detail": self.genre_detail, "n_docs": self.n_docs, "n_words": self.n_words}


def evaluate_ner(nlp: Language, docs: Iterable[Doc], batch_size: int = 64) -> NerScores:
    """Score ``nlp``'s entities against the gold ``docs`` (their own tokens), overall, per label and per genre."""
    from spacy.scorer import Scorer
    from spacy.training import Example

    examples = [Example(_plain(doc), doc) for doc in docs]
    predicted = nlp.pipe((eg.predicted for eg in examples), batch_size=batch_size)
    done = [Example(pred, eg.reference) for pred, eg in zip(predicted, examples, strict=True)]
    overall = Scorer.score_spans(done, "ents")
    by_genre: dict[str, list[Example]] = defaultdict(list)
    for eg in done:
        by_genre[eg.reference.user_data.get("genre", "?")].append(eg)
    genre_detail = {g: _prf(Scorer.score_spans(egs, "ents"), egs) for g, egs in sorted(by_genre.items())}
    return NerScores(
        p=float(overall["ents_p"] or 0.0),
        r=float(overall["ents_r"] or 0.0),
        f=float(overall["ents_f"] or 0.0),
        per_label={k: {m: float(v) for m, v in d.items()} for k, d in sorted((overall["ents_per_type"] or {}).items())},
        per_genre={g: d["f"] for g, d in genre_detail.items()},
        n_docs=len(done),
        n_words=sum(len(eg.reference) for eg in done),
        genre_detail=genre_detail,
    )


def _prf(scores: dict[str, Any], examples: list[Any]) -> dict[str, float]:
    """P, R, F1 of a scorer's ``ents`` result, and the words of the examples it scored."""
    return {
        "p": float(scores["ents_p"] or 0.0),
        "r": float(scores["ents_r"] or 0.0),
        "f": float(scores["ents_f"] or 0.0),
        "words": float(sum(len(eg.reference) for eg in examples)),
    }


def _plain(doc: Doc) -> Doc:
    """The doc's words and spacing only (what the pipeline gets to see)."""
    from spacy.tokens import Doc

    return Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc])


@dataclass
class BaseFormScores:
    """Share of gold names whose base form equals the gold lemma (case-insensitive), overall and inflected only."""

    accuracy: float
    n: int
    inflected_accuracy: float
    n_inflected: int
    errors: list[tuple[str, str, str]] = field(default_factory=list)


def evaluate_base_forms(rules: SuffixRules, root: Path, labels: Iterable[str] = NAME_LABELS) -> BaseFormScores:
    """Base forms of every gold PER/LOC/ORG name of a NerKor split against ``text`` with its last word's lemma.

    Case is ignored: NerKor lowercases the lemma of a common noun inside a name ("Európai Tanácsnak" →
    "tanács"), while the key keeps the name's own spelling ("Európai Tanács").
    """
    wanted = set(labels)
    ok = n = ok_infl = n_infl = 0
    errors: list[tuple[str, str, str]] = []
    for label, text, form, lemma in gold_names(root):
        if label not in wanted:
            continue
        gold = gold_base_form(text, form, lemma)
        predicted = rules.base_form(text)
        right = predicted.casefold() == gold.casefold()
        n += 1
        ok += right
        if gold.casefold() != text.casefold():
            n_infl += 1
            ok_infl += right
        if not right:
            errors.append((text, predicted, gold))
    return BaseFormScores(ok / max(n, 1), n, ok_infl / max(n_infl, 1), n_infl, errors)


def format_ner(scores: NerScores) -> str:
    """A few lines for the console: overall, per label, per genre."""
    size = f"({scores.n_docs} docs, {scores.n_words} words)"
    lines = [f"NER  P {scores.p:.4f}  R {scores.r:.4f}  F1 {scores.f:.4f}  {size}"]
    for label, d in scores.per_label.items():
        lines.append(f"  {label:<5} P {d['p']:.4f}  R {d['r']:.4f}  F1 {d['f']:.4f}")
    for genre, d in scores.genre_detail.items():
        lines.append(f"  {genre:<10} P {d['p']:.4f}  R {d['r']:.4f}  F1 {d['f']:.4f}  ({d['words']:.0f} words)")
    return "\n".join(lines)
