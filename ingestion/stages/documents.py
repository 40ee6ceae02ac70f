"""Stage 1, ``documents``: read the inputs, normalise them, reject bad ones, keep one row per distinct content.

The inputs define the corpus: a rerun with a file removed removes that document (and, downstream, everything derived
from it); a file added is the only new work. ``doc_id`` is the content hash, so the same text under two names is
one document; a renamed file keeps its ``doc_id`` and gets its new ``source`` and ``title``.

Every input the scan sees ends in exactly one place: a ``documents`` row (or the document of the same content) or a
``rejects`` row whose reason is one of ``ingestion.text.REJECT_REASONS`` and whose source or detail names the file
or the JSONL line. The scan (``ingestion.scan``) lists files and rejects what must not be opened; the Spark workers
read each file themselves (``ingestion.records.read_file``), so one unreadable file is one reject, not a failed job.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa

from graph.tables import DOCUMENTS, REJECTS, Column, ddl
from ingestion.language_id import detect_language as detect_text_language
from ingestion.language_id import detector_key
from ingestion.markers import fingerprint
from ingestion.records import (
    SEGMENT_BYTES,
    JsonlLine,
    jsonl_segments,
    parse_jsonl_line,
    read_file,
    read_jsonl_segment,
)
from ingestion.relational import Engine, engine_for, map_batches, query, query_rows
from ingestion.scan import InputSource, Scan, ScanReject, listing_fingerprint, resolve_roots, scan_inputs
from ingestion.schema import conform
from ingestion.stage import Stage, StageOutput
from ingestion.text import RejectedDocument, check_document, content_id, count_words, decode_document, strip_gutenberg

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from ingestion.context import RunContext

logger = logging.getLogger(__name__)

# kind: file (read by the worker from path), jsonl (one line: line, value), table (record_id, text), reject (scan).
RAW_SCHEMA = (
    "kind string, source string, title string, path string, line long, value string, record_id string, "
    "text string, metadata map<string,string>, reject_reason string, reject_detail string"
)
# A prepared row: the documents columns, and what decides a reject or a duplicate id.
_PREPARED_EXTRA: tuple[Column, ...] = (
    ("reject_reason", "string"), ("reject_detail", "string"), ("input", "string"), ("line", "long"),
    ("record_id", "string"), ("rank_key", "string"),
)
PREPARED = DOCUMENTS.extended("prepared", *_PREPARED_EXTRA)
PREPARED_COLUMNS = list(PREPARED.names)
# What a rename or a metadata fix changes in place: the content (doc_id) and everything derived from it stay.
DESCRIPTIVE_COLUMNS = tuple(DOCUMENTS.pick("source", "title", "metadata"))


def prepare_documents(
    batches: Iterable[pd.DataFrame],
    *,
    language: str,
    check_language: bool,
    max_line_chars: int,
    max_bytes: int,
    roots: tuple[str, ...] | None = None,
    detect_language: bool = False,
) -> Iterator[pd.DataFrame]:
    """``mapInPandas`` transform: raw rows → prepared rows, each either a document or a reject with its reason."""
    for batch in batches:
        rows = [
            _prepare_one(
                record._asdict(),
                language=language,
                check_language=check_language,
                max_line_chars=max_line_chars,
                max_bytes=max_bytes,
                roots=roots,
                detect_language=detect_language,
            )
            for record in batch.itertuples(index=False)
        ]
        frame = pd.DataFrame(rows, columns=PREPARED_COLUMNS)
        frame["line"] = frame["line"].astype("Int64")
        yield frame


def _prepare_one(
    record: dict[str, Any],
    *,
    language: str,
    check_language: bool,
    max_line_chars: int,
    max_bytes: int,
    roots: tuple[str, ...] | None,
    detect_language: bool = False,
) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(PREPARED_COLUMNS)
    line = None if pd.isna(record["line"]) else int(record["line"])
    row.update(source=record["source"], title=record["title"], language=language, input=record["path"], line=line,
               metadata=record["metadata"] if record["metadata"] is not None else {})
    kind, prefix = record["kind"], ""
    try:
        if kind == "reject":
            raise RejectedDocument(record["reject_reason"], record["reject_detail"])
        if kind == "file":
            text = decode_document(read_file(record["path"], roots=roots, max_bytes=max_bytes), source=row["source"])
        else:
            if kind == "jsonl":
                assert line is not None
                row["source"] = f"{record['path']}:{line}"  # until the line's id is known
                parsed = parse_jsonl_line(record["value"] or "", line)
                row.update(source=f"{record['path']}#{parsed.record_id}", title=parsed.title, metadata=parsed.metadata,
                           record_id=parsed.record_id, rank_key=f"{line:012d}")
                raw_text, prefix = parsed.text, f"line {line}: "
            else:
                raw_text = record["text"]
                if record["record_id"] is None or not record["record_id"].strip():
                    shown = f"text begins {raw_text[:40]!r}" if raw_text is not None else "no text"
                    # Every row without an id is its own outcome: named by its text, not just the table's path.
                    digest = hashlib.sha256((raw_text or "").encode("utf-8")).hexdigest()[:12]
                    row["source"] = f"{record['path']}#<no id {digest}>"
                    raise RejectedDocument("missing_id", f"a row with a null or blank id ({shown})")
                row.update(record_id=record["record_id"])
                if raw_text is None:
                    raise RejectedDocument("text_not_string", f"id {record['record_id']!r}: 'text' is null")
                row["rank_key"] = hashlib.sha256(raw_text.encode("utf-8")).hexdigest()
            if len(raw_text.encode("utf-8")) > max_bytes:
                raise RejectedDocument("too_large", f"{len(raw_text)} characters (limit {max_bytes} bytes)")
            text = decode_document(raw_text.encode("utf-8"), source=row["source"])
        text, _ = strip_gutenberg(text)
        if detect_language:
            # Each document is in whatever language it is: recorded, not rejected; NER routes by it. Too short or
            # no clear language: the tool's.
            check_document(text, max_line_chars=max_line_chars)
            row["language"] = detect_text_language(text) or language
        else:
            check_document(text, max_line_chars=max_line_chars,
                           expected_language=language if check_language else None)
    except RejectedDocument as exc:
        row.update(reject_reason=exc.reason, reject_detail=prefix + exc.detail)
        return row
    row.update(doc_id=content_id(text), text=text, n_chars=len(text), n_words=count_words(text))
    return row


def _file_row(path: Path) -> tuple[Any, ...]:
    """A plain file's RAW_SCHEMA row: its path, for the reader (a worker, or the driver) to open."""
    return ("file", str(path), path.stem, str(path), None, None, None, None, {}, None, None)


def _reject_row(reject: ScanReject) -> tuple[Any, ...]:
    """A scan reject's RAW_SCHEMA row."""
    return ("reject", reject.source, None, None, None, None, None, None, {}, reject.reason, reject.detail)


def read_raw(spark: SparkSession, scan: Scan, max_bytes: int, roots: tuple[str, ...] | None = None) -> DataFrame:
    """Every input as RAW_SCHEMA rows: file paths and scan rejects from the driver, JSONL lines and table rows;
    JSONL files are opened within ``roots`` (resolved; None = anywhere), as plain files are."""
    local: list[tuple[Any, ...]] = []
    frames: list[DataFrame] = []
    for source in scan.sources:
        if source.kind == "files":
            local.extend(_file_row(f) for f in source.files)
            continue
        if source.kind == "jsonl":
            frame = _jsonl_rows(spark, source.path, max_bytes, roots)
        else:
            frame = _table_rows(spark, source)
        if isinstance(frame, tuple):
            local.append(frame)
        else:
            frames.append(frame)
    local.extend(_reject_row(r) for r in scan.rejects)
    result = spark.createDataFrame(local, RAW_SCHEMA)
    for frame in frames:
        result = result.unionByName(frame)
    return result


def _jsonl_rows(
    spark: SparkSession, path: Path, max_bytes: int, roots: tuple[str, ...] | None = None,
    segment_bytes: int = SEGMENT_BYTES,
) -> DataFrame | tuple[Any, ...]:
    """One RAW row per non-blank line with its 1-based line number, read in parallel by segments of whole lines
    (``ingestion.records``): a line over ``max_bytes`` is a ``too_large`` reject named by its line, skipped to its
    end unread — never held whole by the driver, a worker or the JVM (Spark's own text reader holds a line whole).
    The file is opened within ``roots`` each time (``ingestion.confine``): when it cannot be, one reject row."""
    try:
        segments = [(str(path), *segment) for segment in jsonl_segments(str(path), segment_bytes, roots)]
    except RejectedDocument as exc:
        return ("reject", str(path), None, str(path), None, None, None, None, {}, exc.reason, exc.detail)
    frame = spark.createDataFrame(segments, "path string, start long, end long, first long")

    def read(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        names = [field.split()[0] for field in RAW_SCHEMA.split(", ")]
        for batch in batches:
            for segment in batch.itertuples(index=False):
                rows = _segment_rows(segment, max_bytes, roots)
                for at in range(0, len(rows), _JSONL_BATCH_ROWS):
                    yield pd.DataFrame(rows[at:at + _JSONL_BATCH_ROWS], columns=names)

    return frame.repartition(max(1, len(segments))).mapInPandas(read, RAW_SCHEMA)


# Rows per Arrow batch a JSONL segment's reader hands to Spark: each line is at most max_document_bytes.
_JSONL_BATCH_ROWS = 64


def _segment_rows(segment: Any, max_bytes: int, roots: tuple[str, ...] | None) -> list[tuple[Any, ...]]:
    """The RAW rows of one segment of a JSONL file; one reject, named by the segment's first line, when the file can
    no longer be opened within ``roots`` (a folder on its path replaced by a link since the driver listed it)."""
    try:
        return [_jsonl_row(segment.path, line, max_bytes)
                for line in read_jsonl_segment(segment.path, segment.start, segment.end, segment.first, max_bytes,
                                               roots)
                if line.text is None or line.text.strip()]  # blank lines are no records
    except RejectedDocument as exc:
        return [("reject", f"{segment.path}:{segment.first}", None, segment.path, segment.first, None, None, None,
                 {}, exc.reason, f"lines from {segment.first} on: {exc.detail}")]


def _jsonl_row(path: str, line: JsonlLine, max_bytes: int) -> tuple[Any, ...]:
    """A JSONL line's RAW row: the line to parse, or the reject of a line over the limit."""
    if line.text is not None:
        return ("jsonl", path, None, path, line.number, line.text, None, None, {}, None, None)
    detail = (f"line {line.number}: {line.size} bytes, over the limit of {max_bytes} (ingestion.max_document_bytes); "
              "not read")
    return ("reject", f"{path}:{line.number}", None, path, line.number, None, None, None, {}, "too_large", detail)


def _root_cause(exc: Exception) -> str:
    """The innermost Java cause of a Spark error (its first line), else the error's own first line."""
    cause = getattr(exc, "java_exception", None)
    if cause is None:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    while cause.getCause() is not None:
        cause = cause.getCause()
    return str(cause.toString()).splitlines()[0]


def _table_rows(spark: SparkSession, source: InputSource) -> DataFrame | tuple[Any, ...]:
    """A Delta/Parquet table's rows, or one reject row for a table that cannot be read or lacks id/text."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    def reject(reason: str, detail: str) -> tuple[Any, ...]:
        return ("reject", str(source.path), None, None, None, None, None, None, {}, reason, detail)

    if source.kind == "parquet":
        # Footers checked in the driver first: a damaged file is then one clean reject, not an executor stack trace.
        import pyarrow.parquet as pq

        files = [source.path] if source.path.is_file() else sorted(source.path.rglob("*.parquet"))
        for file in files:
            try:
                pq.read_metadata(file)
            except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError, ArrowIOError an OSError
                return reject("unreadable", f"cannot read the parquet table: {file.name}: {str(exc)[:300]}")
    try:
        df = spark.read.format(source.kind).load(str(source.path))
    except (PySparkException, Py4JJavaError) as exc:
        return reject("unreadable", f"cannot read the {source.kind} table: {_root_cause(exc)[:300]}")
    columns = ", ".join(df.columns)
    if "text" not in df.columns or not isinstance(df.schema["text"].dataType, StringType):
        kind = df.schema["text"].dataType.simpleString() if "text" in df.columns else None
        shown = f"'text' of type {kind}" if kind else "no 'text' column"
        return reject("text_not_string", f"the table has {shown}, expected strings (columns: {columns})")
    if "id" not in df.columns:
        return reject("missing_id", f"the table has no 'id' column (columns: {columns})")
    key = F.col("id").cast("string")
    extra = [c for c in df.columns if c not in {"id", "text"}]
    metadata = (
        F.create_map(*[x for c in extra for x in (F.lit(c), F.col(c).cast("string"))])
        if extra
        else F.create_map().cast("map<string,string>")
    )
    title = F.coalesce(F.col("title").cast("string"), key) if "title" in df.columns else key
    return df.select(
        F.lit("table").alias("kind"),
        F.coalesce(F.concat(F.lit(f"{source.path}#"), key), F.lit(str(source.path))).alias("source"),
        title.alias("title"),
        F.lit(str(source.path)).alias("path"),
        F.lit(None).cast("long").alias("line"),
        F.lit(None).cast("string").alias("value"),
        key.alias("record_id"),
        F.col("text"),
        metadata.alias("metadata"),
        F.lit(None).cast("string").alias("reject_reason"),
        F.lit(None).cast("string").alias("reject_detail"),
    )


def reject_duplicate_ids(prepared: Any) -> Any:
    """The first record of an id within one input (lowest line) stands; every later one is a ``duplicate_id``
    (``DUPLICATE_IDS_SQL``, over Arrow rows or a DataFrame).

    A later JSONL record's source becomes ``<file>:<line>``, a later table row's ``<table>#<id> (copy N)`` (a table
    has no line numbers; N counts the copies in text-hash order), so that no two outcomes share a source.
    """
    return query(DUPLICATE_IDS_SQL, {"prepared": prepared})


_RANK = "OVER (PARTITION BY source, record_id ORDER BY rank_key NULLS FIRST)"
_LATER_DETAIL = """CASE WHEN line IS NOT NULL
    THEN concat('line ', CAST(line AS VARCHAR), ': id ''', record_id, ''' repeats line ',
                CAST(first_line AS VARCHAR), '; the first is kept')
    ELSE concat('id ''', record_id, ''' occurs more than once in the table; one row is kept') END"""
_LATER = {
    "doc_id": "NULL",
    "source": "CASE WHEN line IS NOT NULL THEN concat(input, ':', CAST(line AS VARCHAR)) "
              "ELSE concat(source, ' (copy ', CAST(_copy AS VARCHAR), ')') END",
    "reject_reason": "'duplicate_id'",
    "reject_detail": _LATER_DETAIL,
}
_COLUMNS = ", ".join(
    f"CASE WHEN _later THEN {_LATER[column]} ELSE {column} END AS {column}" if column in _LATER else column
    for column in PREPARED_COLUMNS
)
DUPLICATE_IDS_SQL = f"""WITH ranked AS (
  SELECT *, record_id IS NOT NULL AND row_number() {_RANK} > 1 AS _later, row_number() {_RANK} AS _copy,
         first_value(line) {_RANK} AS first_line
  FROM prepared
)
SELECT {_COLUMNS} FROM ranked"""


def first_documents_sql(only_added: bool) -> str:
    """The query of the ``documents`` rows of the table ``prepared``: each content under its first name (the least
    source) and not a reject; with ``only_added``, only the doc_ids of the table ``added``."""
    added = " AND doc_id IN (SELECT doc_id FROM added)" if only_added else ""
    return f"""SELECT {", ".join(DOCUMENTS.names)} FROM (
  SELECT *, row_number() OVER (PARTITION BY doc_id ORDER BY source) AS _rank FROM prepared WHERE reject_reason IS NULL
) AS ranked WHERE _rank = 1{added}"""


def prepare_in_driver(
    scan: Scan,
    stats: dict[str, tuple[int, int]],
    transform: Callable[[Iterable[pd.DataFrame]], Iterator[pd.DataFrame]],
    max_chars: int,
) -> pd.DataFrame | None:
    """The prepared rows of a scan of plain files holding at most ``max_chars`` bytes (``ingestion.driver_max_chars``;
    a character is at least a byte), made in the driver by
    the workers' own transform; None for anything else (JSONL, tables, more text), which Spark's workers read.

    A book or a few: a Spark job would cost more than the reading (its Python worker's start, ~4 s, and a Delta write
    job, ~2 s), and the texts are about to be held in the driver's memory anyway by the chunks stage's own small path.
    """
    if any(source.kind != "files" for source in scan.sources):
        return None
    files = [path for source in scan.sources for path in source.files]
    if sum(stats.get(str(path), (0, 0))[0] for path in files) > max_chars:
        return None
    raw = [_file_row(f) for f in files] + [_reject_row(r) for r in scan.rejects]
    names = [field.split()[0] for field in RAW_SCHEMA.split(", ")]
    frames = list(transform([pd.DataFrame(raw, columns=names)]))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=PREPARED_COLUMNS)


def _recorded(state: dict[str, Any], stats: dict[str, tuple[int, int]]) -> dict[str, str]:
    """path → doc_id of the files a run's ``_STATE`` lists with the size and modification time they have now."""
    known = {}
    for path, entry in (state.get("files") or {}).items():
        if isinstance(entry, list) and len(entry) == 3 and stats.get(path) == (entry[0], entry[1]):
            known[path] = entry[2]
    return known


def file_stats(scan: Scan) -> dict[str, tuple[int, int]]:
    """Size and modification time (ns) of every plain file the scan lists, by path; a file gone since is left out."""
    stats = {}
    for source in scan.sources:
        if source.kind != "files":
            continue
        for path in source.files:
            try:
                info = path.stat()
            except OSError:
                continue
            stats[str(path)] = (info.st_size, info.st_mtime_ns)
    return stats


def without_files(scan: Scan, skip: set[str]) -> Scan:
    """The scan without the plain files named in ``skip``."""
    if not skip:
        return scan
    sources = [
        replace(source, files=tuple(f for f in source.files if str(f) not in skip))
        if source.kind == "files" else source
        for source in scan.sources
    ]
    return Scan(sources=sources, rejects=scan.rejects)


def _duplicate_texts(
    read_ok: Iterable[dict[str, Any]], described: dict[str, tuple[Any, ...]], stage: str
) -> list[dict[str, Any]]:
    """A ``duplicate_text`` reject for every record with an id (a JSONL line, a table row) whose text is a document
    kept under another name: the document is one, and the record's id would otherwise be found nowhere. (Files of
    the same text are one document under its first name, as the module doc says.)"""
    return [
        {"source": row["source"], "doc_id": row["doc_id"], "stage": stage, "reason": "duplicate_text",
         "detail": f"id {row['record_id']!r}: the same text as {described[row['doc_id']][0]}, kept once under that "
                   "name"}
        for row in read_ok
        if row.get("record_id") is not None and described[row["doc_id"]][0] != row["source"]
    ]


def _first_names(read_ok: dict[str, dict[str, Any]], known: dict[str, str]) -> dict[str, tuple[Any, ...]]:
    """doc_id → the description (``_descriptive``) of its first name: the same content under several names is one
    document, kept under the first source (sorted) among the inputs read now (``read_ok``, by source) and the files
    known unchanged (``known``: path → doc_id; a plain file's title is its name's stem, as ``read_raw`` gives it, and
    it has no metadata)."""
    described: dict[str, tuple[Any, ...]] = {}
    for source, doc_id in sorted([(r["source"], r["doc_id"]) for r in read_ok.values()] + list(known.items())):
        if doc_id not in described:
            row = read_ok.get(source)
            described[doc_id] = _descriptive(row) if row is not None else (source, Path(source).stem, ())
    return described


def _descriptive(row: Any) -> tuple[Any, ...]:
    """source, title and metadata of a documents row (a Spark Row, or a dict from Arrow), comparable."""
    metadata = row["metadata"] or {}
    return row["source"], row["title"], tuple(sorted(dict(metadata).items()))


class DocumentsStage(Stage):
    """Reads and normalises the corpus; writes ``documents`` and ``rejects``."""

    name = "documents"
    # A new version redoes the stage; what each version changed: docs/decisions/0002-stage-versions.md
    version = 4
    tables = (DOCUMENTS.name, REJECTS.name)

    @staticmethod
    def roots(ctx: RunContext) -> tuple[Path, ...] | None:
        """``ingestion.allowed_roots``, resolved; None = no confinement."""
        return resolve_roots(ctx.settings.ingestion.allowed_roots)

    def config(self, ctx: RunContext) -> dict[str, Any]:
        """Normalisation rules, the checks that decide rejects, and the allowed roots."""
        ing = ctx.settings.ingestion
        roots = self.roots(ctx)
        return {
            "language": ctx.domain.language,
            "check_language": ing.check_language,
            "detect_language": ctx.domain.detect_language,
            "language_detector": detector_key() if ctx.domain.detect_language else None,
            "max_line_chars": ing.max_line_chars,
            "max_document_bytes": ing.max_document_bytes,
            "allowed_roots": [str(r) for r in roots] if roots is not None else None,
        }

    def bytes_to_read(self, ctx: RunContext) -> int | None:
        """What this run's ``compute`` will read, foreseen before the run: the bytes of the input files that are new
        or changed since the last complete run (``_unchanged``'s rule without reading the table), or None when an
        input is no plain file (JSONL, a table: read by Spark's workers) or cannot be listed. A guess for planning
        the run (``ingestion.startup.SparkStartup.foresee``); ``compute`` decides for itself."""
        try:
            scan = scan_inputs(ctx.inputs, self.roots(ctx))
            if any(source.kind != "files" for source in scan.sources):
                return None
            markers = ctx.lakehouse.markers
            state = {} if ctx.force else (markers.read_state(self.name, markers.read(self.name)) or {})
        except Exception:  # noqa: BLE001 - only a guess: the stage's own run reports real problems
            return None
        stats = file_stats(scan)
        recorded = _recorded(state, stats)
        return sum(size for path, (size, _) in stats.items() if path not in recorded)

    def input_fingerprint(self, ctx: RunContext) -> str:
        """The listing of the input files and scan rejects (scanning also fails fast on a missing input)."""
        return listing_fingerprint(scan_inputs(ctx.inputs, self.roots(ctx)))

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Prepare every input; append new documents, delete vanished ones, update renamed ones; rewrite rejects.

        An incremental run does not read again the files the last complete run turned into documents when their size
        and modification time are as they were then (make's rule; the ``_STATE`` it left names them): a library grows
        by a few books at a time, and reading and hashing all of it again was most of this stage's time.
        """
        ing = ctx.settings.ingestion
        roots = self.roots(ctx)
        scan = scan_inputs(ctx.inputs, roots)
        language = ctx.domain.language
        check, max_line, max_bytes = ing.check_language, ing.max_line_chars, ing.max_document_bytes
        worker_roots = tuple(str(r) for r in roots) if roots is not None else None
        detect = ctx.domain.detect_language

        def transform(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
            return prepare_documents(batches, language=language, check_language=check, max_line_chars=max_line,
                                     max_bytes=max_bytes, roots=worker_roots, detect_language=detect)

        existing: dict[str, tuple[Any, ...]] = {}
        if incremental and ctx.lakehouse.exists("documents"):
            table = ctx.lakehouse.columns("documents", ["doc_id", *DESCRIPTIVE_COLUMNS])
            existing = {row["doc_id"]: _descriptive(row) for row in table.to_pylist()}
        stats = file_stats(scan)
        known = self._unchanged(ctx, stats, existing) if incremental else {}
        to_read = without_files(scan, set(known))
        engine, prepared = self._prepared(ctx, to_read, stats, transform, worker_roots)
        try:
            # The outcome of every input, without the texts.
            outcome_columns = ["source", "title", "metadata", "doc_id", "n_chars", "reject_reason", "reject_detail",
                               "record_id"]
            outcomes = query_rows(f"SELECT {', '.join(outcome_columns)} FROM prepared", {"prepared": prepared})
            reject_rows = [
                {"source": r["source"], "doc_id": r["doc_id"] or "", "stage": self.name, "reason": r["reject_reason"],
                 "detail": r["reject_detail"]} for r in outcomes if r["reject_reason"] is not None
            ]
            read_ok = {r["source"]: r for r in outcomes if r["reject_reason"] is None}
            described = _first_names(read_ok, known)
            reject_rows = sorted([*reject_rows, *_duplicate_texts(read_ok.values(), described, self.name)],
                                 key=lambda row: (row["source"], row["detail"] or ""))
            current = set(described)
            added, removed = sorted(current - set(existing)), sorted(set(existing) - current)
            updated = sorted(d for d in current & set(existing) if described[d] != existing[d])
            self._write_documents(ctx, engine, prepared, added if incremental else None, removed)
            if incremental:
                if updated:
                    self._update_descriptions(ctx, [(d, *described[d]) for d in updated])
            # A handful of rows, committed in-process (delta-rs): a Spark write job costs seconds on every run.
            ctx.lakehouse.write_arrow(
                pa.Table.from_pylist(reject_rows, schema=REJECTS.arrow_schema()), REJECTS.name, overwrite=True
            )
        finally:
            engine.release(prepared)
        # Every file that is (or repeats) a document, with its size and time: what the next run need not read.
        files = dict(known)
        files.update((source, row["doc_id"]) for source, row in read_ok.items() if source in stats)
        ctx.lakehouse.markers.write_state(self.name, run_id=ctx.run_id, state={
            "files": {path: [*stats[path], doc_id] for path, doc_id in sorted(files.items()) if path in stats},
        })
        for row in reject_rows:
            logger.warning("rejected %s: %s (%s)", row["source"], row["reason"], row["detail"])
        logger.info(
            "documents: %d in corpus, %d new, %d removed, %d renamed or re-described, %d rejected; %d unchanged files "
            "not read again",
            len(current), len(added), len(removed), len(updated), len(reject_rows), len(known),
        )
        return StageOutput(
            counts={
                "documents": len(current),
                "added": len(added),
                "removed": len(removed),
                "updated": len(updated),
                "rejects": len(reject_rows),
            },
            # Only the contents: a rename changes no chunk, mention or entity, so nothing downstream reruns.
            output_fingerprint=fingerprint(sorted(current)),
            details={"rejects": [{k: r[k] for k in ("source", "reason", "detail")} for r in reject_rows],
                     "unchanged_files": len(known)},
        )

    @staticmethod
    def _prepared(
        ctx: RunContext, to_read: Scan, stats: dict[str, tuple[int, int]],
        transform: Callable[[Iterable[pd.DataFrame]], Iterator[pd.DataFrame]], roots: tuple[str, ...] | None,
    ) -> tuple[Engine, Any]:
        """The engine picked for this run and the ``PREPARED`` rows of the inputs to read, cached by it: a few plain
        files read in the driver (``prepare_in_driver``), anything else by Spark's workers."""
        local = prepare_in_driver(to_read, stats, transform, ctx.settings.ingestion.driver_max_chars)
        engine = engine_for(ctx.lakehouse, local is not None)
        if local is not None:
            prepared = pa.Table.from_pandas(local[PREPARED_COLUMNS], schema=PREPARED.arrow_schema(),
                                            preserve_index=False)
        else:
            max_bytes = ctx.settings.ingestion.max_document_bytes
            prepared = map_batches(read_raw(ctx.spark, to_read, max_bytes, roots), transform, PREPARED)
        return engine, engine.cache(reject_duplicate_ids(prepared))

    @staticmethod
    def _write_documents(
        ctx: RunContext, engine: Engine, prepared: Any, added: list[str] | None, removed: list[str]
    ) -> None:
        """Commit the first name of each content read (``first_documents_sql``): every one, replacing the table
        (``added`` None), else those ``added``, the ``removed`` ones deleted."""
        if added is None:
            rows = query(first_documents_sql(False), {"prepared": prepared})
            engine.write(conform(rows, DOCUMENTS), DOCUMENTS.name, overwrite=True)
            return
        ctx.lakehouse.delete_docs(DOCUMENTS.name, removed)
        if added:
            tables = {"prepared": prepared, "added": pa.table({"doc_id": pa.array(added, pa.string())})}
            engine.write(conform(query(first_documents_sql(True), tables), DOCUMENTS), DOCUMENTS.name)

    def _unchanged(
        self, ctx: RunContext, stats: dict[str, tuple[int, int]], existing: dict[str, tuple[Any, ...]]
    ) -> dict[str, str]:
        """path → doc_id of the files the last complete run made documents of, whose size and modification time are
        as they were and whose document is still in the table."""
        state = ctx.lakehouse.markers.read_state(self.name, self.previous) or {}
        return {path: doc_id for path, doc_id in _recorded(state, stats).items() if doc_id in existing}

    @staticmethod
    def _update_descriptions(ctx: RunContext, described: list[tuple[Any, ...]]) -> None:
        """Set source, title and metadata of documents whose content is unchanged, in one Delta commit (MERGE).

        ``described``: (doc_id, source, title, metadata items) per document."""
        from delta.tables import DeltaTable

        rows = ctx.spark.createDataFrame(
            [(doc_id, source, title, dict(metadata)) for doc_id, source, title, metadata in described],
            ddl([column for column in DOCUMENTS.columns if column[0] in ("doc_id", *DESCRIPTIVE_COLUMNS)]),
        )
        target = DeltaTable.forPath(ctx.spark, ctx.lakehouse.path("documents"))
        (
            target.alias("t")
            .merge(rows.select("doc_id", *DESCRIPTIVE_COLUMNS).alias("s"), "t.doc_id = s.doc_id")
            .whenMatchedUpdate(set={c: f"s.{c}" for c in DESCRIPTIVE_COLUMNS})
            .execute()
        )
