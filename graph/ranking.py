"""Ordering and tie-break rules shared by every store, so that equal graphs give equal answers.

Stores may fetch in any order (Cypher ``ORDER BY`` is used only to cut work); the final order is always made here:

- neighbours: weight desc, count desc, neighbour id asc
- top entities: the metric desc (``pagerank``, ``degree`` or ``mention_count``), entity id asc
- shortest path: fewest hops; among those the highest total weight (summed as exact fractions, so the float does
  not depend on summation order), then the lexically smallest list of entity ids from ``a`` to ``b``
- mentions: chunks in book order (doc id, chunk index), mentions inside a chunk by start offset
- timeline: units in book order (doc id, unit index); co-occurring entities by count desc, entity id asc
- path evidence: a hop's chunk ids as stored (sorted, i.e. book order); passages for the first ``EVIDENCE_PASSAGES``
- typed relations: confidence desc, count desc, type, source id, target id; evidence passages as for a path hop
- quotations: book order (doc id, start offset, quote id); a quotation matches a text when the text's normalised
  words (``quote_key``) are a run of whole words of the quotation's
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from fractions import Fraction

from graph.errors import GraphStoreError
from graph.kinship import RELATION_TYPES
from graph.matching import normalise
from graph.model import EntityNode, UnitNode
from graph.results import Kinship, Quotation, RelatedCount, Relation, UnitRelations

logger = logging.getLogger(__name__)

EVIDENCE_PASSAGES = 3
MAX_HOPS = 10
TOP_ENTITY_METRICS: dict[str, str] = {"pagerank": "pagerank", "degree": "degree", "mentions": "mention_count"}


def check_metric(by: str) -> str:
    """The ``EntityNode`` field behind a ``top_entities`` metric; an unknown one names the valid options."""
    try:
        return TOP_ENTITY_METRICS[by]
    except KeyError:
        raise GraphStoreError(
            f"unknown metric {by!r} for top_entities; valid: {', '.join(TOP_ENTITY_METRICS)}"
        ) from None


def check_limit(limit: int, what: str = "limit") -> int:
    """A positive limit, or an error naming the bad value."""
    if limit < 1:
        raise GraphStoreError(f"{what} must be at least 1, got {limit!r}")
    return limit


def check_max_hops(max_hops: int) -> int:
    """A hop bound in 1..``MAX_HOPS`` (Neo4j splices it into a pattern, so both stores insist on a small int)."""
    if type(max_hops) is not int or not 1 <= max_hops <= MAX_HOPS:
        raise GraphStoreError(f"max_hops must be an int from 1 to {MAX_HOPS}, got {max_hops!r}")
    return max_hops


def check_types(types: Iterable[str] | None) -> frozenset[str] | None:
    """The relation types asked for (None: every type); an unknown one names the valid types."""
    if types is None:
        return None
    asked = frozenset(types)
    unknown = sorted(asked - RELATION_TYPES)
    if unknown:
        raise GraphStoreError(
            f"unknown relation type(s) {', '.join(map(repr, unknown))}; valid: {', '.join(sorted(RELATION_TYPES))}"
        )
    return asked


def sort_kinships(kinships: Iterable[Kinship]) -> list[Kinship]:
    """Typed relations in answer order: the surest first."""
    return sorted(
        kinships, key=lambda k: (-k.confidence, -k.count, k.type, k.source.entity_id, k.target.entity_id)
    )


def sort_quotations(quotations: Iterable[Quotation]) -> list[Quotation]:
    """Quotations in book order."""
    return sorted(quotations, key=lambda q: (q.doc_id, q.start, q.quote_id))


def quote_key(text: str) -> str:
    """A text as quotations are searched by: its normalised words between single spaces, padded with one space on
    each side so that ``needle in key`` matches whole words only (stored as ``Quote.search_text`` in Neo4j)."""
    return f" {normalise(text)} "


def sort_neighbours(relations: Iterable[Relation]) -> list[Relation]:
    """Neighbours in answer order."""
    return sorted(relations, key=lambda r: (-r.weight, -r.count, r.target.entity_id))


def sort_top(entities: Iterable[EntityNode], field: str) -> list[EntityNode]:
    """Entities by a metric field desc, then id."""
    return sorted(entities, key=lambda e: (-getattr(e, field), e.entity_id))


def sort_related(counts: Iterable[RelatedCount]) -> list[RelatedCount]:
    """Co-occurring entities of a timeline unit in answer order."""
    return sorted(counts, key=lambda r: (-r.count, r.entity_id))


def best_shortest_path(a_id: str, b_id: str, edges: Iterable[tuple[str, str, float]]) -> tuple[list[str], float] | None:
    """Choose among all shortest ``a``–``b`` paths, given the edges lying on them (the shortest-path DAG).

    Highest total weight wins, then the lexically smallest id list. Weights are summed as exact fractions, so the
    choice and the returned total (correctly rounded) do not depend on the order either store listed the edges in.
    """
    adjacency: dict[str, list[tuple[str, Fraction]]] = {}
    for u, v, weight in edges:
        exact = Fraction(weight)
        adjacency.setdefault(u, []).append((v, exact))
        adjacency.setdefault(v, []).append((u, exact))
    if a_id not in adjacency or b_id not in adjacency:
        return None
    dist = {a_id: 0}
    layer = [a_id]
    while layer:
        following = []
        for node in layer:
            for nxt, _ in adjacency[node]:
                if nxt not in dist:
                    dist[nxt] = dist[node] + 1
                    following.append(nxt)
        layer = following
    if b_id not in dist:
        return None
    # best[v]: (total weight from v to b, ids from v to b), filled from b backwards by decreasing distance
    best: dict[str, tuple[Fraction, list[str]]] = {b_id: (Fraction(0), [b_id])}
    for node in sorted((n for n in dist if dist[n] < dist[b_id]), key=lambda n: -dist[n]):
        options = [
            (weight + best[nxt][0], [node, *best[nxt][1]])
            for nxt, weight in adjacency[node]
            if dist.get(nxt) == dist[node] + 1 and nxt in best
        ]
        if options:
            best[node] = min(options, key=lambda option: (-option[0], option[1]))
    if a_id not in best:
        return None
    total, nodes = best[a_id]
    return nodes, float(total)


def build_timeline(
    mention_units: dict[str, int],
    unit_meetings: Iterable[tuple[str, str, str]],
    units: dict[str, UnitNode],
) -> list[UnitRelations]:
    """Assemble a timeline from the entity's mention count per unit and its meetings ``(unit_id, other_id, name)``.

    A meeting is one evidence chunk of a co-occurrence, attributed to the chunk's unit; units where the entity has
    no mention are left out (they cannot hold a meeting unless the tables disagree).
    """
    counts: dict[str, dict[tuple[str, str], int]] = {}
    for unit_id, other_id, name in unit_meetings:
        per_unit = counts.setdefault(unit_id, {})
        per_unit[(other_id, name)] = per_unit.get((other_id, name), 0) + 1
    timeline = []
    for unit_id, n_mentions in mention_units.items():
        unit = units[unit_id]
        related = [
            RelatedCount(entity_id=other_id, canonical_name=name, count=count)
            for (other_id, name), count in counts.get(unit_id, {}).items()
        ]
        timeline.append(
            UnitRelations(
                unit_id=unit_id, doc_id=unit.doc_id, unit_index=unit.unit_index, unit_title=unit.unit_title,
                part_title=unit.part_title, mention_count=n_mentions, cooccurring=sort_related(related),
            )
        )
    return sorted(timeline, key=lambda u: (u.doc_id, u.unit_index, u.unit_id))
