"""The chunk store of the chat side: chunks and units read from the lakehouse, a persisted BM25 index over them.

``ChunkRetriever.from_lakehouse`` reads the ``chunks`` and ``documents`` Delta tables with ``deltalake`` (no JVM) at
the versions the last completed ingestion run published (``graph.published``; the latest without a manifest), and
loads the BM25 index from ``<lakehouse>/_index/bm25-<language>-f<format>-v<chunks table version>.npz`` (numpy
arrays, ``tools.retrieval.bm25_file``); when that file is missing (first start, or a lakehouse written before the
``index`` stage) it builds the index and writes it atomically, removing the files of older chunks versions (never
newer ones: they belong to a run in progress).
Every hit cites its document, unit and chunk (``Hit.citation``).

Hybrid ranking: pass a ``DenseEncoder`` (texts → vectors; ``tools.retrieval.dense.BertEncoder`` runs a
sentence-transformers model in numpy, set by ``retrieval.dense_model``) and BM25's ranking is fused by reciprocal rank
fusion with the ranking of every chunk by cosine similarity to the query. The chunk vectors are computed once: an
encoder with a ``model_id`` has them persisted beside the BM25 index as
``<lakehouse>/_index/dense-<model_id>-f<format>-v<chunks table version>.npz``, so a question encodes only itself.

The ingestion pipeline's ``index`` stage builds both files right after the ``chunks`` stage with ``build_index`` —
the same code path as ``from_lakehouse`` — so the chat side normally finds them and builds nothing; building at
start-up remains for a lakehouse written before that stage existed, or a dense model turned on only on the chat side.

A lakehouse in an S3 bucket is read the same way (delta-rs and pyarrow through ``graph.lakehouse.Lakehouse``);
its index files are copied once into a local folder (``Lakehouse.local_cache_dir``) and loaded from there.
"""

from __future__ import annotations

import logging
import re
import time
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from deltalake import DeltaTable
from deltalake.exceptions import TableNotFoundError

from graph.errors import GraphDataError
from graph.files import atomic_open, atomic_write_bytes
from graph.lakehouse import Lakehouse
from graph.published import arrow_dataset, open_table
from graph.tables import CHUNKS, DOCUMENTS, NON_PROSE_UNIT_KINDS
from tools.errors import ToolError
from tools.retrieval.analyzer import Analyzer
from tools.retrieval.bm25 import BM25Index, reciprocal_rank_fusion
from tools.retrieval.bm25_file import INDEX_FORMAT, IndexFileError, read_index_file, write_index_file

if TYPE_CHECKING:  # pyarrow comes with the first table read: `import tools` stays fast
    import pyarrow as pa

logger = logging.getLogger(__name__)

INDEX_DIR = "_index"
CHUNK_COLUMNS = CHUNKS.without("n_words")  # what a ``Chunk`` holds

DENSE_FORMAT = 1  # bump when the vector file layout changes
# an index file, by chunks version; .json is BM25 format 1's, still recognised so that publishing prunes it
_VERSIONED = re.compile(r"^(?:bm25|dense)-.*-v(\d+)\.(?:json|npz)$")
FUSION_DEPTH = 100  # the BM25 and the dense ranking each bring their best this many to the fusion
EMBED_BLOCK = 128  # chunks handed to the encoder at once: a progress step when embedding a whole lakehouse
PROGRESS_EVERY_S = 10.0

DenseEncoder = Callable[[list[str]], "Sequence[Sequence[float]] | np.ndarray"]
"""Texts → one vector per text: the optional dense half of hybrid ranking. An encoder with a ``model_id``
attribute (a string naming the model and its weights) has its chunk vectors persisted in the lakehouse."""

EmbedProgress = Callable[[int, int], None]
"""Called with (chunks embedded so far, chunks to embed): once with 0 before the first block, then after each."""


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


def _read(root: Lakehouse, table: str, columns: list[str], *,
          published: bool = True) -> tuple[list[dict[str, Any]], int]:
    """Rows and version of a table: the published version for the chat side, the latest for the ``index`` stage."""
    frame, version = _read_table(root, table, columns, published=published)
    return frame.to_pylist(), version


def _read_table(root: Lakehouse, table: str, columns: list[str], *,
                published: bool = True) -> tuple[pa.Table, int]:
    """``_read`` as an Arrow table."""
    try:
        delta = (open_table(root, table) if published
                 else DeltaTable(root.delta_uri(table), storage_options=root.storage_options))
    except TableNotFoundError as exc:
        raise RetrievalError(
            f"no Delta table {table!r} at {root.uri(table)}; run the ingestion pipeline first"
        ) from exc
    except GraphDataError as exc:
        raise RetrievalError(str(exc)) from exc
    return arrow_dataset(delta, root).to_table(columns=columns), int(delta.version())


class ChunkRetriever:
    """Searches the chunks of one lakehouse; also the catalogue of its chunks for the page and summary tools."""

    def __init__(self, chunks: Sequence[Chunk], index: BM25Index, analyzer: Analyzer,
                 dense: DenseEncoder | None = None, vectors: np.ndarray | None = None) -> None:
        self.chunks = list(chunks)
        self.index = index
        self.analyzer = analyzer
        self.dense = dense
        self._vectors = None if vectors is None else _unit_rows(vectors)  # computed at the first search if None
        self._by_id = {c.chunk_id: c for c in self.chunks}

    @classmethod
    def from_chunks(cls, chunks: Sequence[Chunk], language: str, dense: DenseEncoder | None = None) -> ChunkRetriever:
        """Index ``chunks`` in memory (tests, small corpora)."""
        analyzer = Analyzer(language)
        return cls(chunks, BM25Index.build(analyzer.term_counts(c.text) for c in chunks), analyzer, dense)

    @classmethod
    def from_lakehouse(cls, root: Lakehouse, language: str, *, dense: DenseEncoder | None = None,
                       index_dir: Path | None = None) -> ChunkRetriever:
        """Load the lakehouse's published chunks and the BM25 index for their table version (built and saved if
        missing).

        ``root`` is a folder, a bucket or HDFS; for a remote root the index files are read from local copies
        (``index_dir``, else ``_index`` of the root's local cache folder), fetched from the root's ``_index`` first —
        the chat side never writes into a bucket (its credentials may be read-only); an index it must build stays
        local.
        """
        return _load(root, language, dense=dense, index_dir=index_dir, published=True)[0]

    def get(self, chunk_id: str) -> Chunk:
        """The chunk with this id."""
        try:
            return self._by_id[chunk_id]
        except KeyError:
            raise RetrievalError(f"no chunk {chunk_id!r} in the index") from None

    def search(self, query: str, k: int = 5, *, unit_id: str | None = None) -> list[Hit]:
        """The ``k`` best chunks for ``query`` (optionally within one unit), best first.

        BM25 alone, or with a dense encoder the reciprocal rank fusion of BM25's and the embeddings' best
        ``FUSION_DEPTH``; a chunk that shares no word with the query can then be found by its meaning. A query
        without any index term (only stop words) finds nothing either way.
        """
        terms = self.analyzer.terms(query)
        ranked = self.index.top(terms, k=self.index.size)
        if unit_id is not None:
            ranked = [(n, s) for n, s in ranked if self.chunks[n].unit_id == unit_id]
        if self.dense is not None and terms:
            ranked = self._hybrid(query, ranked, unit_id)
        return [Hit(self.chunks[n], s) for n, s in ranked[:k]]

    def _hybrid(self, query: str, ranked: list[tuple[int, float]], unit_id: str | None) -> list[tuple[int, float]]:
        assert self.dense is not None
        if not self.chunks:
            return ranked
        if self._vectors is None:
            self._vectors = _unit_rows(_embed(self.dense, [c.text for c in self.chunks]))
        similarity = self._vectors @ _unit_rows(self.dense([query]))[0]
        if unit_id is not None:
            similarity = np.where([c.unit_id == unit_id for c in self.chunks], similarity, -np.inf)
        # stable sort of the negated similarity: ties keep book order, as in BM25's ranking
        by_dense = [int(n) for n in np.argsort(-similarity, kind="stable")[:FUSION_DEPTH] if similarity[n] > -np.inf]
        return reciprocal_rank_fusion([[n for n, _ in ranked[:FUSION_DEPTH]], by_dense])


@dataclass(frozen=True, slots=True)
class IndexSummary:
    """What ``build_index`` left in the lakehouse: for the ingestion stage's counts and output check."""

    chunks: int
    terms: int  # distinct index terms
    vectors: int  # persisted chunk vectors; 0 without a dense encoder
    version: int  # the chunks table version the files belong to
    paths: tuple[Path, ...]


def index_folder(root: Lakehouse, index_dir: Path | None = None) -> Path:
    """Where the index files are read and written: ``index_dir``, else ``<lakehouse>/_index``.

    Raises:
        graph.errors.StorageError: the lakehouse is in a bucket and no local ``index_dir`` is given (the ``index``
            stage builds the files in a local folder and uploads them).
    """
    return Path(index_dir) if index_dir else root.path(INDEX_DIR)


def index_paths(root: Lakehouse, language: str, version: int, model_id: str | None = None,
                index_dir: Path | None = None) -> tuple[Path, ...]:
    """The files ``from_lakehouse`` looks for: the BM25 index, and the chunk vectors of ``model_id`` if given.

    For a lakehouse in a bucket without ``index_dir``: their names under a stand-in folder ``_index`` (the stage
    checks the bucket's ``_index/<name>``).
    """
    folder = Path(INDEX_DIR) if index_dir is None and not root.is_local else index_folder(root, index_dir)
    paths = [_bm25_path(folder, language, version)]
    if model_id:
        paths.append(_dense_path(folder, model_id, version))
    return tuple(paths)


def _bm25_path(folder: Path, language: str, version: int) -> Path:
    return folder / f"bm25-{language}-f{INDEX_FORMAT}-v{version}.npz"


def _dense_path(folder: Path, model_id: str, version: int) -> Path:
    return folder / f"dense-{model_id}-f{DENSE_FORMAT}-v{version}.npz"


def chunks_version(root: Lakehouse) -> int | None:
    """The latest version of the lakehouse's chunks table (its index files are named after it); None if missing."""
    try:
        return int(DeltaTable(root.delta_uri("chunks"), storage_options=root.storage_options).version())
    except TableNotFoundError:
        return None


def build_index(root: Lakehouse, language: str, *, dense: DenseEncoder | None = None,
                rebuild: bool = False, progress: EmbedProgress | None = None,
                index_dir: Path | None = None, extend: bool = False) -> IndexSummary:
    """Build and persist the index files ``from_lakehouse`` loads (the ingestion pipeline's ``index`` stage), for the
    latest chunks version.

    Files already present for this chunks version are reused unless ``rebuild``. The chunk vectors are persisted
    only for an encoder with a ``model_id``, as at chat start-up. No other version's file is removed: the chat side
    reads the published version until this run is published, and publishing prunes them (``prune_index``).

    ``extend``: the BM25 index of an older chunks version beside it, made with the same analyser, is extended
    instead of building anew — only the chunks it lacks are analysed.
    """
    model_id = getattr(dense, "model_id", None) if dense is not None else None
    if dense is not None and not model_id:
        raise RetrievalError("build_index needs a dense encoder with a model_id: its vectors are saved under it")
    retriever, version = _load(root, language, dense=dense, index_dir=index_dir, rebuild=rebuild,
                               progress=progress, published=False, extend=extend)
    paths = index_paths(root, language, version, model_id if retriever.chunks else None, index_dir)
    vectors = 0 if retriever._vectors is None else int(retriever._vectors.shape[0])
    return IndexSummary(chunks=len(retriever.chunks), terms=len(retriever.index.terms), vectors=vectors,
                        version=version, paths=paths)


def _load(root: Lakehouse, language: str, *, dense: DenseEncoder | None, index_dir: Path | None,
          published: bool, rebuild: bool = False, progress: EmbedProgress | None = None,
          extend: bool = False) -> tuple[ChunkRetriever, int]:
    """The retriever over the chunks table's published (or, for the writer, latest) version, its index files read,
    or built and written. The reader removes the files of older chunks versions; the writer removes none."""
    table, version = _read_table(root, CHUNKS.name, CHUNK_COLUMNS, published=published)
    prune_below = version if published else None
    try:
        documents, _ = _read(root, DOCUMENTS.name, DOCUMENTS.pick("doc_id", "title"), published=published)
        titles = {r["doc_id"]: r["title"] or "" for r in documents}
    except RetrievalError:
        titles = {}
    chunks = _chunks(table, titles)
    analyzer = Analyzer(language)
    chunk_ids = [c.chunk_id for c in chunks]
    if published and not root.is_local:
        index_dir = _fetch_index(root, language, version, getattr(dense, "model_id", None) if dense else None,
                                 index_dir, chunk_ids)
    path = _bm25_path(index_folder(root, index_dir), language, version)
    index = None if rebuild else _load_index(path, chunk_ids, analyzer.key)
    if index is None:
        index = _extended_index(path, chunks, analyzer) if extend and not rebuild else None
        if index is None:
            index = BM25Index.build(analyzer.term_counts(c.text) for c in chunks)
        _save_index(path, index, chunks, analyzer, prune_below)
        logger.info("BM25 index of %d chunks written to %s", len(chunks), path)
    vectors = None
    if dense is not None and chunks:
        # embedding a novel takes minutes: done here (ingestion, or chat start-up), never within a question's limit
        vectors = _dense_vectors(path.parent, version, dense, chunks, rebuild=rebuild, progress=progress,
                                 prune_below=prune_below)
    return ChunkRetriever(chunks, index, analyzer, dense, vectors), version


def _fetch_index(storage: Lakehouse, language: str, version: int, model_id: str | None,
                 index_dir: Path | None, chunk_ids: list[str]) -> Path:
    """The local folder holding this chunks version's index files of a bucket lakehouse: each one missing there, or
    not of ``chunk_ids``, is copied from the bucket's ``_index`` (the ``index`` stage uploaded it). The names carry
    the chunks version and every setting, but a copy already there may still be of an earlier build of the same root
    (deleted and rebuilt from another corpus, its chunks table at that version again), hence the check of its chunk
    ids. One the bucket lacks is left for ``_load`` to build."""
    folder = Path(index_dir) if index_dir else storage.local_cache_dir() / INDEX_DIR
    wanted = [_bm25_path(folder, language, version)] + ([_dense_path(folder, model_id, version)] if model_id else [])
    for path in wanted:
        if _indexed_ids(path) == chunk_ids:
            continue
        data = storage.read_bytes(INDEX_DIR, path.name)
        if data is None:
            logger.info("no index file %s in the bucket; building it locally", storage.uri(INDEX_DIR, path.name))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)  # a concurrent reader sees no copy or the whole one
        logger.info("index file %s copied to %s", storage.uri(INDEX_DIR, path.name), path)
    return folder


def _chunks(table: pa.Table, titles: dict[str, str]) -> list[Chunk]:
    """The prose chunks of a ``chunks`` table in book order (``doc_id``, ``chunk_index``), each with its document's
    title; filtered and sorted in Arrow, read a column at a time through numpy (``to_pylist``'s dict per row and a
    sort in Python took 2.5 times as long for the 21,600 chunks of 8× War and Peace)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    # A table of contents or a licence is no passage to quote, nor a unit to list.
    non_prose = pc.fill_null(pc.is_in(table["unit_kind"], value_set=pa.array(sorted(NON_PROSE_UNIT_KINDS))), False)
    prose = table.filter(pc.invert(non_prose)).sort_by([("doc_id", "ascending"), ("chunk_index", "ascending")])
    optional = {"unit_kind", "unit_title", "part_title", "text"}  # a null reads as ""
    columns = [(pc.fill_null(prose[name], "") if name in optional else prose[name]).to_numpy().tolist()
               for name in ("chunk_id", "doc_id", "chunk_index", "unit_id", "unit_index", "unit_kind", "unit_title",
                            "part_title", "start", "end", "text")]
    return [
        Chunk(chunk_id=chunk_id, doc_id=doc_id, chunk_index=chunk_index, unit_id=unit_id, unit_index=unit_index,
              unit_kind=unit_kind, unit_title=unit_title, part_title=part_title, start=start, end=end, text=text,
              doc_title=titles.get(doc_id, ""))
        for chunk_id, doc_id, chunk_index, unit_id, unit_index, unit_kind, unit_title, part_title, start, end, text
        in zip(*columns, strict=True)
    ]


def _unit_rows(vectors: Any) -> np.ndarray:
    """Float32 rows scaled to length 1, so a dot product is the cosine (a zero row stays zero)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        raise RetrievalError(f"the dense encoder returned an array of shape {matrix.shape}; expected (texts, dims)")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


def _embed(dense: DenseEncoder, texts: list[str], progress: EmbedProgress | None = None) -> np.ndarray:
    """Encode ``texts`` in blocks of similar length (less padding for an encoder that pads), logging progress."""
    order = sorted(range(len(texts)), key=lambda n: len(texts[n]))
    rows: np.ndarray | None = None
    started = last = time.perf_counter()
    if progress is not None:
        progress(0, len(texts))
    for begin in range(0, len(order), EMBED_BLOCK):
        block = order[begin:begin + EMBED_BLOCK]
        vectors = np.asarray(dense([texts[n] for n in block]), dtype=np.float32)
        if rows is None:
            rows = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        rows[block] = vectors
        now = time.perf_counter()
        done = begin + len(block)
        if progress is not None:
            progress(done, len(texts))
        if now - last >= PROGRESS_EVERY_S or (done == len(order) and now - started >= PROGRESS_EVERY_S):
            last = now
            logger.info("embedding chunks: %d/%d (%.1f chunks/s)", done, len(order), done / (now - started))
    assert rows is not None, "called with no texts"
    return rows


def _dense_vectors(folder: Path, version: int, dense: DenseEncoder, chunks: Sequence[Chunk], *,
                   rebuild: bool = False, progress: EmbedProgress | None = None,
                   prune_below: int | None = None) -> np.ndarray:
    """The chunk vectors of this chunks table version: read from their file, or computed (and saved if the
    encoder names its model)."""
    model_id = getattr(dense, "model_id", None)
    chunk_ids = [c.chunk_id for c in chunks]
    path = _dense_path(folder, model_id, version) if model_id else None
    if path is not None and not rebuild:
        vectors = _load_vectors(path, chunk_ids)
        if vectors is not None:
            return vectors
    logger.info("embedding %d chunks with %s (once per chunks table version)", len(chunks), model_id or dense)
    started = time.perf_counter()
    vectors = _unit_rows(_embed(dense, [c.text for c in chunks], progress))
    logger.info("embedded %d chunks in %.1f s", len(chunks), time.perf_counter() - started)
    if path is not None:
        _save_vectors(path, vectors, chunk_ids, f"dense-{model_id}-f{DENSE_FORMAT}-v", prune_below)
    return vectors


def _load_vectors(path: Path, chunk_ids: list[str]) -> np.ndarray | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            ids, vectors = data["chunk_ids"], data["vectors"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:  # only a lost speed-up
        logger.warning("ignoring unreadable vectors %s (%s); re-embedding", path, exc)
        return None
    if ids.tolist() != chunk_ids or vectors.shape[0] != len(chunk_ids):
        logger.warning("vectors %s belong to other chunks; re-embedding", path)
        return None
    return vectors


def _save_vectors(path: Path, vectors: np.ndarray, chunk_ids: list[str], stale_prefix: str,
                  prune_below: int | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "wb") as out:  # atomic, as the BM25 index
        np.savez(out, vectors=vectors, chunk_ids=np.array(chunk_ids, dtype=str))
    if prune_below is not None:
        _prune(path.parent.glob(stale_prefix + "*.npz"), prune_below)
    logger.info("chunk vectors written to %s", path)


def _indexed_ids(path: Path) -> list[str] | None:
    """The chunk ids an index file (BM25 or vectors) covers, in order; None when there is no readable file."""
    try:
        if path.name.startswith("dense-"):
            with np.load(path, allow_pickle=False) as data:
                return [str(chunk_id) for chunk_id in data["chunk_ids"].tolist()]
        return read_index_file(path).chunk_ids
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, IndexFileError):
        return None  # missing or damaged: fetched again, or only a lost speed-up


def _load_index(path: Path, chunk_ids: list[str], analyzer_key: str) -> BM25Index | None:
    try:
        stored = read_index_file(path)
    except FileNotFoundError:
        return None
    except IndexFileError as exc:  # a damaged index file is only a lost speed-up
        logger.warning("%s; rebuilding it", exc)  # the message names the file
        return None
    if stored.analyzer != analyzer_key:  # terms of another analyser: a query's stems could miss them
        logger.info("%s was made by another analyser; rebuilding it", path.name)
        return None
    if stored.chunk_ids != chunk_ids:  # another build's chunks under the same version: its terms index other texts
        logger.info("%s indexes other chunks; rebuilding it", path.name)
        return None
    return stored.index


def _extended_index(path: Path, chunks: list[Chunk], analyzer: Analyzer) -> BM25Index | None:
    """The index of ``chunks`` made from the newest older version's file beside ``path``, analysing only the chunks
    it lacks; None when there is none, or it was made by another analyser.

    A chunk is the same when its id and its span are: the id names its document by content hash, the span says
    which of that text it holds (chunking settings may change the span under the same id).
    """
    stem = path.name.split("-v")[0]
    current = file_version(path)
    older = [(v, p) for p in path.parent.glob(f"{stem}-v*{path.suffix}") if (v := file_version(p)) is not None
             and current is not None and v < current]
    if not older:
        return None
    _, source = max(older)
    try:
        stored = read_index_file(source)
    except (FileNotFoundError, IndexFileError) as exc:  # a damaged (or just pruned) file is only a lost speed-up
        logger.warning("not extending the index of %s (%s); building anew", source.name, exc)
        return None
    if stored.analyzer != analyzer.key:
        return None
    number = {(cid, a, b): i for i, (cid, (a, b)) in enumerate(zip(stored.chunk_ids, stored.spans, strict=True))}
    keep = [number.get((c.chunk_id, c.start, c.end)) for c in chunks]
    added = {i: analyzer.term_counts(c.text) for i, c in enumerate(chunks) if keep[i] is None}
    logger.info("BM25 index extended from %s: %d chunks kept, %d analysed", source.name, len(chunks) - len(added),
                len(added))
    return stored.index.reindexed(keep, added)


def _save_index(path: Path, index: BM25Index, chunks: list[Chunk], analyzer: Analyzer,
                prune_below: int | None) -> None:
    # the spans and the analyser's key let the next chunks version's index extend this one (_extended_index)
    write_index_file(path, index, [c.chunk_id for c in chunks], [(c.start, c.end) for c in chunks], analyzer.key)
    if prune_below is not None:
        _prune(path.parent.glob(path.name.split("-v")[0] + "-v*" + path.suffix), prune_below)


def file_version(path: Path) -> int | None:
    """The chunks table version an index file belongs to (``…-v<version>.json|npz``); None for another file."""
    match = _VERSIONED.search(path.name)
    return int(match.group(1)) if match else None


def _prune(paths: Iterable[Path], below: int) -> None:
    """Remove index files of chunks versions older than ``below``: nobody reads them any more."""
    for stale in paths:
        version = file_version(stale)
        if version is not None and version < below:
            stale.unlink(missing_ok=True)


def prune_index(root: Lakehouse, keep_version: int, index_dir: Path | None = None) -> list[str]:
    """Remove every index file not of chunks version ``keep_version`` (at publish time); the names removed."""
    if index_dir is None and not root.is_local:
        stale = [name for name in root.list_files(INDEX_DIR) if file_version(Path(name)) not in (None, keep_version)]
        for name in stale:
            root.delete(INDEX_DIR, name)
        return stale
    folder = index_folder(root, index_dir)
    removed = []
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        version = file_version(path)
        if version is not None and version != keep_version:
            path.unlink(missing_ok=True)
            removed.append(path.name)
    return removed


def version_files(root: Lakehouse, version: int, index_dir: Path | None = None) -> list[str]:
    """The names of the index files of chunks version ``version`` (what a publish manifest lists)."""
    if index_dir is None and not root.is_local:
        return [name for name in root.list_files(INDEX_DIR) if file_version(Path(name)) == version]
    folder = index_folder(root, index_dir)
    if not folder.is_dir():
        return []
    return sorted(path.name for path in folder.glob("*") if file_version(path) == version)
