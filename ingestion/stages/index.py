"""Stage 3, ``index``: the chat side's chunk index — BM25 and, with ``retrieval.dense_model``, the chunk vectors.

Written to ``<lakehouse>/_index/`` by ``tools.retrieval.chunks.build_index``, the very code ``ChunkRetriever``
runs at chat start-up when the files are missing: the chat side then finds them and builds nothing. The files are
named after the chunks table version they index, so this stage writes no Delta table and its skip check
(``outputs_exist``) looks for the files of the current version instead. Everything runs in the driver with delta-rs,
no Spark job: BM25 over a novel takes seconds, the dense vectors minutes (War and Peace: ~2.5 min on 2 cores),
reported through the run's progress in chunks.

A lakehouse in an S3 bucket gets the same files: they are built in a local staging folder (this version's files
already in the bucket are fetched first, so they are reused as on disk) and each is then uploaded in one PUT under
its final name — a reader sees no file or the whole file, and the publish manifest names them only afterwards.
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingestion.markers import fingerprint
from ingestion.stage import Stage, StageOutput
from tools.retrieval.analyzer import STEMMER_LANGUAGES, STOP_WORDS, analyzer_for
from tools.retrieval.chunks import (
    DENSE_FORMAT,
    INDEX_DIR,
    INDEX_FORMAT,
    build_index,
    chunks_version,
    file_version,
    index_paths,
)

if TYPE_CHECKING:
    from ingestion.context import RunContext

logger = logging.getLogger(__name__)


class IndexStage(Stage):
    """Builds the retrieval index files of the ``chunks`` table; writes no table."""

    name = "index"
    # A new version redoes the stage; what each version changed: docs/decisions/0002-stage-versions.md
    version = 3
    tables = ()
    requires = ("chunks",)

    def __init__(self) -> None:
        self._model_ids: dict[str, str] = {}  # hashing the weights once per run is enough

    def _dense_model_id(self, ctx: RunContext) -> str | None:
        """The identity of the dense model's files (None when dense ranking is off)."""
        value = ctx.settings.retrieval.dense_model.strip()
        if not value:
            return None
        if value not in self._model_ids:
            from tools.retrieval.dense import model_id

            self._model_ids[value] = model_id(value)
        return self._model_ids[value]

    def config(self, ctx: RunContext) -> dict[str, Any]:
        """The analyser (language, stemmer, stop words), the file formats and the dense model's identity."""
        language = ctx.domain.language
        dense = self._dense_model_id(ctx)
        return {
            "language": language,
            "stemmer": STEMMER_LANGUAGES.get(language),
            # the analyser's key (its stemmer's implementation and version): other stems are another index
            "analyzer": analyzer_for(language).key if language in STEMMER_LANGUAGES else None,
            "stop_words": sorted(STOP_WORDS.get(language, ())),
            "index_format": INDEX_FORMAT,
            "dense": dense,
            "dense_format": DENSE_FORMAT if dense else None,
        }

    def input_fingerprint(self, ctx: RunContext) -> str:
        """The chunks marker, and the chunks table version: the index files are named after it."""
        return fingerprint([super().input_fingerprint(ctx), chunks_version(ctx.lakehouse.storage)])

    def outputs_exist(self, ctx: RunContext) -> bool:
        """The index files of the current chunks version are there (the dense ones only when dense is on)."""
        storage, language = ctx.lakehouse.storage, ctx.domain.language
        version = chunks_version(storage)
        if version is None:
            return False
        if language not in STEMMER_LANGUAGES:
            return True  # nothing is written for a language without an analyser (see compute)
        # build_index embeds nothing for an empty chunks table, so there is no vector file to expect then
        model = self._dense_model_id(ctx) if ctx.lakehouse.count("chunks") else None
        paths = index_paths(storage, language, version, model)
        if storage.is_local:
            return all(path.is_file() for path in paths)
        return all(storage.is_file(INDEX_DIR, path.name) for path in paths)

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Build (or, for files of this chunks version already written by the chat side, reuse) the index files."""
        language = ctx.domain.language
        if language not in STEMMER_LANGUAGES:
            # Not a failure: the graph needs no retrieval; the chat side would refuse the language anyway.
            reason = f"no retrieval analyser for language {language!r} (valid: {', '.join(sorted(STEMMER_LANGUAGES))})"
            logger.warning("stage %s: %s; no index written", self.name, reason)
            return StageOutput(
                counts={"chunks": 0, "terms": 0, "vectors": 0},
                output_fingerprint=self.derived_fingerprint(ctx),
                details={"not_indexed": reason},
            )
        dense = None
        retrieval = ctx.settings.retrieval
        if retrieval.dense_model.strip():
            from tools.retrieval.dense import load_encoder

            dense = load_encoder(
                retrieval.dense_model, batch_size=retrieval.dense_batch_size, threads=retrieval.dense_threads
            )
        progress = _EmbedProgress(ctx, self.name)
        started = time.perf_counter()
        try:
            # force rebuilds; otherwise files of this chunks version are reused: their names carry every setting
            with _index_folder(ctx, rebuild=ctx.force) as index_dir:
                # the last index, made by the same analyser, is extended with the new chunks
                summary = build_index(ctx.lakehouse.storage, language, dense=dense, rebuild=ctx.force,
                                      progress=progress, index_dir=index_dir, extend=True)
                if index_dir is not None:
                    for path in summary.paths:  # one PUT each, under the final name
                        ctx.lakehouse.storage.write_bytes(INDEX_DIR, path.name, data=path.read_bytes())
        finally:
            progress.finish()
        details: dict[str, Any] = {"chunks_version": summary.version, "files": [p.name for p in summary.paths]}
        if dense is not None:
            details.update(dense_model=retrieval.dense_model, dense_seconds=round(progress.seconds, 3))
        logger.info(
            "stage %s: %d chunks, %d terms, %d vectors in %.1f s",
            self.name,
            summary.chunks,
            summary.terms,
            summary.vectors,
            time.perf_counter() - started,
        )
        return StageOutput(
            counts={"chunks": summary.chunks, "terms": summary.terms, "vectors": summary.vectors},
            output_fingerprint=self.derived_fingerprint(ctx),
            details=details,
        )


@contextmanager
def _index_folder(ctx: RunContext, *, rebuild: bool) -> Iterator[Path | None]:
    """None (the lakehouse's own ``_index``) on disk; for a bucket, a local staging folder holding the files of the
    current chunks version already uploaded (unless ``rebuild``), removed afterwards."""
    storage = ctx.lakehouse.storage
    if storage.is_local:
        yield None
        return
    version = chunks_version(storage)
    with tempfile.TemporaryDirectory(prefix="csillag-index-") as staging:
        current = [n for n in storage.list_files(INDEX_DIR) if file_version(Path(n)) == version] if not rebuild else []
        for name in current:
            data = storage.read_bytes(INDEX_DIR, name)
            if data is not None:
                (Path(staging) / name).write_bytes(data)
        yield Path(staging)


class _EmbedProgress:
    """``tools.retrieval.chunks.EmbedProgress`` → the run's ``ProgressReporter`` (started only if embedding runs)."""

    def __init__(self, ctx: RunContext, stage: str) -> None:
        self._reporter, self._stage = ctx.progress, stage
        self._done = 0
        self._started: float | None = None
        self.seconds = 0.0

    def __call__(self, done: int, total: int) -> None:
        if self._started is None:
            self._started = time.perf_counter()
            self._reporter.start(self._stage, total, "chunks")
        if done > self._done:
            self._reporter.advance(self._stage, done - self._done)
            self._done = done
        self.seconds = time.perf_counter() - self._started

    def finish(self) -> None:
        if self._started is not None:
            self._reporter.finish(self._stage)
