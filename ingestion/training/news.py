"""The news-style check of the English NER: a pipeline against tests/data/news_ner_sample.txt.

The sample marks entities inline, ``[Paris](GPE)``, one sentence a line (see tests/data/README.md). A prediction is
right when its span (without a leading "the" or a trailing "'s", as OntoNotes-trained models differ there) and
label both match; only the labels the sample marks are scored.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from ingestion.nlp import NlpSpec, build_nlp
from ingestion.training.ner_scores import normalize_span

logger = logging.getLogger(__name__)

NEWS_SAMPLE = Path(__file__).resolve().parents[2] / "tests" / "data" / "news_ner_sample.txt"
NEWS_LABELS = ("PERSON", "GPE", "LOC", "FAC", "ORG", "NORP")
_MARK = re.compile(r"\[([^\]]+)\]\(([A-Z_]+)\)")


def parse_marked(line: str) -> tuple[str, list[tuple[int, int, str]]]:
    """A marked sentence's plain text and its ``(start, end, label)`` entities."""
    text, spans, position = [], [], 0
    last = 0
    for match in _MARK.finditer(line):
        text.append(line[last : match.start()])
        position += match.start() - last
        name, label = match.group(1), match.group(2)
        spans.append((position, position + len(name), label))
        text.append(name)
        position += len(name)
        last = match.end()
    text.append(line[last:])
    return "".join(text), spans


def load_news(path: Path = NEWS_SAMPLE) -> list[tuple[str, list[tuple[int, int, str]]]]:
    """The sample's sentences with their entities."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [parse_marked(line) for line in lines if line.strip() and not line.startswith("#")]


def score_news(model: str, path: Path = NEWS_SAMPLE) -> dict[str, float | int]:
    """Micro P/R/F1 (span and label) of ``model`` on the sample, and F1 per label."""
    nlp = build_nlp(NlpSpec(language="en", model=model))
    sentences = load_news(path)
    gold_total = pred_total = hits = 0
    per_label: dict[str, list[int]] = {label: [0, 0, 0] for label in NEWS_LABELS}  # gold, predicted, hits
    for (text, gold), doc in zip(sentences, nlp.pipe(t for t, _ in sentences), strict=True):
        predicted = {
            (*normalize_span(text, e.start_char, e.end_char), e.label_) for e in doc.ents if e.label_ in NEWS_LABELS
        }
        expected = set(gold)
        gold_total += len(expected)
        pred_total += len(predicted)
        hits += len(predicted & expected)
        for label in NEWS_LABELS:
            counts = per_label[label]
            counts[0] += sum(1 for g in expected if g[2] == label)
            counts[1] += sum(1 for p in predicted if p[2] == label)
            counts[2] += sum(1 for p in predicted & expected if p[2] == label)
    p = hits / pred_total if pred_total else 0.0
    r = hits / gold_total if gold_total else 0.0
    result: dict[str, float | int] = {
        "gold": gold_total, "p": round(p, 3), "r": round(r, 3), "f1": round(2 * p * r / (p + r) if p + r else 0.0, 3)
    }
    for label, (g, pr, h) in per_label.items():
        result[f"{label}_f1"] = round(2 * h / (g + pr), 3) if g + pr else 0.0
    return result
