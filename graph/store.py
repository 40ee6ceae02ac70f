"""The graph store protocols: ``GraphReader`` (the queries the chat tools run) and ``GraphWriter`` (loading).

Platform context (``spec/platform-tools.md``, R-NER-1): the graph built by the ingestion side is what the chat-side
retrieval tools query; both stores — ``EmbeddedGraphStore`` (numpy arrays, the default) and ``Neo4jGraphStore`` —
implement ``GraphStore`` (reader and writer) and must give the same answer to every query for the same loaded graph.
The chat side needs only a ``GraphReader``; the ingestion side (the pipeline's ``neo4j`` stage, ``csillag graph
load``) only a ``GraphWriter``. Name matching lives in ``graph.matching`` and every ordering / tie-break rule in
``graph.ranking``; stores only fetch. The contract suite any store can be checked with is ``graph.testing``.

Errors: an unknown entity id raises ``EntityNotFoundError``; an invalid argument (a ``limit`` < 1, an unknown
``top_entities`` metric) raises ``GraphStoreError`` naming the value and the valid options; server trouble raises
``GraphUnavailableError`` / ``GraphAuthError``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal, Protocol, runtime_checkable

from graph.model import EntityNode, GraphData
from graph.results import (
    EntityMatch,
    GraphStats,
    Kinship,
    LoadReport,
    Passage,
    PathResult,
    Quotation,
    Relation,
    UnitRelations,
)

logger = logging.getLogger(__name__)

TopMetric = Literal["pagerank", "degree", "mentions"]


@runtime_checkable
class GraphReader(Protocol):
    """A loaded entity graph that answers the chat tools' queries (R-NER-1); see the module docstring for rules."""

    def find_entity(self, name: str, *, label: str | None = None, limit: int = 5) -> EntityMatch:
        """Find an entity by name or alias, case-, accent- and typo-tolerant (``graph.matching``).

        Raises ``EntityNotFoundError`` naming the closest names when nothing scores high enough.
        """
        ...

    def get_entity(self, entity_id: str) -> EntityNode:
        """The entity with this id."""
        ...

    def neighbours(self, entity_id: str, *, limit: int = 10) -> list[Relation]:
        """The entity's co-occurrences, strongest first (weight, then count, then neighbour id)."""
        ...

    def shortest_path(self, a_id: str, b_id: str, *, max_hops: int = 4) -> PathResult | None:
        """A shortest path of at most ``max_hops`` hops with the evidence of each hop, or None if there is none."""
        ...

    def mentions(self, entity_id: str, *, limit: int = 20) -> list[Passage]:
        """The first ``limit`` chunks (book order) mentioning the entity, with the mentions' offsets and text."""
        ...

    def top_entities(
        self, *, by: TopMetric = "pagerank", label: str | None = None, limit: int = 10
    ) -> list[EntityNode]:
        """The most central (or most mentioned) entities, optionally of one label."""
        ...

    def timeline(self, entity_id: str) -> list[UnitRelations]:
        """Unit by unit in book order where the entity appears: its mentions there and whom it meets there."""
        ...

    def relatives(self, entity_id: str, *, types: Sequence[str] | None = None, limit: int = 20) -> list[Kinship]:
        """Who is what to the entity: the typed relations "S is the TYPE of entity" (of ``types`` only, when given;
        an unknown type raises ``GraphStoreError`` naming the valid ones), surest first, with evidence passages."""
        ...

    def relations_between(self, a_id: str, b_id: str) -> list[Kinship]:
        """What ``a`` is to ``b``: the typed relations "a is the TYPE of b", surest first, with evidence passages."""
        ...

    def quotations(
        self, *, speaker_id: str | None = None, addressee_id: str | None = None, limit: int = 20
    ) -> list[Quotation]:
        """The first ``limit`` quotations in book order said by ``speaker_id`` and / or to ``addressee_id``."""
        ...

    def find_quotations(self, text: str, *, limit: int = 5) -> list[Quotation]:
        """The first ``limit`` quotations in book order holding ``text``'s words in a row (case, accents and
        punctuation aside: ``graph.ranking.quote_key``); none for a text without words."""
        ...

    def stats(self) -> GraphStats:
        """Sizes of the loaded graph."""
        ...

    def close(self) -> None:
        """Release connections and resources; the store is unusable afterwards."""
        ...


@runtime_checkable
class GraphWriter(Protocol):
    """Where the ingestion side writes the graph (R-NER-1); see the module docstring."""

    def load(self, graph: GraphData) -> LoadReport:
        """Make the store hold exactly ``graph``, as a load into an empty store would: items are upserted by stable
        ids and what ``graph`` no longer has is removed (``graph.sync``); loading the same graph twice changes
        nothing. The report says what was added and removed."""
        ...

    def clear(self) -> None:
        """Remove everything this store holds."""
        ...

    def close(self) -> None:
        """Release connections and resources; the store is unusable afterwards."""
        ...


@runtime_checkable
class GraphStore(GraphReader, GraphWriter, Protocol):
    """A store that is both: what ``EmbeddedGraphStore`` and ``Neo4jGraphStore`` implement."""
