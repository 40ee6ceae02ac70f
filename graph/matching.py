"""Entity name matching shared by every store: one normaliser, one candidate filter, one score.

Both stores run exactly these functions, so ``find_entity`` answers identically: the embedded store over all
entities in memory, the Neo4j store over the candidates its Cypher pre-filter returns — and that pre-filter
(``search_keys`` ``CONTAINS`` any probe) is the same test ``is_candidate`` applies in Python.

Scoring tiers (the first that applies to a query key ``q`` and an entity key ``k``; an entity scores its best key):

==========================================  =========================================================
``q == k``                                  1.0
every token of ``q`` is a token of ``k``    0.8 + 0.1 × (tokens in q / tokens in k)
every token of ``q`` starts a token of ``k``  0.6 + 0.1 × (tokens in q / tokens in k)
otherwise (typos)                           0.6 × fuzzy, kept only when fuzzy ≥ 0.75, where fuzzy is the larger
                                            of difflib's ratio on the whole keys and the mean over q's tokens
                                            of each token's best ratio against k's tokens
==========================================  =========================================================

A match is kept when its score is at least ``MIN_SCORE``; the answer is ``ambiguous`` when the runner-up is within
``AMBIGUITY_MARGIN`` of the best. Candidates are ranked by score desc, then mention count desc, then entity id.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from graph.results import EntityCandidate, EntityMatch

logger = logging.getLogger(__name__)

MIN_SCORE = 0.45
AMBIGUITY_MARGIN = 0.05
PROBE_LENGTH = 3
FUZZY_FLOOR = 0.75
_WORD = re.compile(r"[^\W_]+")


def normalise(text: str) -> str:
    """Case- and accent-fold a name: NFKD, drop combining marks, casefold, keep word characters, single spaces.

    ``"Dobó  István"`` → ``"dobo istvan"``; ``"Bezúkhov, Pierre"`` → ``"bezukhov pierre"``.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(_WORD.findall(stripped.casefold()))


def search_keys(canonical_name: str, aliases: Iterable[str] = ()) -> list[str]:
    """The normalised, sorted, distinct keys an entity is found by (stored as ``Entity.search_keys`` in Neo4j)."""
    return sorted({key for key in (normalise(name) for name in [canonical_name, *aliases]) if key})


def probes(query_key: str) -> list[str]:
    """The substrings a key must contain to be a candidate: the first ``PROBE_LENGTH`` letters of each query token."""
    return sorted({token[:PROBE_LENGTH] for token in query_key.split()})


def is_candidate(keys: Iterable[str], query_probes: Sequence[str]) -> bool:
    """The pre-filter, identical to the Cypher one: some key contains some probe."""
    return any(probe in key for key in keys for probe in query_probes)


def score_key(query_key: str, key: str) -> float:
    """The score of one entity key against a normalised query (see the module docstring for the tiers)."""
    if query_key == key:
        return 1.0
    q_tokens, k_tokens = query_key.split(), key.split()
    if not q_tokens or not k_tokens:
        return 0.0
    coverage = min(1.0, len(q_tokens) / len(k_tokens))
    if set(q_tokens) <= set(k_tokens):
        return round(0.8 + 0.1 * coverage, 6)
    if all(any(k.startswith(q) for k in k_tokens) for q in q_tokens):
        return round(0.6 + 0.1 * coverage, 6)
    whole = SequenceMatcher(None, query_key, key, autojunk=False)
    pairs = [[SequenceMatcher(None, q, k, autojunk=False) for k in k_tokens] for q in q_tokens]
    # quick_ratio() bounds ratio() from above: skip the exact (slow) ratios when even the bounds miss the floor
    bound = max(whole.quick_ratio(), sum(max(m.quick_ratio() for m in row) for row in pairs) / len(pairs))
    if bound < FUZZY_FLOOR:
        return 0.0
    token_mean = sum(max(m.ratio() for m in row) for row in pairs) / len(pairs)
    fuzzy = max(whole.ratio(), token_mean)
    return round(0.6 * fuzzy, 6) if fuzzy >= FUZZY_FLOOR else 0.0


@dataclass(frozen=True)
class Searchable:
    """What matching needs to know about an entity."""

    entity_id: str
    canonical_name: str
    label: str
    mention_count: int
    keys: tuple[str, ...]


def score_entity(query_key: str, entity: Searchable) -> tuple[float, str]:
    """The entity's best score and the key that produced it (ties: the lexically first key)."""
    best = (0.0, "")
    for key in entity.keys:
        score = score_key(query_key, key)
        if score > best[0]:
            best = (score, key)
    return best


def rank(query: str, entities: Iterable[Searchable], *, label: str | None = None, limit: int = 5) -> EntityMatch:
    """Score and rank entities against ``query``; the same function for every store.

    Entities failing the pre-filter or the label are ignored; those scoring below ``MIN_SCORE`` are returned as
    ``near_misses`` (for the error message) rather than candidates.
    """
    query_key = normalise(query)
    query_probes = probes(query_key)
    scored: list[EntityCandidate] = []
    for entity in entities:
        if label is not None and entity.label != label:
            continue
        if not is_candidate(entity.keys, query_probes):
            continue
        score, key = score_entity(query_key, entity)
        scored.append(
            EntityCandidate(
                entity_id=entity.entity_id, canonical_name=entity.canonical_name, label=entity.label,
                mention_count=entity.mention_count, score=score, matched_key=key,
            )
        )
    scored.sort(key=lambda c: (-c.score, -c.mention_count, c.entity_id))
    kept = [c for c in scored if c.score >= MIN_SCORE][: max(limit, 1)]
    near = [c.canonical_name for c in scored if c.score < MIN_SCORE][:3]
    ambiguous = len(kept) >= 2 and round(kept[0].score - kept[1].score, 6) <= AMBIGUITY_MARGIN
    return EntityMatch(
        query=query, normalised=query_key, best=kept[0] if kept else None, candidates=kept, ambiguous=ambiguous,
        near_misses=near,
    )
