"""Processes that end with the process that started them: the NER pool's workers (``ingestion.ner_pool``).

A driver killed with SIGKILL runs no cleanup, so it cannot end its children: each child must notice by itself. A
spawned pool worker never does on its own: it waits on its call queue, whose pipe it holds both ends of, so no EOF
ever comes; and multiprocessing's resource tracker, whose pipe every worker also holds open, lives as long as they
do (measured: two NER workers of ~250 MB each and the tracker still running many minutes after the driver's
SIGKILL). So each worker, first thing when it starts (``die_with_parent``):

- on Linux asks the kernel for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``): at once, even while its NER holds
  the GIL. The kernel sends it when the *thread* that started the child ends, not the process; a pool's processes
  may be started by a short-lived thread (a batch's), so only children started by the main thread ask for it;
- everywhere, watches its parent in a daemon thread: multiprocessing's parent sentinel (a pipe whose other end only
  the parent holds; a process handle on Windows) and the parent's pid (re-parenting changes it on POSIX).

Once the workers are gone the tracker reads EOF on its pipe and exits by itself.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from multiprocessing.context import SpawnContext, SpawnProcess

logger = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCH_SECONDS = 0.5
# The exit status of a worker that ended because its parent had (nobody is left to read it but the logs of ps).
ORPHANED_EXIT = 70


def die_with_parent(parent_pid: int, *, kernel_signal: bool) -> None:
    """End this process (``os._exit``) when ``parent_pid``, its parent, ends; ``kernel_signal`` also asks Linux for
    SIGKILL then (only when the parent's main thread started this process: see the module's docstring)."""
    if kernel_signal:
        _ask_the_kernel()
    if os.getppid() != parent_pid:  # the parent died before the request: it will never fire for it
        os._exit(ORPHANED_EXIT)
    threading.Thread(target=_watch, args=(parent_pid,), name="parent-watch", daemon=True).start()


def _ask_the_kernel() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        answer = ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError) as exc:  # a libc without prctl: the watch alone
        logger.debug("no parent-death signal (%s): the parent is watched by a thread only", exc)
        return
    if answer != 0:
        logger.debug("prctl(PR_SET_PDEATHSIG) failed (errno %d): the parent is watched by a thread only",
                     ctypes.get_errno())


def _watch(parent_pid: int) -> None:
    parent = multiprocessing.parent_process()  # None when not started by multiprocessing: the pid alone then
    while os.getppid() == parent_pid and (parent is None or parent.is_alive()):
        time.sleep(WATCH_SECONDS)
    os._exit(ORPHANED_EXIT)


class _Process(SpawnProcess):
    """A spawned process that calls ``die_with_parent`` before its target."""

    def start(self) -> None:
        """Start it, noting (in the parent, for the child) who its parent is and whether its main thread starts it."""
        self._parent_watch = (os.getpid(), threading.current_thread() is threading.main_thread())
        super().start()

    def run(self) -> None:
        """In the child: watch the parent, then run the target."""
        parent_pid, kernel_signal = self._parent_watch
        die_with_parent(parent_pid, kernel_signal=kernel_signal)
        super().run()


class DyingWithParentContext(SpawnContext):
    """multiprocessing's spawn context whose processes end when their parent does (for ``ProcessPoolExecutor``)."""

    Process = _Process
