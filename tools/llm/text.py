"""Sentence splitting for the extractive composer (stems and stop words come from ``tools.retrieval.analyzer``)."""

from __future__ import annotations

import logging
import re

logger = logging.getLogger(__name__)

_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n{2,}")


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (end punctuation or blank lines)."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]
