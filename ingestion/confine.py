"""Opening an input file or folder without letting a symbolic link lead the open out of the allowed roots.

Resolving a path, checking it against the roots and then opening the resolved path leaves a window: a folder on the
path can be replaced by a link to another folder in between, and the open follows that link. So the resolved path
is opened one component at a time from ``/``, each relative to the folder opened before it (``openat``) and with
``O_NOFOLLOW``: every folder on the way and the file itself are the ones the check saw, or the open fails. What was
opened is then read or listed through its descriptor, never through its name again.

Standard library only: the documents stage's workers call it through ``ingestion.records.read_file``.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from collections.abc import Sequence

from ingestion.text import RejectedDocument

logger = logging.getLogger(__name__)

# O_PATH (Linux) opens a folder on the way without needing read permission on it, as a path lookup does.
_PASS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO must not hang the open
_LIST_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# What openat with O_NOFOLLOW answers when a component has become a link (or a folder something else) meanwhile.
_CHANGED = (errno.ELOOP, errno.ENOTDIR)


def within(real: str, roots: Sequence[str] | None) -> bool:
    """Whether the resolved path ``real`` is one of ``roots`` (resolved) or lies under one; always true without."""
    return roots is None or any(real == root or real.startswith(root.rstrip("/") + "/") for root in roots)


def file_kind(mode: int) -> str:
    """What a non-regular file is, for messages: ``FIFO``, ``socket``, ``folder``…"""
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISDIR, "folder")):
        if test(mode):
            return name
    return "special file"


def open_confined(path: str, roots: Sequence[str] | None, *, folder: bool = False) -> int:
    """A descriptor of the regular file (or, with ``folder``, the folder) ``path`` names, opened only if it resolves
    inside ``roots`` (resolved; None = anywhere) and through no link that appeared after the check.

    The caller owns the descriptor. A file is opened non-blocking and only when it is a regular file.

    Raises:
        RejectedDocument: ``symlink_loop``, ``outside_allowed_roots`` (the detail names only ``path``: rejects reach
            API clients, who must not learn paths outside), or ``unreadable`` (gone, permission denied, not a regular
            file, or its path changed while it was being opened); the detail starts with ``path``.
    """
    try:
        real = os.path.realpath(path, strict=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RejectedDocument("symlink_loop", f"{path}: a symbolic link loop", path=path) from None
        raise RejectedDocument("unreadable", f"{path}: {exc.strerror}", path=path) from None
    if not within(real, roots):
        raise RejectedDocument(
            "outside_allowed_roots", f"{path} resolves outside the allowed roots; not read", path=path
        )
    try:
        parent = _open_folders(os.path.dirname(real))
    except OSError as exc:
        raise _refusal(path, exc) from None
    try:
        return _open_last(path, parent, os.path.basename(real), folder)
    finally:
        os.close(parent)


def _open_folders(real: str) -> int:
    """The resolved folder ``real``, opened component by component from ``/`` without following any link."""
    fd = os.open("/", _PASS)
    try:
        for name in real.split("/"):
            if name:
                inner = os.open(name, _PASS, dir_fd=fd)
                os.close(fd)
                fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_last(path: str, parent: int, name: str, folder: bool) -> int:
    """``name`` in the opened folder ``parent``: a folder to list, or a regular file to read (checked before the open,
    so that no device is ever opened, and again on the descriptor)."""
    if not name:  # the resolved path is "/" itself
        name = "."
    try:
        if folder:
            return os.open(name, _LIST_FOLDER, dir_fd=parent)
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
        if stat.S_ISREG(mode):
            fd = os.open(name, _READ_FILE, dir_fd=parent)
            mode = os.fstat(fd).st_mode
            if stat.S_ISREG(mode):
                return fd
            os.close(fd)
    except OSError as exc:
        raise _refusal(path, exc) from None
    if stat.S_ISLNK(mode):  # a link where the check saw the file itself
        raise _refusal(path, OSError(errno.ELOOP, os.strerror(errno.ELOOP)))
    raise RejectedDocument("unreadable", f"{path}: not a regular file ({file_kind(mode)}); not read", path=path)


def _refusal(path: str, exc: OSError) -> RejectedDocument:
    if exc.errno in _CHANGED:
        logger.warning("%s changed while it was opened (a folder or the file replaced by a link); not read", path)
        return RejectedDocument(
            "unreadable", f"{path}: its path changed while it was opened (replaced by a link?); not read", path=path
        )
    return RejectedDocument("unreadable", f"{path}: cannot open: {exc.strerror}", path=path)
