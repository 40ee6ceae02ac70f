"""Kinship the stated relations imply: two children of one parent are siblings, a parent of one child is the parent
of its siblings, a parent's parent is a grandparent, a sibling's spouse and a spouse's sibling or parent are
in-laws. Each inferred row carries the evidence of the two rows it follows from and a confidence no higher than
theirs; it never overrides a family tie stated between the same two people.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from graph.kinship import FAMILY_TYPES, INVERSE
from ingestion.relations.extract import Relation

logger = logging.getLogger(__name__)

# (A is the X of B, B is the Y of C) -> A is the Z of C
COMPOSITION: dict[tuple[str, str], str] = {
    ("sibling", "sibling"): "sibling",
    ("child", "parent"): "sibling",  # two children of one parent (half-siblings are siblings too)
    ("parent", "parent"): "grandparent",
    ("spouse", "sibling"): "in_law",
    ("sibling", "spouse"): "in_law",
    ("parent", "spouse"): "in_law",
    ("parent", "sibling"): "parent",  # a parent of one child is a parent of that child's siblings
}
# Not composed, each measured by reading on the dev novels: a parent's spouse as the other parent ("spouse",
# "parent"): a step-parent as often, and the couples read from names' forms carry the resolver's joins (6 of 13 pairs
# right, docs/decisions/0041); a parent's sibling as an uncle or an aunt ("sibling", "parent"): one wrong sibling row
# reaches every child (1 of 4 pairs right, no gold tie).
ROUNDS = 3  # a chain of four siblings is closed in two; a third round costs nothing when nothing is new


def _compose(rows: dict[tuple[str, str, str], Relation]) -> dict[tuple[str, str, str], Relation]:
    """One round: every composition of two known rows that is not known yet and not contradicted."""
    outgoing: dict[str, list[Relation]] = defaultdict(list)
    related: set[tuple[str, str]] = set()
    for (src, type_, dst), row in rows.items():
        outgoing[src].append(row)
        if type_ in FAMILY_TYPES:
            related.add((src, dst))
    found: dict[tuple[str, str, str], Relation] = {}
    for first_rows in outgoing.values():
        for first in first_rows:
            for second in outgoing.get(first.dst_id, ()):
                composed = COMPOSITION.get((first.type, second.type))
                src, dst = first.src_id, second.dst_id
                if composed is None or src == dst or (src, dst) in related or (src, composed, dst) in found:
                    continue
                found[(src, composed, dst)] = Relation(
                    src, composed, dst, 0, tuple(sorted(set(first.chunk_ids) | set(second.chunk_ids))),
                    tuple(sorted(set(first.evidence) | set(second.evidence))),
                    round(first.confidence * second.confidence, 4), False, True,
                )  # fmt: skip
    return found


def infer(relations: Sequence[Relation]) -> list[Relation]:
    """``relations`` (``aggregate``'s rows, inverses included) with the kinship they imply and its inverses added,
    sorted."""
    rows = {(row.src_id, row.type, row.dst_id): row for row in relations}
    for _ in range(ROUNDS):
        found = _compose(rows)
        for (src, type_, dst), row in list(found.items()):
            inverse = INVERSE[type_]
            if inverse is not None and (dst, inverse, src) not in rows and (dst, inverse, src) not in found:
                found[(dst, inverse, src)] = replace(row, src_id=dst, type=inverse, dst_id=src)
        if not found:
            break
        rows.update(found)
    return [rows[key] for key in sorted(rows)]
