"""Tiny language-light text helpers shared by the offline router and the extractive composer.

Stems are word prefixes (5 characters) so that English plurals and Hungarian suffixes ("Dobó", "Dobónak") meet;
stop words of English and Hungarian are dropped. Deterministic, no model needed.
"""

from __future__ import annotations

import logging
import re

logger = logging.getLogger(__name__)

_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n{2,}")
STEM_CHARS = 5
STOP_WORDS = frozenset(
    """
    a an the and or but of to in on at by for with from as is are was were be been being do does did what who whom
    which when where why how this that these those it its he she they them his her their i you we me my your our
    about tell me please can could would should will there here not no yes any some all into than then so if
    az egy és vagy de hogy mi mit ki kit kik milyen mikor hol miért hogyan ez ezt azt ő ők van volt lesz nem igen
    is meg el fel le ki be már még csak mert ha akkor mint minden sem se nagyon kérem mondd el róla neki
    """.split()
)


def words(text: str) -> list[str]:
    """Case-folded words of ``text``."""
    return [w.casefold() for w in _WORD.findall(text)]


def stems(text: str) -> set[str]:
    """Content stems of ``text``: words minus stop words, cut to ``STEM_CHARS`` characters."""
    return {w[:STEM_CHARS] for w in words(text) if w not in STOP_WORDS and not w.isdigit()}


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (end punctuation or blank lines)."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def overlap_score(query: set[str], target: set[str]) -> float:
    """Cosine similarity of two stem sets (0..1)."""
    if not query or not target:
        return 0.0
    return len(query & target) / (len(query) * len(target)) ** 0.5
