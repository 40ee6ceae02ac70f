"""A chat platform over a book written in the test: chapters of text and the entities the graph holds, no
lakehouse — the book tools answer from exactly what the test wrote."""

from __future__ import annotations

from graph.embedded import EmbeddedGraphStore
from graph.model import ChunkNode, DocumentNode, EntityNode, GraphData, UnitNode
from tools.analysis.domain import DomainSettings
from tools.domains.egri_csillagok import TOOLS
from tools.platform import ChatPlatform
from tools.plugins import ToolRegistry
from tools.retrieval.chunks import Chunk, ChunkRetriever
from tools.retrieval.units import UnitCatalog

Chapters = dict[str, tuple[str, str]]  # chunk id: (chapter title, text), one chunk per chapter
Entities = dict[str, tuple[str, str, list[str], list[str]]]  # id: (canonical name, label, aliases, chunk ids)


def crafted_platform(title: str, chapters: Chapters, entities: Entities) -> ChatPlatform:
    """A started platform serving the book ``title`` (domain ``title.casefold()``, English) with the book tools."""
    ids = list(chapters)
    chunks = [Chunk(c, "doc", n, f"u{n}", n + 1, "chapter", head, "", n * 1000, n * 1000 + len(text), text, title)
              for n, (c, (head, text)) in enumerate(chapters.items())]
    graph = EmbeddedGraphStore.from_graph(GraphData(
        entities=[EntityNode(entity_id=i, canonical_name=name, label=label, aliases=aliases,
                             mention_count=len(seen), first_chunk_id=seen[0], last_chunk_id=seen[-1],
                             first_unit_id=f"u{ids.index(seen[0])}", last_unit_id=f"u{ids.index(seen[-1])}")
                  for i, (name, label, aliases, seen) in entities.items()],
        relations=[],
        documents=[DocumentNode(doc_id="doc", title=title)],
        units=[UnitNode(unit_id=f"u{n}", doc_id="doc", unit_index=n + 1, unit_kind="chapter", unit_title=head)
               for n, (head, _) in enumerate(chapters.values())],
        chunks=[ChunkNode(chunk_id=c.chunk_id, doc_id="doc", chunk_index=c.chunk_index, unit_id=c.unit_id,
                          start=c.start, end=c.end, text=c.text) for c in chunks],
        mentions=[],
    ))
    by_chunk = {c: [i for i, (*_, seen) in entities.items() if c in seen] for c in chapters}
    services = [DomainSettings(name=title.casefold(), title=title, language="en"), graph,
                ChunkRetriever.from_chunks(chunks, "en"), UnitCatalog(chunks, by_chunk)]
    registry = ToolRegistry(entry_point_group=None)
    for cls in TOOLS:
        registry.register(cls)
    return ChatPlatform(registry, services=services).start()
