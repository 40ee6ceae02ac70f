"""Finding the inputs of a run: every file a scan reaches is either listed for reading or rejected with a reason.

The scan walks folders itself (not ``Path.rglob``, which silently skips symlink loops and never enters linked
folders) and resolves every symlink it meets before anything is opened. With allowed roots configured
(``ingestion.allowed_roots``; API runs always have them), a file or folder that resolves outside every root is
rejected as ``outside_allowed_roots`` and never read; a link that leads back into its own folder chain is a
``symlink_loop``; a dangling link or a special file (FIFO, device, socket) named like a document is ``unreadable``.
Folders are listed, and files tried, through descriptors opened within the roots (``ingestion.confine``), and the
workers open each file the same way again when they read it (``ingestion.records.read_file``): a folder replaced by
a link after its check is neither listed nor read through.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ingestion.confine import open_confined
from ingestion.errors import InputNotFoundError
from ingestion.markers import fingerprint
from ingestion.text import RejectedDocument

logger = logging.getLogger(__name__)

TEXT_SUFFIXES = (".txt", ".md")


@dataclass(frozen=True)
class InputSource:
    """One input to read: ``kind`` is ``files``, ``jsonl``, ``delta`` or ``parquet``; ``files`` for ``files``."""

    kind: str
    path: Path
    files: tuple[Path, ...] = ()


@dataclass(frozen=True)
class ScanReject:
    """A path the scan refused before anything was read: it becomes a ``rejects`` row."""

    source: str
    reason: str
    detail: str


@dataclass
class Scan:
    """What a scan found: the inputs to read and the paths it rejected."""

    sources: list[InputSource] = field(default_factory=list)
    rejects: list[ScanReject] = field(default_factory=list)


def resolve_roots(roots: Iterable[Path] | None) -> tuple[Path, ...] | None:
    """The allowed roots as absolute, symlink-free paths; None means no confinement."""
    if roots is None:
        return None
    return tuple(Path(root).expanduser().resolve() for root in roots)


def inside(path: Path, roots: Sequence[Path] | None) -> bool:
    """Whether a resolved ``path`` lies in one of ``roots`` (always true without roots)."""
    return roots is None or any(path == root or path.is_relative_to(root) for root in roots)


def _outside(source: Path) -> ScanReject:
    # Neither the target nor the roots are named: the rejects reach API clients, who must not learn paths outside.
    return ScanReject(
        str(source), "outside_allowed_roots", "resolves outside the allowed roots (ingestion.allowed_roots); not read"
    )


def _resolve(path: Path) -> tuple[Path | None, ScanReject | None]:
    """The symlink-free path, or the reject for a loop."""
    try:
        return path.resolve(strict=False), None
    except (RuntimeError, OSError) as exc:  # Python 3.11 raises RuntimeError for a loop, later versions OSError
        if isinstance(exc, OSError) and exc.errno != errno.ELOOP:
            return None, ScanReject(str(path), "unreadable", f"cannot resolve: {exc.strerror}")
        return None, ScanReject(str(path), "symlink_loop", "a symbolic link loop; it leads to no file")


def scan_inputs(inputs: list[str], roots: Sequence[Path] | None = None) -> Scan:
    """Expand the request's inputs within ``roots`` (resolved; None = anywhere).

    Raises:
        InputNotFoundError: no inputs, an input that does not exist, or a folder holding neither documents nor
            rejected paths.
    """
    if not inputs:
        raise InputNotFoundError(
            "the request names no inputs; give files, folders, JSONL files or tables", stage="documents"
        )
    scan = Scan()
    for raw in inputs:
        named = Path(raw).expanduser().absolute()
        path, loop = _resolve(named)
        if path is None:
            assert loop is not None
            scan.rejects.append(loop)
            continue
        if not path.exists():
            raise InputNotFoundError(f"input {raw!r} does not exist", stage="documents", path=raw)
        if not inside(path, roots):
            scan.rejects.append(_outside(named))
            continue
        if path.is_dir() and (path / "_delta_log").is_dir():
            _add_table(scan, InputSource("delta", path), roots)
        elif path.suffix == ".parquet" or (path.is_dir() and any(path.glob("*.parquet"))):
            _add_table(scan, InputSource("parquet", path), roots)
        elif path.suffix == ".jsonl":
            problem = _not_a_readable_file(path, roots)
            if problem is not None:
                scan.rejects.append(ScanReject(str(path), *problem))
            elif path.stat().st_size == 0:  # Spark reads no line of it: without this row it would vanish
                scan.rejects.append(ScanReject(str(path), "empty", "a JSONL file of 0 bytes"))
            else:
                scan.sources.append(InputSource("jsonl", path))
        elif path.is_dir():
            files: list[Path] = []
            before = len(scan.rejects)
            _walk(path, roots, (path,), files, scan.rejects)
            if not files and len(scan.rejects) == before:
                raise InputNotFoundError(_empty_folder_message(raw, path), stage="documents", path=raw)
            if files:
                scan.sources.append(InputSource("files", path, tuple(files)))
        else:
            problem = _not_a_readable_file(path, roots)
            if problem is not None:
                scan.rejects.append(ScanReject(str(path), *problem))
            else:
                scan.sources.append(InputSource("files", path, (path,)))
    return _with_printable_names(scan)


def printable(name: str | Path) -> str:
    r"""A path as text that can be stored and shown: the bytes of a name that is not valid UTF-8 (which Python holds
    as lone surrogates, ``caf\udce9.txt``) written as ``\xNN`` (``caf\xe9.txt``); any other path as it is."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _has_printable_name(path: Path) -> bool:
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _bad_name(path: Path) -> ScanReject:
    return ScanReject(
        printable(path), "undecodable",
        "the file name is not valid UTF-8 (its undecodable bytes are shown as \\xNN); not read — rename the file "
        "to ingest it",
    )


def _with_printable_names(scan: Scan) -> Scan:
    """The scan with every path whose name is not valid UTF-8 rejected by its printable name: no table can store
    such a name, and the rest of the corpus is ingested all the same."""
    sources: list[InputSource] = []
    rejects = [ScanReject(printable(r.source), r.reason, printable(r.detail)) for r in scan.rejects]
    for source in scan.sources:
        if source.kind != "files":
            if _has_printable_name(source.path):
                sources.append(source)
            else:
                rejects.append(_bad_name(source.path))
            continue
        kept = tuple(path for path in source.files if _has_printable_name(path))
        rejects.extend(_bad_name(path) for path in source.files if not _has_printable_name(path))
        if kept:
            sources.append(replace(source, files=kept))
    return Scan(sources=sources, rejects=rejects)


def _empty_folder_message(raw: str, folder: Path) -> str:
    """Why a folder is no input: it holds no document; JSONL files in it are named, since a folder's JSONL files are
    not read (a folder is a collection of documents; a JSONL file is a collection of records, named on its own)."""
    message = f"folder {raw!r} holds no {'/'.join(TEXT_SUFFIXES)} documents"
    jsonl = sorted(folder.rglob("*.jsonl"))
    if jsonl:
        shown = " ".join(str(path) for path in jsonl[:3]) + (" …" if len(jsonl) > 3 else "")
        message += f"; its {len(jsonl)} JSONL file(s) are inputs only when named one by one: {shown}"
    return message


def _not_a_readable_file(path: Path, roots: Sequence[Path] | None) -> tuple[str, str] | None:
    """``(reason, detail)`` when ``path`` is not a regular file inside ``roots`` that can be opened, else None.

    Only opened (through the folders the roots allow, ``ingestion.confine``) and closed: the content is read later.
    """
    try:
        os.close(open_confined(str(path), _texts(roots)))
    except RejectedDocument as exc:
        return exc.reason, _own_detail(path, exc)
    return None


def _own_detail(path: Path, exc: RejectedDocument) -> str:
    """The detail without the leading path: the reject's source names it already."""
    return exc.detail.removeprefix(f"{path}: ")


def _texts(roots: Sequence[Path] | None) -> tuple[str, ...] | None:
    return tuple(str(root) for root in roots) if roots is not None else None


def _entries(folder: Path, roots: Sequence[Path] | None) -> list[tuple[str, bool, bool]]:
    """``(name, is a link, is a folder)`` of each entry of ``folder``, in name order, listed through a descriptor
    opened within ``roots``: a folder swapped for a link after the scan checked it is not listed.

    Raises:
        RejectedDocument: the folder cannot be opened (or left the roots).
    """
    fd = open_confined(str(folder), _texts(roots), folder=True)
    try:
        with os.scandir(fd) as listing:
            entries = [(e.name, e.is_symlink(), e.is_dir(follow_symlinks=False)) for e in listing]
    except OSError as exc:
        raise RejectedDocument("unreadable", f"cannot list the folder: {exc.strerror}", path=str(folder)) from None
    finally:
        os.close(fd)
    return sorted(entries)


def _is_document(name: str) -> bool:
    return Path(name).suffix.lower() in TEXT_SUFFIXES


def _walk(
    folder: Path, roots: Sequence[Path] | None, chain: tuple[Path, ...], files: list[Path], rejects: list[ScanReject]
) -> None:
    """Depth first, in name order. ``chain`` holds the resolved folders down to ``folder``'s own (its last): a link
    back into it is a loop."""
    try:
        entries = _entries(folder, roots)
    except RejectedDocument as exc:
        rejects.append(ScanReject(str(folder), exc.reason, _own_detail(folder, exc)))
        return
    for name, is_link, is_dir in entries:
        path = folder / name
        if not is_link:
            if is_dir:
                _walk(path, roots, (*chain, chain[-1] / name), files, rejects)
            elif _is_document(name):
                _add_file(path, roots, files, rejects)
            continue
        target, loop = _resolve(path)
        if target is None:
            assert loop is not None
            rejects.append(loop)
            continue
        if not inside(target, roots):
            if not target.exists() or target.is_dir() or _is_document(name):
                rejects.append(_outside(path))
            continue
        if not target.exists():
            if _is_document(name):
                rejects.append(ScanReject(str(path), "unreadable", f"a dangling symbolic link to {target}; not read"))
            continue
        if target.is_dir():
            if target in chain:
                rejects.append(ScanReject(str(path), "symlink_loop", f"links back to its own parent folder {target}"))
            else:
                _walk(path, roots, (*chain, target), files, rejects)
        elif _is_document(name):
            _add_file(path, roots, files, rejects)


def _add_file(path: Path, roots: Sequence[Path] | None, files: list[Path], rejects: list[ScanReject]) -> None:
    problem = _not_a_readable_file(path, roots)
    if problem is None:
        files.append(path)
    else:
        rejects.append(ScanReject(str(path), *problem))


def _add_table(scan: Scan, source: InputSource, roots: Sequence[Path] | None) -> None:
    """A Delta/Parquet input, unless one of its files is a link leading out of the roots (Spark would read it)."""
    if roots is not None and source.path.is_dir():
        for folder, dirs, names in os.walk(source.path):
            for name in [*dirs, *names]:
                path = Path(folder) / name
                if path.is_symlink():
                    target, _ = _resolve(path)
                    if target is None or not inside(target, roots):
                        scan.rejects.append(
                            ScanReject(str(source.path), "outside_allowed_roots",
                                       f"holds {path}, a link that resolves outside the allowed roots; not read")
                        )
                        return
    scan.sources.append(source)


def listing_fingerprint(scan: Scan) -> str:
    """Cheap change detection (like make): every input file's path, size and mtime; tables' versions; rejects."""
    entries: list[Any] = []
    for source in scan.sources:
        if source.kind == "files":
            for path in source.files:
                try:
                    info = path.stat()
                except OSError:  # gone since the scan: the read will reject it; the listing just records that
                    entries.append((str(path), None, None))
                    continue
                entries.append((str(path), info.st_size, info.st_mtime_ns))
        elif source.kind == "delta":
            log = sorted((source.path / "_delta_log").glob("*.json"))
            entries.append((str(source.path), log[-1].name if log else ""))
        else:
            files = [source.path] if source.path.is_file() else sorted(source.path.rglob("*.parquet"))
            entries.extend((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    entries.extend((r.source, r.reason) for r in scan.rejects)
    return fingerprint(entries)
