"""The answers of ``GraphStore`` queries: plain pydantic models, equal across stores when the answers are equal."""

from __future__ import annotations

import logging

from pydantic import BaseModel, Field

logger = logging.getLogger(__name__)


class EntityRef(BaseModel):
    """An entity named in an answer: id, canonical name and label."""

    entity_id: str
    canonical_name: str
    label: str


class EntityCandidate(BaseModel):
    """One ranked candidate of a name search, with its score and the normalised key that matched."""

    entity_id: str
    canonical_name: str
    label: str
    mention_count: int
    score: float
    matched_key: str


class EntityMatch(BaseModel):
    """The answer of ``find_entity``: the best candidate, the ranked candidates, and whether the choice is close."""

    query: str
    normalised: str
    best: EntityCandidate | None
    candidates: list[EntityCandidate] = Field(default_factory=list)
    ambiguous: bool = False
    near_misses: list[str] = Field(default_factory=list, description="Names that passed the filter but scored low.")


class Relation(BaseModel):
    """A co-occurrence seen from ``source``: how often and how strongly it meets ``target``, and where."""

    source: EntityRef
    target: EntityRef
    count: int
    weight: float
    chunk_ids: list[str] = Field(default_factory=list)
    unit_ids: list[str] = Field(default_factory=list)


class Span(BaseModel):
    """A mention inside a passage: offsets into the document text and the surface text."""

    start: int
    end: int
    text: str


class Passage(BaseModel):
    """A chunk shown as evidence: where it is (unit), its document offsets, its text, and the mentions in it."""

    chunk_id: str
    doc_id: str
    unit_id: str
    unit_title: str
    start: int
    end: int
    text: str
    mentions: list[Span] = Field(default_factory=list)


class PathHop(BaseModel):
    """One hop of a path: the pair, its co-occurrence numbers, all evidence chunk ids and the first passages."""

    source_id: str
    target_id: str
    count: int
    weight: float
    chunk_ids: list[str]
    passages: list[Passage]


class PathResult(BaseModel):
    """A shortest path between two entities, with its evidence hop by hop."""

    entities: list[EntityRef]
    hops: list[PathHop]
    total_weight: float


class Kinship(BaseModel):
    """A typed relation: ``source`` is the ``type`` of ``target`` ("Ilya Rostov is the parent of Natasha"), how many
    statements say so (0: inferred from two other relations), how sure they make it, and the passages saying it."""

    source: EntityRef
    type: str
    target: EntityRef
    count: int
    confidence: float
    chunk_ids: list[str] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list)


class Quotation(BaseModel):
    """A quotation: its text with its marks, who says it and to whom (the people of the graph; None / empty when
    unknown), how the speaker was found (``attribution``), and the passage it stands in."""

    quote_id: str
    doc_id: str
    start: int
    end: int
    text: str
    attribution: str
    speaker: EntityRef | None = None
    addressees: list[EntityRef] = Field(default_factory=list)
    passage: Passage


class RelatedCount(BaseModel):
    """An entity co-occurring with the timeline's entity in one unit, and in how many of the unit's chunks."""

    entity_id: str
    canonical_name: str
    count: int


class UnitRelations(BaseModel):
    """One unit of an entity's timeline: its mentions there and who it meets there."""

    unit_id: str
    doc_id: str
    unit_index: int
    unit_title: str
    part_title: str
    mention_count: int
    cooccurring: list[RelatedCount]


class GraphStats(BaseModel):
    """Sizes of the loaded graph."""

    entities: int
    relations: int
    documents: int
    units: int
    chunks: int
    mentions: int
    communities: int
    labels: dict[str, int] = Field(default_factory=dict)
    typed_relations: int = 0
    quotations: int = 0


class LoadReport(BaseModel):
    """What a ``load`` wrote (rows sent per kind — equal on a rerun, since loads are idempotent) and how long."""

    store: str
    entities: int
    relations: int
    documents: int
    units: int
    chunks: int
    mentions: int
    seconds: float
    # What the load changed, by kind (``graph.sync.KINDS``): items new to the store, and items it no longer has.
    added: dict[str, int] = Field(default_factory=dict)
    removed: dict[str, int] = Field(default_factory=dict)
