"""Stage 1, ``documents``: read the inputs, normalise them, reject bad ones, keep one row per distinct content.

The inputs define the corpus: a rerun with a file removed removes that document (and, downstream, everything derived
from it); a file added is the only new work. ``doc_id`` is the content hash, so the same text under two names is
one document.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ingestion.errors import InputNotFoundError
from ingestion.markers import fingerprint
from ingestion.stage import Stage, StageOutput
from ingestion.text import RejectedDocument, check_document, content_id, count_words, decode_document, strip_gutenberg

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from ingestion.context import RunContext

logger = logging.getLogger(__name__)

TEXT_SUFFIXES = (".txt", ".md")
RAW_SCHEMA = "source string, title string, content binary, text string, metadata map<string,string>"
PREPARED_SCHEMA = (
    "doc_id string, source string, title string, language string, text string, n_chars long, n_words long, "
    "metadata map<string,string>, reject_reason string, reject_detail string"
)
DOCUMENT_COLUMNS = ["doc_id", "source", "title", "language", "text", "n_chars", "n_words", "metadata"]
REJECT_SCHEMA = "source string, doc_id string, stage string, reason string, detail string"


@dataclass(frozen=True)
class InputSource:
    """One resolved input: ``kind`` is ``files``, ``jsonl``, ``delta`` or ``parquet``."""

    kind: str
    path: Path
    files: tuple[Path, ...] = ()


def resolve_inputs(inputs: list[str]) -> list[InputSource]:
    """Expand the request's inputs; a path that does not exist, or a folder with no documents, is an error."""
    if not inputs:
        raise InputNotFoundError(
            "the request names no inputs; give files, folders, JSONL files or tables", stage="documents"
        )
    sources: list[InputSource] = []
    for raw in inputs:
        path = Path(raw).expanduser().resolve()
        if not path.exists():
            raise InputNotFoundError(f"input {raw!r} does not exist", stage="documents", path=raw)
        if path.is_dir() and (path / "_delta_log").is_dir():
            sources.append(InputSource("delta", path))
        elif path.suffix == ".parquet" or (path.is_dir() and any(path.glob("*.parquet"))):
            sources.append(InputSource("parquet", path))
        elif path.suffix == ".jsonl":
            sources.append(InputSource("jsonl", path))
        elif path.is_dir():
            files = tuple(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES))
            if not files:
                raise InputNotFoundError(
                    f"folder {raw!r} holds no {'/'.join(TEXT_SUFFIXES)} documents", stage="documents", path=raw
                )
            sources.append(InputSource("files", path, files))
        else:
            sources.append(InputSource("files", path, (path,)))
    return sources


def listing_fingerprint(sources: list[InputSource]) -> str:
    """Cheap change detection (like make): every input file's path, size and modification time; tables' versions."""
    entries: list[Any] = []
    for source in sources:
        if source.kind == "files":
            entries.extend((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in source.files)
        elif source.kind == "delta":
            log = sorted((source.path / "_delta_log").glob("*.json"))
            entries.append((str(source.path), log[-1].name if log else ""))
        else:
            files = [source.path] if source.path.is_file() else sorted(source.path.rglob("*.parquet"))
            entries.extend((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    return fingerprint(entries)


def prepare_documents(
    batches: Iterable[pd.DataFrame], *, language: str, check_language: bool, max_line_chars: int, max_bytes: int
) -> Iterator[pd.DataFrame]:
    """``mapInPandas`` transform: raw rows → prepared rows, each either a document or a reject with its reason."""
    for batch in batches:
        rows = []
        for record in batch.itertuples(index=False):
            rows.append(
                _prepare_one(
                    record._asdict(),
                    language=language,
                    check_language=check_language,
                    max_line_chars=max_line_chars,
                    max_bytes=max_bytes,
                )
            )
        yield pd.DataFrame(rows, columns=PREPARED_SCHEMA_COLUMNS)


PREPARED_SCHEMA_COLUMNS = [
    "doc_id",
    "source",
    "title",
    "language",
    "text",
    "n_chars",
    "n_words",
    "metadata",
    "reject_reason",
    "reject_detail",
]


def _prepare_one(
    record: dict[str, Any], *, language: str, check_language: bool, max_line_chars: int, max_bytes: int
) -> dict[str, Any]:
    source = record["source"]
    row: dict[str, Any] = dict.fromkeys(PREPARED_SCHEMA_COLUMNS)
    row.update(source=source, title=record["title"], language=language, metadata=record["metadata"] or {})
    try:
        content = record["content"]
        if content is not None:
            if len(content) > max_bytes:
                raise RejectedDocument("too_large", f"{len(content)} bytes (limit {max_bytes})")
            text = decode_document(bytes(content), source=source)
        else:
            raw_text = record["text"] or ""
            if len(raw_text.encode("utf-8")) > max_bytes:
                raise RejectedDocument("too_large", f"{len(raw_text)} characters (limit {max_bytes} bytes)")
            text = decode_document(raw_text.encode("utf-8"), source=source)
        text, _ = strip_gutenberg(text)
        check_document(text, max_line_chars=max_line_chars, expected_language=language if check_language else None)
    except RejectedDocument as exc:
        row.update(reject_reason=exc.reason, reject_detail=exc.detail)
        return row
    row.update(doc_id=content_id(text), text=text, n_chars=len(text), n_words=count_words(text))
    return row


def read_raw(ctx: RunContext, sources: list[InputSource]) -> DataFrame:
    """All inputs as one DataFrame of RAW_SCHEMA rows."""
    from pyspark.sql import functions as F

    spark = ctx.spark
    frames = []
    for source in sources:
        if source.kind == "files":
            df = spark.read.format("binaryFile").load([str(f) for f in source.files])
            frames.append(
                df.select(
                    F.col("path").alias("source"),
                    F.regexp_extract("path", r"([^/]+?)(\.[^./]+)?$", 1).alias("title"),
                    F.col("content"),
                    F.lit(None).cast("string").alias("text"),
                    F.create_map().cast("map<string,string>").alias("metadata"),
                )
            )
        else:
            if source.kind == "jsonl":
                df = spark.read.json(str(source.path))
            else:
                df = spark.read.format(source.kind).load(str(source.path))
            if "text" not in df.columns:
                raise InputNotFoundError(
                    f"input {source.path} has no 'text' column (columns: {', '.join(df.columns)})",
                    stage="documents",
                    path=str(source.path),
                )
            key = F.col("id").cast("string") if "id" in df.columns else F.monotonically_increasing_id().cast("string")
            extra = [c for c in df.columns if c not in {"id", "text"}]
            metadata = (
                F.create_map(*[x for c in extra for x in (F.lit(c), F.col(c).cast("string"))])
                if extra
                else F.create_map().cast("map<string,string>")
            )
            title = F.col("title").cast("string") if "title" in df.columns else key
            frames.append(
                df.select(
                    F.concat(F.lit(f"{source.path}#"), key).alias("source"),
                    title.alias("title"),
                    F.lit(None).cast("binary").alias("content"),
                    F.col("text").cast("string").alias("text"),
                    metadata.alias("metadata"),
                )
            )
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    return result


class DocumentsStage(Stage):
    """Reads and normalises the corpus; writes ``documents`` and ``rejects``."""

    name = "documents"
    tables = ("documents", "rejects")

    def config_fingerprint(self, ctx: RunContext) -> str:
        """Normalisation rules and the checks that decide rejects."""
        ing = ctx.settings.ingestion
        return fingerprint(
            {
                "stage": self.name,
                "version": 1,
                "language": ctx.domain.language,
                "check_language": ing.check_language,
                "max_line_chars": ing.max_line_chars,
                "max_document_bytes": ing.max_document_bytes,
            }
        )

    def input_fingerprint(self, ctx: RunContext) -> str:
        """The listing of the input files (resolving them also fails fast on a missing input)."""
        return listing_fingerprint(resolve_inputs(ctx.inputs))

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Prepare every input; append new documents, delete vanished ones; rewrite the rejects."""
        from pyspark.sql import functions as F
        from pyspark.sql.window import Window

        ing = ctx.settings.ingestion
        sources = resolve_inputs(ctx.inputs)
        language = ctx.domain.language
        check, max_line, max_bytes = ing.check_language, ing.max_line_chars, ing.max_document_bytes

        def transform(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
            return prepare_documents(
                batches, language=language, check_language=check, max_line_chars=max_line, max_bytes=max_bytes
            )

        prepared = read_raw(ctx, sources).mapInPandas(transform, PREPARED_SCHEMA).persist()
        try:
            rejects = prepared.where(F.col("reject_reason").isNotNull()).select(
                "source",
                F.coalesce("doc_id", F.lit("")).alias("doc_id"),
                F.lit(self.name).alias("stage"),
                F.col("reject_reason").alias("reason"),
                F.col("reject_detail").alias("detail"),
            )
            # The same content under several names is one document; the first name (sorted) is kept.
            first = Window.partitionBy("doc_id").orderBy("source")
            docs = (
                prepared.where(F.col("reject_reason").isNull())
                .withColumn("_rank", F.row_number().over(first))
                .where("_rank = 1")
                .select(*DOCUMENT_COLUMNS)
            )
            current = {row.doc_id for row in docs.select("doc_id").collect()}
            existing = ctx.lakehouse.doc_ids("documents") if incremental else set()
            added, removed = sorted(current - existing), sorted(existing - current)
            if not incremental:
                ctx.lakehouse.overwrite(docs, "documents")
            else:
                ctx.lakehouse.delete_docs("documents", removed)
                if added:
                    ctx.lakehouse.append(docs.where(F.col("doc_id").isin(added)), "documents")
            reject_rows = rejects.collect()
            ctx.lakehouse.overwrite(ctx.spark.createDataFrame(reject_rows, REJECT_SCHEMA), "rejects")
        finally:
            prepared.unpersist()
        for row in reject_rows:
            logger.warning("rejected %s: %s (%s)", row.source, row.reason, row.detail)
        logger.info(
            "documents: %d in corpus, %d new, %d removed, %d rejected",
            len(current),
            len(added),
            len(removed),
            len(reject_rows),
        )
        return StageOutput(
            counts={
                "documents": len(current),
                "added": len(added),
                "removed": len(removed),
                "rejects": len(reject_rows),
            },
            output_fingerprint=fingerprint(sorted(current)),
            details={"rejects": [{"source": r.source, "reason": r.reason, "detail": r.detail} for r in reject_rows]},
        )
