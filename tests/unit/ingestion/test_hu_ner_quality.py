"""The NerKor scoring of the Hungarian pipeline: per genre, precision, recall, F1 and the genre's size in words.

A blank Hungarian pipeline with an entity ruler stands in for the model, so what it finds is known exactly: in the
fiction doc both gold names, in the news doc one of its two gold names and one span that is no name.
"""

from __future__ import annotations

from typing import Any

import pytest

from ingestion.training.hu_quality import evaluate_ner, format_ner


@pytest.fixture(scope="module")
def ruler_nlp() -> Any:
    import spacy

    nlp = spacy.blank("hu")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([
        {"label": "PER", "pattern": "Gergely"},
        {"label": "LOC", "pattern": "Egerbe"},
        {"label": "PER", "pattern": "Dobó"},
        {"label": "ORG", "pattern": "vár"},  # wrong: no name in the gold
    ])
    return nlp


def _gold(nlp: Any, words: list[str], ents: list[tuple[int, int, str]], genre: str) -> Any:
    from spacy.tokens import Doc, Span

    doc = Doc(nlp.vocab, words=words)
    doc.ents = [Span(doc, start, end, label=label) for start, end, label in ents]
    doc.user_data["genre"] = genre
    return doc


def test_scores_are_split_by_genre_with_precision_recall_and_words(ruler_nlp: Any) -> None:
    docs = [
        _gold(ruler_nlp, ["Gergely", "Egerbe", "ment", "."], [(0, 1, "PER"), (1, 2, "LOC")], "fiction"),
        _gold(ruler_nlp, ["Dobó", "és", "Mekcsey", "a", "vár", "kapujában", "."],
              [(0, 1, "PER"), (2, 3, "PER")], "news"),
    ]
    scores = evaluate_ner(ruler_nlp, docs)

    assert scores.genre_detail == {
        "fiction": {"p": 1.0, "r": 1.0, "f": 1.0, "words": 4.0},
        "news": {"p": 0.5, "r": 0.5, "f": 0.5, "words": 7.0},
    }
    assert scores.per_genre == {"fiction": 1.0, "news": 0.5}
    assert (scores.p, scores.r, scores.n_words) == (0.75, 0.75, 11)
    printed = format_ner(scores)
    assert "news       P 0.5000  R 0.5000  F1 0.5000  (7 words)" in printed
