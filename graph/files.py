"""Atomic file writes: a reader sees the old file or the whole new one, never half a file.

The one helper for every layer's "write a temporary file beside the target, then rename it over" (markers, the
published manifest, the retrieval index, the graph cache, the Airflow zip). It lives in ``graph`` because that is
the bottom layer: it imports none of our packages, so every package may import it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Literal

logger = logging.getLogger(__name__)


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: Literal["wb", "w"] = "wb", *, encoding: str | None = None) -> Iterator[IO[Any]]:
    """Open a temporary file in ``path``'s folder for writing; on a clean exit it replaces ``path`` atomically.

    The data is flushed and fsynced before the rename, so a crash right after it cannot leave an empty file under
    the final name. If the block raises, the temporary file is removed and ``path`` is untouched.

    Raises:
        ValueError: ``mode`` is not ``"wb"`` or ``"w"``.
        OSError: the folder is missing or not writable (the temporary file is cleaned up).
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_open mode {mode!r} is not supported; valid: 'wb', 'w'")
    target = Path(path)
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, mode, encoding=encoding if mode == "w" else None) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see ``atomic_open``)."""
    with atomic_open(path, "wb") as out:
        out.write(data)


def atomic_write_text(path: str | Path, data: str, encoding: str = "utf-8") -> None:
    """Write ``data`` to ``path`` atomically in ``encoding`` (see ``atomic_open``)."""
    with atomic_open(path, "w", encoding=encoding) as out:
        out.write(data)
