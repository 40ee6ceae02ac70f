"""One statement of a relation, what every source of the extractor gives (sentence patterns, couples' names,
vocatives) and ``extract.aggregate`` sums."""

from __future__ import annotations

import bisect
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from ingestion.relations.sentences import PersonMention

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RelationMention:
    """One statement of a relation: "src is the TYPE of dst", where (``start``, ``end``) of the text says so."""

    src_id: str
    type: str
    dst_id: str
    start: int
    end: int
    chunk_id: str
    pattern: str
    confidence: float


class ChunkLookup:
    """The chunk a statement's offset lies in, read from the document's mentions (which carry their chunk): the
    chunk of the nearest mention starting at or before the offset, else the first mention's."""

    def __init__(self, mentions: Sequence[PersonMention]) -> None:
        ordered = sorted(mentions, key=lambda mention: mention.start)
        self.starts = [mention.start for mention in ordered]
        self.chunks = [mention.chunk_id for mention in ordered]

    def at(self, offset: int) -> str:
        """The chunk id at document ``offset`` (``""`` for a document without mentions)."""
        if not self.chunks:
            return ""
        return self.chunks[max(0, bisect.bisect_right(self.starts, offset) - 1)]
