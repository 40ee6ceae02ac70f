"""The chunk store of the chat side: chunks and units read from the lakehouse, a persisted BM25 index over them.

``ChunkRetriever.from_lakehouse`` reads the ``chunks`` and ``documents`` Delta tables with ``deltalake`` (no JVM) and
loads the BM25 index from ``<lakehouse>/_index/bm25-<language>-v<chunks table version>.json``; when that file is
missing (first start, or the ingestion pipeline committed a new chunks version) it builds the index and writes it
atomically, removing stale ones. Every hit cites its document, unit and chunk (``Hit.citation``).

Hybrid ranking: pass a ``DenseEncoder`` (e.g. a sentence-transformers model's ``encode``) and BM25's ranking is fused
with the embedding ranking by reciprocal rank fusion. No encoder is shipped: the hook stays empty by default because
an embedding model needs torch (see docs/domain.md).
"""

from __future__ import annotations

import json
import logging
import math
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deltalake import DeltaTable
from deltalake.exceptions import TableNotFoundError

from tools.errors import ToolError
from tools.retrieval.analyzer import Analyzer
from tools.retrieval.bm25 import BM25Index, reciprocal_rank_fusion

logger = logging.getLogger(__name__)

INDEX_FORMAT = 1  # bump when the file layout or the analyser changes, so old index files are rebuilt
INDEX_DIR = "_index"
CHUNK_COLUMNS = ["chunk_id", "doc_id", "chunk_index", "unit_id", "unit_index", "unit_kind", "unit_title", "part_title",
                 "start", "end", "text"]

DenseEncoder = Callable[[list[str]], Sequence[Sequence[float]]]
"""Texts → one vector per text: the optional dense half of hybrid ranking."""


class RetrievalError(ToolError):
    """Raised when the chunk tables cannot be read or the index cannot be built."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """A chunk with where it sits: document, unit (part/chapter) and its character offsets in the document."""

    chunk_id: str
    doc_id: str
    chunk_index: int
    unit_id: str
    unit_index: int
    unit_kind: str
    unit_title: str
    part_title: str
    start: int
    end: int
    text: str
    doc_title: str = ""

    @property
    def citation(self) -> str:
        """``title › part › unit › chunk N`` — enough for a reader to find the passage."""
        parts = [self.doc_title or self.doc_id, self.part_title, self.unit_title, f"chunk {self.chunk_index}"]
        return " › ".join(p for p in parts if p)


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved chunk and its score (BM25, or the fused score in hybrid mode)."""

    chunk: Chunk
    score: float

    @property
    def citation(self) -> str:
        """The chunk's citation."""
        return self.chunk.citation


def _read(root: Path, table: str, columns: list[str]) -> tuple[list[dict[str, Any]], int]:
    path = root / table
    try:
        delta = DeltaTable(str(path))
    except TableNotFoundError as exc:
        raise RetrievalError(f"no Delta table {table!r} at {path}; run the ingestion pipeline first") from exc
    frame = delta.to_pyarrow_table(columns=columns)
    return frame.to_pylist(), int(delta.version())


class ChunkRetriever:
    """Searches the chunks of one lakehouse; also the catalogue of its chunks for the page and summary tools."""

    def __init__(self, chunks: Sequence[Chunk], index: BM25Index, analyzer: Analyzer,
                 dense: DenseEncoder | None = None) -> None:
        self.chunks = list(chunks)
        self.index = index
        self.analyzer = analyzer
        self.dense = dense
        self._vectors: list[Sequence[float]] | None = None
        self._by_id = {c.chunk_id: c for c in self.chunks}

    @classmethod
    def from_chunks(cls, chunks: Sequence[Chunk], language: str, dense: DenseEncoder | None = None) -> ChunkRetriever:
        """Index ``chunks`` in memory (tests, small corpora)."""
        analyzer = Analyzer(language)
        return cls(chunks, BM25Index.build(analyzer.terms(c.text) for c in chunks), analyzer, dense)

    @classmethod
    def from_lakehouse(cls, root: Path, language: str, *, dense: DenseEncoder | None = None,
                       index_dir: Path | None = None) -> ChunkRetriever:
        """Load the lakehouse's chunks and the BM25 index for their table version (built and saved if missing)."""
        root = Path(root)
        rows, version = _read(root, "chunks", CHUNK_COLUMNS)
        try:
            titles = {r["doc_id"]: r["title"] or "" for r in _read(root, "documents", ["doc_id", "title"])[0]}
        except RetrievalError:
            titles = {}
        rows.sort(key=lambda r: (r["doc_id"], r["chunk_index"]))
        chunks = [_chunk(r, titles.get(r["doc_id"], "")) for r in rows]
        analyzer = Analyzer(language)
        folder = Path(index_dir) if index_dir else root / INDEX_DIR
        path = folder / f"bm25-{language}-f{INDEX_FORMAT}-v{version}.json"
        index = _load_index(path, len(chunks))
        if index is None:
            index = BM25Index.build(analyzer.terms(c.text) for c in chunks)
            _save_index(path, index, [c.chunk_id for c in chunks])
            logger.info("BM25 index of %d chunks written to %s", len(chunks), path)
        return cls(chunks, index, analyzer, dense)

    def get(self, chunk_id: str) -> Chunk:
        """The chunk with this id."""
        try:
            return self._by_id[chunk_id]
        except KeyError:
            raise RetrievalError(f"no chunk {chunk_id!r} in the index") from None

    def search(self, query: str, k: int = 5, *, unit_id: str | None = None) -> list[Hit]:
        """The ``k`` best chunks for ``query`` (optionally within one unit), best first."""
        terms = self.analyzer.terms(query)
        ranked = self.index.top(terms, k=self.index.size)
        if unit_id is not None:
            ranked = [(n, s) for n, s in ranked if self.chunks[n].unit_id == unit_id]
        if self.dense is not None and ranked:
            ranked = self._hybrid(query, ranked)
        return [Hit(self.chunks[n], s) for n, s in ranked[:k]]

    def _hybrid(self, query: str, ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
        assert self.dense is not None
        if self._vectors is None:
            self._vectors = list(self.dense([c.text for c in self.chunks]))
        q = self.dense([query])[0]
        candidates = [n for n, _ in ranked]
        by_dense = sorted(candidates, key=lambda n: (-_cosine(q, self._vectors[n]), n))  # type: ignore[index]
        return reciprocal_rank_fusion([candidates, by_dense])


def _chunk(row: dict[str, Any], doc_title: str) -> Chunk:
    return Chunk(
        chunk_id=row["chunk_id"], doc_id=row["doc_id"], chunk_index=int(row["chunk_index"]), unit_id=row["unit_id"],
        unit_index=int(row["unit_index"]), unit_kind=row["unit_kind"] or "", unit_title=row["unit_title"] or "",
        part_title=row["part_title"] or "", start=int(row["start"]), end=int(row["end"]), text=row["text"] or "",
        doc_title=doc_title,
    )


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _load_index(path: Path, expected: int) -> BM25Index | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # a damaged index file is only a lost speed-up
        logger.warning("ignoring unreadable index %s (%s); rebuilding", path, exc)
        return None
    index = BM25Index.from_dict(data["bm25"])
    return index if index.size == expected else None


def _save_index(path: Path, index: BM25Index, chunk_ids: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps({"format": INDEX_FORMAT, "chunk_ids": chunk_ids, "bm25": index.to_dict()})
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".bm25-", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(payload)
    os.replace(temp, path)  # atomic: a reader sees the old file or the whole new one
    for stale in path.parent.glob(path.name.split("-v")[0] + "-v*.json"):
        if stale != path:
            stale.unlink(missing_ok=True)
