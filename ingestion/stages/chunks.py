"""Stage 2, ``chunks``: units (parts, chapters) and paragraph-sized chunks with offsets into the document.

Units come from ``ingestion.structure.split_units``: nested containers (``part_title`` holds their path, e.g.
"VOLUME I › BOOK SECOND"), chapters, and non-prose units (``graph.tables.NON_PROSE_UNIT_KINDS``: front matter,
tables of contents, back matter) that are kept here, marked by ``unit_kind``, and skipped by the mentions stage and
retrieval. Headings are in no chunk; a unit's title is in ``unit_title``.

Incremental by document: only documents without chunks are split; chunks of documents that left the corpus are
deleted. Chunk and unit ids are ``<doc_id>:c00042`` / ``<doc_id>:u0007``: stable for the same content and settings.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pandas as pd

from graph.tables import CHUNKS
from ingestion.chunking import UnitPatterns, chunk_document, chunk_id, split_units, unit_id
from ingestion.relational import engine_for, map_batches, python_processes
from ingestion.stage import Stage, StageOutput
from ingestion.text import count_words

if TYPE_CHECKING:
    from ingestion.context import RunContext

logger = logging.getLogger(__name__)



def split_document(
    doc_id: str, text: str, *, patterns: UnitPatterns | None, max_chars: int, min_chars: int
) -> list[dict[str, Any]]:
    """The chunk rows of one document."""
    units = split_units(text, patterns=patterns)
    by_index = {unit.index: unit for unit in units}
    rows = []
    for chunk in chunk_document(text, units, max_chars=max_chars, min_chars=min_chars):
        unit = by_index[chunk.unit_index]
        rows.append(
            {
                "chunk_id": chunk_id(doc_id, chunk.index),
                "doc_id": doc_id,
                "chunk_index": chunk.index,
                "unit_id": unit_id(doc_id, unit.index),
                "unit_index": unit.index,
                "unit_kind": unit.kind,
                "unit_title": unit.title,
                "part_title": unit.part_title,
                "start": chunk.start,
                "end": chunk.end,
                "text": chunk.text,
                "n_words": count_words(chunk.text),
            }
        )
    return rows


def chunk_batches(
    batches: Iterable[pd.DataFrame], *, patterns: UnitPatterns | None, max_chars: int, min_chars: int
) -> Iterator[pd.DataFrame]:
    """``mapInPandas`` transform: (doc_id, text) rows → chunk rows."""
    for batch in batches:
        rows: list[dict[str, Any]] = []
        for doc_id, text in zip(batch["doc_id"], batch["text"], strict=True):
            rows.extend(split_document(doc_id, text, patterns=patterns, max_chars=max_chars, min_chars=min_chars))
        yield pd.DataFrame(rows, columns=list(CHUNKS.names))


class ChunksStage(Stage):
    """Splits documents into units and chunks; writes ``chunks``."""

    name = "chunks"
    # A new version redoes the stage; what each version changed: docs/decisions/0002-stage-versions.md
    version = 3
    tables = (CHUNKS.name,)
    requires = ("documents",)

    def _patterns(self, ctx: RunContext) -> UnitPatterns | None:
        if ctx.domain.unit_patterns is not None:
            return ctx.domain.unit_patterns
        # Languages without their own heading preset use split_units' default (English and Hungarian headings).
        return UnitPatterns.auto(ctx.domain.language) if ctx.domain.language in {"en", "hu"} else None

    def config(self, ctx: RunContext) -> dict[str, Any]:
        """Chunk sizes and the unit headings."""
        ing = ctx.settings.ingestion
        return {"max": ing.chunk_max_chars, "min": ing.chunk_min_chars, "patterns": repr(self._patterns(ctx))}

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Split the documents that have no chunks yet; drop the chunks of removed documents. A few documents
        (``LakehouseTables.small_increment``) are split in the driver and committed by delta-rs, more by Spark."""
        ing = ctx.settings.ingestion
        patterns, max_chars, min_chars = self._patterns(ctx), ing.chunk_max_chars, ing.chunk_min_chars
        current = ctx.lakehouse.doc_ids("documents")
        existing = ctx.lakehouse.doc_ids(self.name) if incremental else set()
        todo, removed = sorted(current - existing), sorted(existing - current)

        transform = functools.partial(chunk_batches, patterns=patterns, max_chars=max_chars, min_chars=min_chars)
        ctx.progress.start(self.name, len(todo) if incremental else len(current), "documents")
        split = todo if incremental else sorted(current)
        engine = engine_for(ctx.lakehouse, ctx.lakehouse.small_increment(split))
        if incremental:
            ctx.lakehouse.delete_docs(self.name, removed)
        documents = engine.read("documents", ["doc_id", "text"], todo if incremental else None)
        # One document per Spark task: a novel is one row, and chunking it is cheap next to NER. In process, in the
        # driver itself: the NER processes a run begins early are loading their pipelines meanwhile.
        with python_processes(None):
            chunks = map_batches(engine.spread(documents, "doc_id", max(1, min(len(split), 64))), transform, CHUNKS)
        if not incremental or split:
            engine.write(chunks, self.name, overwrite=not incremental)
        ctx.progress.advance(self.name, len(todo) if incremental else len(current))
        ctx.progress.finish(self.name)
        import pyarrow.compute as pc

        stats = ctx.lakehouse.columns(self.name, ["unit_id", "n_words"])
        counts = {
            "chunks": stats.num_rows,
            "units": len(pc.unique(stats.column("unit_id"))),
            "words": int(pc.sum(stats.column("n_words")).as_py() or 0),
        }
        counts.update(documents_split=len(todo) if incremental else len(current), documents_removed=len(removed))
        return StageOutput(counts=counts, output_fingerprint=self.derived_fingerprint(ctx))
