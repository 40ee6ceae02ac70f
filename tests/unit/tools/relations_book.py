"""A crafted book whose typed relations and quotations are made by the pipeline's own code (the relations and quotes
stages' per-document functions), loaded as a graph: what the chat side and both stores are tested on."""

from __future__ import annotations

import re
from collections import Counter

import pyarrow as pa

from graph.model import ChunkNode, DocumentNode, EntityNode, GraphData, Mention, QuoteNode, TypedRelationEdge, UnitNode
from ingestion.stages.quotes import document_quotes
from ingestion.stages.relations import STATEMENTS, document_statements, relation_table
from tools.analysis.domain import DomainSettings
from tools.retrieval.chunks import Chunk, ChunkRetriever
from tools.retrieval.units import UnitCatalog

DOC = "book"
# One paragraph per chunk: an apposition, a possessive before a name, a copula, a marriage, a quotation with its
# speaker named after it, a reply by a pronoun, and narration no relation or quotation is read from.
PARAGRAPHS = [
    "Pierre met Natasha at the gate. Natasha's mother, Countess Rostova, smiled at them.",
    "“Are you cold, Natasha?” asked Pierre.",
    "“A little,” she said.",
    "Helen is Pierre's wife. Mr. Hale came in with Ellen Pryor, his daughter.",
    "In the winter Nicholas married Princess Mary.",
    "The storm broke over the lighthouse at night and Pierre watched the sea.",
]
PEOPLE = {
    "pierre": ("Pierre Bezukhov", ["Pierre"]),
    "natasha": ("Natasha Rostova", ["Natasha"]),
    "countess": ("Countess Rostova", []),
    "helen": ("Helen Kuragina", ["Helen"]),
    "hale": ("Mr. Hale", []),
    "ellen": ("Ellen Pryor", []),
    "nicholas": ("Nicholas Rostov", ["Nicholas"]),
    "mary": ("Princess Mary", []),
}
TEXT = "\n\n".join(PARAGRAPHS)
STARTS = [TEXT.index(paragraph) for paragraph in PARAGRAPHS]
CHUNK_IDS = [f"{DOC}:c{i}" for i in range(len(PARAGRAPHS))]


def _chunk_of(offset: int) -> str:
    return CHUNK_IDS[max(i for i, start in enumerate(STARTS) if start <= offset)]


def people_mentions() -> list[tuple[int, int, str]]:
    """(start, end, entity id) of every written form of the people, longest first, never overlapping."""
    taken: list[tuple[int, int, str]] = []
    forms = [(form, entity) for entity, (name, aliases) in PEOPLE.items() for form in [name, *aliases]]
    for form, entity in sorted(forms, key=lambda pair: -len(pair[0])):
        for found in re.finditer(rf"(?<!\w){re.escape(form)}(?!\w)", TEXT):
            if all(found.end() <= start or found.start() >= end for start, end, _ in taken):
                taken.append((found.start(), found.end(), entity))
    return sorted(taken)


def book_graph() -> GraphData:
    """The book as the graph stage and the new stages would leave it: entities, chunks, mentions, typed relations,
    quotations."""
    mentions = people_mentions()
    statements = document_statements(DOC, TEXT, "en", [(s, e, entity, _chunk_of(s)) for s, e, entity in mentions])
    relations = relation_table(pa.Table.from_pylist(statements, schema=STATEMENTS.arrow_schema())).to_pylist()
    quotes = document_quotes(DOC, TEXT, list(zip(STARTS, CHUNK_IDS, strict=True)), mentions)
    counts = Counter(entity for _, _, entity in mentions)
    return GraphData(
        entities=[
            EntityNode(entity_id=e, canonical_name=name, label="PERSON", aliases=aliases, mention_count=counts[e])
            for e, (name, aliases) in PEOPLE.items()
        ],
        documents=[DocumentNode(doc_id=DOC, title="Crafted")],
        units=[UnitNode(unit_id=f"{DOC}:u0", doc_id=DOC, unit_index=0, unit_kind="chapter", unit_title="CHAPTER I")],
        chunks=[
            ChunkNode(
                chunk_id=c,
                doc_id=DOC,
                chunk_index=i,
                unit_id=f"{DOC}:u0",
                start=STARTS[i],
                end=STARTS[i] + len(PARAGRAPHS[i]),
                text=PARAGRAPHS[i],
            )
            for i, c in enumerate(CHUNK_IDS)
        ],
        mentions=[
            Mention(
                mention_id=f"{DOC}:m{s}",
                entity_id=entity,
                chunk_id=_chunk_of(s),
                doc_id=DOC,
                start=s,
                end=e,
                text=TEXT[s:e],
            )
            for s, e, entity in mentions
        ],
        typed_relations=[TypedRelationEdge.model_validate(row) for row in relations],
        quotes=[QuoteNode.model_validate(row) for row in quotes],
    )


def services(graph: object) -> list[object]:
    """What the domain tools are injected with, over ``graph``."""
    chunks = [
        Chunk(
            c,
            DOC,
            i,
            f"{DOC}:u0",
            1,
            "chapter",
            "CHAPTER I",
            "",
            STARTS[i],
            STARTS[i] + len(PARAGRAPHS[i]),
            PARAGRAPHS[i],
            "Crafted",
        )
        for i, c in enumerate(CHUNK_IDS)
    ]
    by_chunk: dict[str, list[str]] = {}
    for start, _, entity in people_mentions():
        by_chunk.setdefault(_chunk_of(start), []).append(entity)
    return [
        DomainSettings(name="crafted", title="Crafted", language="en"),
        graph,
        ChunkRetriever.from_chunks(chunks, "en"),
        UnitCatalog(chunks, by_chunk),
    ]
