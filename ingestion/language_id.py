"""Which language a document is written in: py3langid's classifier over its opening, or None when it does not tell.

py3langid (langid.py's naive Bayes model over byte n-grams, 140 languages, in the package itself: no download) is
loaded once per process, on first use — in a Spark worker, by the documents stage's first detection there. Measured
figures (accuracy on en/hu/de/ru/fr, time per document) are in docs/quality.md.

A document whose opening has fewer than ``MIN_WORDS_FOR_LANGUAGE`` words (runs of letters) is not judged (the
caller falls back to the tool's language), nor one whose most likely language has a probability under
``MIN_CONFIDENCE``: a list of names, numbers or code is no language, and guessing one would route it to a model for
nothing.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import version
from typing import Any

import numpy as np

from ingestion.text import LANGUAGE_SAMPLE_CHARS, MIN_WORDS_FOR_LANGUAGE, letter_words

# Probability (py3langid's, normalised over its languages) the best language must reach. On 250-word windows of
# LitBank, the Hungarian novels and hand-written German, Russian and French it is 0.98 or more; on single sentences
# it falls to 0.07 — those stay under MIN_WORDS_FOR_LANGUAGE anyway — and 300 repeats of one name score 0.05.
MIN_CONFIDENCE = 0.9
# py3langid's label for text with no linguistic content.
_NO_LANGUAGE = "zxx"


# py3langid's tokenizer is an Aho-Corasick automaton over byte n-grams: the state after a byte is that of the longest
# suffix of the text that is a prefix of an n-gram, so it is the state the last WINDOW bytes lead to from the start
# when no state is deeper than WINDOW bytes (the installed model's deepest is 6: ``automaton_depth``, checked by the
# tests).
WINDOW = 6


@cache
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    class WindowedIdentifier(LanguageIdentifier):
        """py3langid's identifier whose feature counts come from ``window_visits``: the same counts in the same
        order, so the same scores, computed by numpy — py3langid's walk, a Python step per byte, was most of the
        documents stage's time (docs/benchmarks.md)."""

        __slots__ = ("_tables",)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._tables = automaton_tables(self)

        def _raw_score(self, text: bytes) -> Any:
            visits = window_visits(self._tables, text)
            if visits:
                return self._sparse_score(visits, self.nb_ptc)
            return super()._raw_score(b"")  # no feature: py3langid's own answer for that

    return WindowedIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def automaton_tables(identifier: Any) -> tuple[Any, Any, Any]:
    """A py3langid identifier's automaton as numpy arrays: next state by (row offset + byte), each state's row
    offset, each state's feature (-1: none)."""
    next_state = np.frombuffer(identifier.tk_nextmove, dtype=np.uint32).astype(np.intp)
    return next_state, np.asarray(identifier._rowbase, dtype=np.intp), np.asarray(identifier.tk_output, np.intp)


def automaton_depth(identifier: Any) -> int:
    """The most bytes any state of the identifier's automaton lies from its start (breadth first)."""
    next_state, row, _ = automaton_tables(identifier)
    seen = np.zeros(len(row), dtype=bool)
    seen[0] = True
    frontier, depth = np.array([0]), 0
    while True:
        reached = np.unique(next_state[(row[frontier][:, None] + np.arange(256)[None, :]).ravel()])
        frontier = reached[~seen[reached]]
        if not len(frontier):
            return depth
        seen[frontier] = True
        depth += 1


def window_visits(tables: tuple[Any, Any, Any], data: bytes) -> dict[int, int] | None:
    """feature → how many bytes of ``data`` end one, in the order of their first ending (py3langid's
    ``visit_counts``), or None for none: every byte's state found at once, by ``WINDOW`` steps of every byte's
    walk from the start over the bytes before it."""
    next_state, row, output = tables
    text = np.frombuffer(data, dtype=np.uint8).astype(np.intp)
    states = np.zeros(len(text), dtype=np.intp)
    for back in range(min(WINDOW, len(text)) - 1, -1, -1):
        states[back:] = next_state[row[states[back:]] + text[: len(text) - back]]
    features = output[states]
    features = features[features >= 0]
    if not len(features):
        return None
    found, first, counts = np.unique(features, return_index=True, return_counts=True)
    order = np.argsort(first)
    return dict(zip(found[order].tolist(), counts[order].tolist(), strict=True))


def detector_key() -> str:
    """Names the detector and its settings: what the documents stage's fingerprint holds (another version redoes it)."""
    return f"py3langid {version('py3langid')}; min_words {MIN_WORDS_FOR_LANGUAGE}; min_confidence {MIN_CONFIDENCE}"


def detect_language(text: str) -> str | None:
    """The ISO 639 code of the language the first ``LANGUAGE_SAMPLE_CHARS`` characters of ``text`` are in.

    None when those hold fewer than ``MIN_WORDS_FOR_LANGUAGE`` words or no language reaches ``MIN_CONFIDENCE``.
    """
    sample = text[:LANGUAGE_SAMPLE_CHARS]
    if len(letter_words(sample)) < MIN_WORDS_FOR_LANGUAGE:
        return None
    language, confidence = _identifier().classify(sample)
    if language == _NO_LANGUAGE or confidence < MIN_CONFIDENCE:
        return None
    return str(language)
