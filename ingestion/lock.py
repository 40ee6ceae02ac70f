"""``LakehouseLock``: one run at a time writes a lakehouse (``<root>/_lock.json``).

Two runs on one lakehouse corrupt each other: Delta refuses one's commit, or one reads tables the other has just
deleted and publishes an empty graph. A run therefore owns the lakehouse it writes. The lock file names the holder
(run id, tool, pid, host, start time, and the process's start time so that a reused pid is not mistaken for the
holder) and is created atomically: the content is written to a private temp file which is then hard-linked to
``_lock.json`` — ``link`` fails when the name exists, like ``O_CREAT|O_EXCL``, and a reader never sees half a file.

A lock of this host whose process is gone is stale (the run was killed): it is taken over with a warning naming the
old holder. A lock held by a live process, or by another host (whose processes we cannot see), makes the run wait up
to ``wait_seconds`` and then fail with ``LakehouseBusyError`` naming the holder. Every write is one of the
lakehouse's conditional writes, whatever the storage: the create is exclusive (a folder: the ``link`` above; S3:
``If-None-Match: *``; HDFS: a rename without overwrite), so exactly one run's create succeeds; a stale lock is
replaced only if it is still the version read (S3: ``If-Match`` on its ETag; a folder: moved aside, compared, and put
back if another run got there first), so two runs cannot both take it over; and a run releases only its own lock.

No run makes ``_lock.json`` anything but a regular file, so a symbolic link (dangling or not), a folder or a FIFO in
its place is no lock: it is never read or written through (the link's target stays untouched) and the run fails at
once naming it, rather than guessing whether a run still writes the lakehouse. Every wait, even for a lock that keeps
changing under us, ends at ``wait_seconds``.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import stat
import time
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from pydantic import BaseModel, ValidationError

from graph.errors import StorageError
from graph.lakehouse import Lakehouse
from graph.lakehouse.backend import content_tag
from ingestion.errors import IngestionError, LakehouseError

logger = logging.getLogger(__name__)

LOCK_FILE = "_lock.json"
POLL_SECONDS = 0.5
PROGRESS_EVERY_S = 10.0
# Attempts of one acquire that may find the lock gone (released, or a stale one moved aside) and retry at once: past
# them the run polls like any waiter and stops at its deadline, so nothing can make it spin.
QUICK_RETRIES = 3
# Open flags of the lock's read: never through a link (not on Windows, which lacks it: ``_lstat_regular`` checks first),
# and never blocking on a FIFO.
_NO_FOLLOW = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


class LockHolder(BaseModel):
    """The content of ``_lock.json``: who writes the lakehouse, since when."""

    run_id: str
    tool: str
    pid: int
    host: str
    started_at: str
    process_start: int | None = None  # /proc/<pid>/stat start time (clock ticks after boot); None if unknown

    def describe(self) -> str:
        """``run R (tool T, pid P on host H since S)`` for messages."""
        return f"run {self.run_id} (tool {self.tool}, pid {self.pid} on host {self.host} since {self.started_at})"


class LakehouseBusyError(IngestionError):
    """Raised when another run holds the lakehouse's lock (after waiting ``wait_seconds`` for it); names the holder."""

    def __init__(self, message: str, *, path: str, holder: LockHolder | None) -> None:
        super().__init__(message, path=path)
        self.holder = holder


def process_start(pid: int) -> int | None:
    """When the process ``pid`` started (clock ticks after boot, from ``/proc``); None if it is gone or unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'
    fields = stat.rsplit(")", 1)[-1].split()
    try:
        return int(fields[19])  # field 22 of stat(5); fields[0] is field 3
    except (IndexError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def read_holder(root: Lakehouse) -> LockHolder | None:
    """The holder named by ``<root>/_lock.json``, or None when the lakehouse is not locked.

    Raises:
        LakehouseError: the lock file exists but cannot be read or is not a lock (remove it if no run is writing).
    """
    found = _read_tagged(root)
    return None if found is None else found[0]


def _read_tagged(storage: Lakehouse) -> tuple[LockHolder, str] | None:
    """The holder and the lock file's tag (S3: its ETag, for a conditional take-over or release)."""
    path = storage.uri(LOCK_FILE)
    try:
        found = _read_local(storage.path(LOCK_FILE)) if storage.is_local else storage.read_tagged(LOCK_FILE)
        if found is None:
            return None
        return LockHolder.model_validate(json.loads(found[0])), found[1]
    except (OSError, ValueError, ValidationError, StorageError) as exc:
        raise LakehouseError(
            f"the lock file {path} is unreadable ({type(exc).__name__}); remove it if no run is writing the lakehouse",
            path=str(path),
        ) from exc


def _read_local(path: Path) -> tuple[str, str] | None:
    """The local lock file's text (and an empty tag), or None when there is none; never through a symbolic link.

    Raises:
        LakehouseError: the name is a symbolic link or not a regular file (naming it and what to do).
        OSError: it cannot be read.
    """
    _lstat_regular(path)
    try:
        fd = os.open(path, _NO_FOLLOW)
    except FileNotFoundError:
        return None
    except OSError:
        _lstat_regular(path)  # replaced by a link since the check: name that, not the open's ELOOP
        raise
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):  # replaced by a folder or a FIFO since the check
            raise _not_a_lock(path, "is not a regular file")
        data = file.read()
        return data.decode("utf-8"), content_tag(data)


def _lstat_regular(path: Path) -> None:
    """Fail naming ``path`` when it exists as anything but a regular file (the link itself, not its target)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        raise _not_a_lock(path, f"is a symbolic link (to {target}; removing the link leaves its target alone)")
    if not stat.S_ISREG(mode):
        raise _not_a_lock(path, "is not a regular file")


def _not_a_lock(path: Path, what: str) -> LakehouseError:
    return LakehouseError(
        f"the lock file {path} {what}: no run makes one, so it is neither followed nor replaced; remove {path} if "
        "no run is writing the lakehouse",
        path=str(path),
    )


def check_confined(storage: Lakehouse) -> None:
    """Fail when a write to ``storage`` could follow a symbolic link out of it (``Lakehouse.check_confined``).
    The lock file is the lock's own: it is never followed, and a link in its place is named by the lock itself.

    Raises:
        LakehouseError: naming the link (never its target).
    """
    try:
        storage.check_confined(unchecked=(LOCK_FILE,))
    except StorageError as exc:
        raise LakehouseError(str(exc), path=exc.path) from exc


def is_stale(holder: LockHolder, host: str | None = None) -> bool:
    """Whether the holder's process is gone: same host and (no such pid, or the pid now belongs to a process
    started at another time). A lock of another host is never judged stale here: its processes are not visible."""
    if holder.host != (host or socket.gethostname()):
        return False
    if not _alive(holder.pid):
        return True
    started = process_start(holder.pid)
    return holder.process_start is not None and started is not None and started != holder.process_start


class LakehouseLock:
    """The exclusive lock of one lakehouse for one run; a context manager that releases it even on failure."""

    def __init__(self, root: Lakehouse, *, run_id: str, tool: str, wait_seconds: float = 0.0) -> None:
        self.storage = root
        self.root = root.location  # names it in messages and errors
        self.path: Path | str = self.storage.path(LOCK_FILE) if self.storage.is_local else self.storage.uri(LOCK_FILE)
        self._tag = ""  # S3: the ETag of our lock object, so release deletes only ours
        self.wait_seconds = max(0.0, float(wait_seconds))
        self.holder = LockHolder(
            run_id=run_id,
            tool=tool,
            pid=os.getpid(),
            host=socket.gethostname(),
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            process_start=process_start(os.getpid()),
        )
        self.held = False

    def __enter__(self) -> LakehouseLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.release()

    def acquire(self) -> None:
        """Take the lock, taking over a stale one, waiting up to ``wait_seconds`` for a live holder.

        Raises:
            LakehouseBusyError: another run still holds it after the wait.
            LakehouseError: the root cannot be created, a link under it leads outside it, or the lock file is
                unreadable.
        """
        try:
            self.storage.check_writable()
        except StorageError as exc:
            raise LakehouseError(str(exc), path=str(self.root)) from exc
        check_confined(self.storage)
        started = time.monotonic()
        deadline = started + self.wait_seconds
        next_log = started
        quick = QUICK_RETRIES
        while True:
            if self._try_create():
                self.held = True
                logger.info("lakehouse %s locked by %s", self.root, self.holder.describe())
                return
            found = _read_tagged(self.storage)
            holder = None if found is None else found[0]
            if found is not None and is_stale(found[0], self.holder.host):
                if self._take_over_stale(*found):
                    self.held = True
                    return
                holder = None
            if holder is None and quick > 0:  # released, or moved aside, since our attempt: try again at once
                quick -= 1
                continue
            now = time.monotonic()
            if now >= deadline:
                raise self._busy(holder, waited=now - started)
            if holder is not None and now >= next_log:  # at once, then every PROGRESS_EVERY_S: say what it waits for
                next_log = now + PROGRESS_EVERY_S
                logger.info(
                    "lakehouse %s is being written by %s; waiting up to %.0f s more",
                    self.root, holder.describe(), deadline - now,
                )
            time.sleep(min(POLL_SECONDS, max(0.0, deadline - now)))

    def release(self) -> None:
        """Remove the lock file if it is still ours (a run judged dead and taken over must not remove the new one)."""
        if not self.held:
            return
        self.held = False
        try:
            found = _read_tagged(self.storage)
        except LakehouseError as exc:
            logger.warning("not releasing %s: %s", self.path, exc)
            return
        current, tag = found if found is not None else (None, "")
        if current is None or (current.run_id, current.pid, current.host) != (
            self.holder.run_id, self.holder.pid, self.holder.host,
        ):
            logger.warning("lock %s is no longer ours (now: %s); left in place", self.path,
                           current.describe() if current else "none")
            return
        if not self.storage.delete(LOCK_FILE, tag=tag or None):  # S3: only the version we read, still ours
            logger.warning("lock %s changed while it was being released; left in place", self.path)
            return
        logger.info("lakehouse %s unlocked (run %s)", self.root, self.holder.run_id)

    def _try_create(self) -> bool:
        """Create the lock file with our holder in one step; False when it exists."""
        try:
            tag = self.storage.create_text(LOCK_FILE, data=self.holder.model_dump_json(indent=2))
        except StorageError as exc:
            raise LakehouseError(str(exc), path=str(self.path)) from exc
        except OSError as exc:  # a folder that refuses the temp file or the link: name the lock, not the temp
            raise LakehouseError(f"cannot create the lock file {self.path}: {exc}", path=str(self.path)) from exc
        self._tag = tag or ""
        return tag is not None

    def _take_over_stale(self, stale: LockHolder, tag: str) -> bool:
        """Take over the stale lock: True when it is ours, False when another run took it over (or released it)
        since it was read."""
        return self._take_over_object(stale, tag)

    def _take_over_object(self, stale: LockHolder, tag: str) -> bool:
        """Replace the stale lock object with ours, only if it is still the one read (``If-Match`` on its ETag)."""
        try:
            new_tag = self.storage.replace_text(LOCK_FILE, data=self.holder.model_dump_json(indent=2), tag=tag)
        except StorageError as exc:
            raise LakehouseError(str(exc), path=str(self.path)) from exc
        if new_tag is None:
            return False  # another run took it over (or it was released) since we read it: look again
        self._tag = new_tag
        logger.warning(
            "lakehouse %s: took over the stale lock of %s: that process is gone", self.root, stale.describe()
        )
        logger.info("lakehouse %s locked by %s", self.root, self.holder.describe())
        return True

    def _busy(self, holder: LockHolder | None, *, waited: float) -> LakehouseBusyError:
        after = f" after waiting {waited:.0f} s" if self.wait_seconds else ""
        hint = "wait longer with --wait SECONDS" if self.wait_seconds else "wait with --wait SECONDS"
        if holder is not None and holder.host != self.holder.host:
            hint += f"; if host {holder.host} is gone, remove {self.path}"
        # None: each look found it just released or taken over, by runs quicker than this one
        writer = holder.describe() if holder is not None else f"other runs (its lock {self.path} kept changing)"
        return LakehouseBusyError(
            f"lakehouse {self.root} is being written by {writer}{after}; {hint}",
            path=str(self.root),
            holder=holder,
        )
