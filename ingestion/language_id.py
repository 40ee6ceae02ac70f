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

from ingestion.text import LANGUAGE_SAMPLE_CHARS, MIN_WORDS_FOR_LANGUAGE, letter_words

# Probability (py3langid's, normalised over its languages) the best language must reach. On 250-word windows of
# LitBank, the Hungarian novels and hand-written German, Russian and French it is 0.98 or more; on single sentences
# it falls to 0.07 — those stay under MIN_WORDS_FOR_LANGUAGE anyway — and 300 repeats of one name score 0.05.
MIN_CONFIDENCE = 0.9
# py3langid's label for text with no linguistic content.
_NO_LANGUAGE = "zxx"


@cache
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


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
