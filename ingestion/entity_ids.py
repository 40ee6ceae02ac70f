"""Entity ids that survive a growing corpus: an entity keeps the id it had in the previous ``entities`` table.

A fresh id hashes the entity's label family and canonical name (``entity_id_for``), so it changes when a new document
brings a more informative name ("Pierre" becomes "Pierre Bezukhov"), and every reference to the old id — an answer a
user bookmarked, a Neo4j node, an id in the chat platform — would break. The entities stage therefore hands the
previous table's (id, label, aliases) to ``carry_over_ids``: each new entity takes the previous id it shares the most
surface forms with, provided the label family is the same and no other new entity shares more with it; an entity
whose fresh id was already in the table keeps it first. Everything else keeps its fresh id.

The price: after such a change, an incremental run's ids can differ from those of a run from scratch on the final
corpus (which sees no previous table); names, aliases and everything else are the same.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet

from ingestion.resolution import ResolvedEntity, label_family

logger = logging.getLogger(__name__)

__all__ = ["PreviousEntity", "carry_over_ids"]

PreviousEntity = tuple[str, str, Iterable[str]]  # (entity_id, label, aliases) of the previous table


def carry_over_ids(
    entities: list[ResolvedEntity],
    mapping: Mapping[tuple[str, str], str],
    previous: Iterable[PreviousEntity],
    given: AbstractSet[str] = frozenset(),
) -> tuple[list[ResolvedEntity], dict[tuple[str, str], str]]:
    """Give resolved entities their previous ids where they clearly continue a previous entity; see the module.

    ``given``: ids other scopes' entities of this run already hold (resolved one document at a time), which none of
    these may take again: a table written in corpus scope offers one entity to every document it is named in."""
    old = {
        entity_id: (label_family(label), frozenset(aliases))
        for entity_id, label, aliases in previous
        if entity_id not in given
    }
    if not old:
        return entities, dict(mapping)
    # alias → the previous entities that had it: each new entity meets only those it shares a form with, instead of
    # every previous entity (a corpus's thousands of entities made that a million set intersections)
    holders: dict[str, list[str]] = {}
    for old_id, (_, old_aliases) in old.items():
        for alias in old_aliases:
            holders.setdefault(alias, []).append(old_id)
    candidates: list[tuple[int, int, str, str]] = []
    for entity in entities:
        family = label_family(entity.label)
        shared = Counter(old_id for alias in frozenset(entity.aliases) for old_id in holders.get(alias, ()))
        for old_id, n in shared.items():
            if old[old_id][0] == family:
                candidates.append((-(entity.entity_id == old_id), -n, old_id, entity.entity_id))
    renamed: dict[str, str] = {}
    taken: set[str] = set()
    for _, _, old_id, new_id in sorted(candidates):  # identity first, then the largest overlap; ties by ids
        if new_id not in renamed and old_id not in taken:
            renamed[new_id] = old_id
            taken.add(old_id)
    changed = {new: old_id for new, old_id in renamed.items() if new != old_id}
    if changed:
        logger.info("entities: %d entities keep their previous id under a new canonical name", len(changed))
    result = [
        ResolvedEntity(renamed.get(e.entity_id, e.entity_id), e.canonical_name, e.label, e.aliases) for e in entities
    ]
    ids = [entity.entity_id for entity in result]
    if len(ids) != len(set(ids)):  # a fresh id equal to a previous id given to another entity: keep fresh ids
        logger.warning("entities: previous ids conflict with fresh ones; using fresh ids")
        return entities, dict(mapping)
    return sorted(result, key=lambda e: e.entity_id), {key: renamed.get(i, i) for key, i in mapping.items()}
