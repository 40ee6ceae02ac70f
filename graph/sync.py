"""What loading a graph changes in a store: the stable key of every item, and the diff of two key sets.

A store's ``load`` makes it hold exactly the new graph, as a load into an empty store would: it upserts every item
(``MERGE`` on stable ids) and deletes the items whose keys the new graph no longer has. The keys are the ids the
lakehouse tables carry — a co-occurrence is its entity pair (one way round, ``src_id < dst_id``), a mention its id
with its entity and chunk, because a mention resolved to another entity is another relationship; a typed relation
is its (src, type, dst) and a quotation its id (its speaker and addressees are properties of it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from graph.model import GraphData

logger = logging.getLogger(__name__)

Key = tuple[str, ...]
#: The kinds of items a graph holds, in the order a load writes them (nodes before the relationships between them).
KINDS: tuple[str, ...] = (
    "documents",
    "units",
    "chunks",
    "entities",
    "relations",
    "typed_relations",
    "quotes",
    "mentions",
)


def graph_keys(graph: GraphData) -> dict[str, set[Key]]:
    """The key of every item of ``graph``, by kind (see the module docstring); typed relations and quotations only
    where a store can hold them: between entities of the graph, in a chunk of the graph."""
    entities = {e.entity_id for e in graph.entities}
    chunks = {c.chunk_id for c in graph.chunks}
    return {
        "documents": {(d.doc_id,) for d in graph.documents},
        "units": {(u.unit_id,) for u in graph.units},
        "chunks": {(c.chunk_id,) for c in graph.chunks},
        "entities": {(e.entity_id,) for e in graph.entities},
        "relations": {(min(r.src_id, r.dst_id), max(r.src_id, r.dst_id)) for r in graph.relations},
        "mentions": {(m.mention_id, m.entity_id, m.chunk_id) for m in graph.mentions},
        "typed_relations": {
            (r.src_id, r.type, r.dst_id) for r in graph.typed_relations if {r.src_id, r.dst_id} <= entities
        },
        "quotes": {(q.quote_id,) for q in graph.quotes if q.chunk_id in chunks},
    }


@dataclass
class GraphDiff:
    """How many items of each kind a load adds, and the keys of those it removes (sorted, for stable batches)."""

    added: dict[str, int] = field(default_factory=dict)
    removed: dict[str, list[Key]] = field(default_factory=dict)

    def removed_counts(self) -> dict[str, int]:
        """How many items of each kind are removed."""
        return {kind: len(keys) for kind, keys in self.removed.items()}


def diff(held: dict[str, set[Key]], new: dict[str, set[Key]]) -> GraphDiff:
    """The change from the keys a store ``held`` to the ``new`` graph's keys."""
    return GraphDiff(
        added={kind: len(new.get(kind, set()) - held.get(kind, set())) for kind in KINDS},
        removed={kind: sorted(held.get(kind, set()) - new.get(kind, set())) for kind in KINDS},
    )
