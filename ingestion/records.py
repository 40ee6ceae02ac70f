"""Reading one input record inside a Spark worker: a document file by path, or one JSONL line.

Standard library only, so the pandas UDF of the documents stage can call these per row and the unit tests
directly. Every problem is a ``RejectedDocument`` with a reason from ``ingestion.text.REJECT_REASONS`` and a detail
that names the file or the line; nothing here lets an ``OSError`` escape to fail the Spark job.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

from ingestion.confine import open_confined
from ingestion.text import RejectedDocument

logger = logging.getLogger(__name__)

# JSONL fields that are the record itself; every other field becomes metadata.
_RECORD_FIELDS = frozenset({"id", "text"})


def read_file(path: str, *, roots: Sequence[str] | None, max_bytes: int) -> bytes:
    """The bytes of the document at ``path``, read only if it resolves inside ``roots`` (None = anywhere).

    The scan checked the same before the job started; the file is opened here through the folders the check saw
    (``ingestion.confine.open_confined``), so a folder or link swapped in meanwhile is not followed out of the roots.

    Raises:
        RejectedDocument: ``outside_allowed_roots``, ``symlink_loop``, ``unreadable`` (gone, permission denied,
            I/O error, not a regular file, its path changed while opened) or ``too_large`` (checked on the size
            before reading).
    """
    fd = open_confined(path, roots)
    try:
        with os.fdopen(fd, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise RejectedDocument("too_large", f"{size} bytes (limit {max_bytes})", path=path)
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise RejectedDocument("unreadable", f"{path}: cannot read: {exc.strerror}", path=path) from None
    if len(data) > max_bytes:  # it grew after the size check
        raise RejectedDocument("too_large", f"more than {max_bytes} bytes (limit {max_bytes})", path=path)
    return data


@dataclass(frozen=True)
class JsonRecord:
    """One JSONL line that is a usable record: its id, text, title and the other fields as metadata."""

    record_id: str
    text: str
    title: str
    metadata: dict[str, str] = field(default_factory=dict)


def parse_jsonl_line(line: str, number: int) -> JsonRecord:
    """Parse line ``number`` (1-based) of a JSONL input.

    ``id`` must be a non-blank string or an integer and ``text`` a string; ``title`` (a string) is the title, else
    the id. Every field but ``id`` and ``text`` is kept as metadata: strings as they are, other values as JSON,
    nulls dropped.

    Raises:
        RejectedDocument: ``malformed_json`` (not JSON, or not an object), ``missing_id``, ``text_not_string``;
            the detail starts with ``line <number>:``.
    """
    try:
        value = json.loads(line.lstrip("\ufeff"))
    except ValueError as exc:
        msg, col = getattr(exc, "msg", str(exc)), getattr(exc, "colno", None)
        where = f" at column {col}" if col is not None else ""
        raise RejectedDocument("malformed_json", f"line {number}: not valid JSON ({msg}{where})") from None
    if not isinstance(value, dict):
        raise RejectedDocument(
            "malformed_json", f"line {number}: {_json_type(value)} where an object with id and text is expected"
        )
    raw_id = value.get("id")
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or not str(raw_id).strip():
        shown = "no 'id' field" if "id" not in value else f"'id' is {json.dumps(raw_id)[:40]}"
        raise RejectedDocument("missing_id", f"line {number}: {shown}; expected a non-blank string or an integer")
    record_id = str(raw_id)
    text = value.get("text")
    if not isinstance(text, str):
        shown = "no 'text' field" if "text" not in value else f"'text' is {_json_type(text)}"
        raise RejectedDocument("text_not_string", f"line {number} (id {record_id!r}): {shown}; expected a string")
    title = value.get("title")
    metadata = {
        key: item if isinstance(item, str) else json.dumps(item, ensure_ascii=False, sort_keys=True)
        for key, item in value.items()
        if key not in _RECORD_FIELDS and item is not None
    }
    return JsonRecord(
        record_id=record_id,
        text=text,
        title=title if isinstance(title, str) and title.strip() else record_id,
        metadata=metadata,
    )


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "a string"


# JSONL files are read in bounded pieces: a line longer than the document limit is skipped to its end unread, so
# one huge record can neither fill the memory of the process reading it nor take the other records with it.
READ_CHUNK = 1 << 20
# A JSONL file is split into segments of whole lines of about this size, read in parallel by Spark's workers.
SEGMENT_BYTES = 64 << 20


@dataclass(frozen=True)
class JsonlLine:
    """One line of a JSONL file: its 1-based number and text, or ``size`` alone when it is longer than the limit."""

    number: int
    text: str | None
    size: int


def _lines(handle: BinaryIO, end: int, limit: int) -> Iterator[tuple[bytes | None, int]]:
    """The lines starting before byte ``end`` from the handle's position (a line's start): each as its bytes without
    the line break, or None past ``limit`` bytes, and its size. Reads ``READ_CHUNK`` bytes at a time and never holds
    more than ``limit`` bytes of one line: the rest of a longer one is only counted on the way to its end."""
    position = handle.tell()  # where the current line starts
    line: bytearray | None = bytearray()
    size = 0
    while chunk := handle.read(READ_CHUNK):
        start = 0
        while True:
            newline = chunk.find(b"\n", start)
            stop = len(chunk) if newline < 0 else newline
            size += stop - start
            if line is not None:
                line = line + chunk[start:stop] if size <= limit else None
            if newline < 0:
                break
            yield (bytes(line) if line is not None else None), size
            position += size + 1
            line, size, start = bytearray(), 0, newline + 1
            if position >= end:
                return
    if size:  # the last line, without a line break
        yield (bytes(line) if line is not None else None), size


def _open_confined_binary(path: str, roots: Sequence[str] | None) -> BinaryIO:
    """``path`` opened for reading within ``roots`` through the folders the check saw (``open_confined``).

    Raises:
        RejectedDocument: as ``open_confined``.
    """
    return os.fdopen(open_confined(path, roots), "rb")


def read_jsonl_segment(
    path: str, start: int, end: int, first_line: int, limit: int, roots: Sequence[str] | None = None
) -> Iterator[JsonlLine]:
    """The lines of ``path`` that start in bytes ``[start, end)`` (``start`` is a line's start), numbered from
    ``first_line``; a line over ``limit`` bytes has no text, only its size (``too_large``). A trailing ``\\r`` (CRLF
    line breaks) is dropped; bytes that are not UTF-8 become U+FFFD (the JSON parser then judges the line).

    Raises:
        RejectedDocument: the file cannot be opened within ``roots`` (None = anywhere), at the first line asked for.
    """
    with _open_confined_binary(path, roots) as handle:
        handle.seek(start)
        for number, (data, size) in enumerate(_lines(handle, end, limit), start=first_line):
            text = None if data is None else data.decode("utf-8", errors="replace").removesuffix("\r")
            yield JsonlLine(number, text, size)


def jsonl_segments(
    path: str, segment_bytes: int = SEGMENT_BYTES, roots: Sequence[str] | None = None
) -> list[tuple[int, int, int]]:
    """``(start, end, first line number)`` of segments of whole lines, of about ``segment_bytes`` each, covering the
    file: one pass that counts line breaks ``READ_CHUNK`` bytes at a time.

    Raises:
        RejectedDocument: the file cannot be opened within ``roots`` (None = anywhere).
    """
    segments: list[tuple[int, int, int]] = []
    start, first = 0, 1  # the open segment's first byte and line number
    lines = position = 0  # line breaks counted; the file offset of the chunk
    with _open_confined_binary(path, roots) as handle:
        while chunk := handle.read(READ_CHUNK):
            counted = 0
            while (want := start + segment_bytes - 1 - position) < len(chunk):
                cut = chunk.find(b"\n", max(counted, want))
                if cut < 0:
                    break
                lines += chunk.count(b"\n", counted, cut + 1)
                segments.append((start, position + cut + 1, first))
                start, first, counted = position + cut + 1, lines + 1, cut + 1
            lines += chunk.count(b"\n", counted)
            position += len(chunk)
    if position > start:
        segments.append((start, position, first))
    return segments
