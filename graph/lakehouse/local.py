"""``LocalBackend``: a lakehouse root that is a folder of this machine's file system (or a mount).

Small files as on any POSIX file system: temp file + fsync + ``rename`` for a write (``graph.files``); an exclusive
create is a temp file hard-linked to the name (``link(2)``), and a file's tag is the SHA-256 of its content.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from graph.errors import StorageError
from graph.files import atomic_write_bytes
from graph.lakehouse.backend import Parts, content_tag

logger = logging.getLogger(__name__)

# Characters of a local root that the pinned Delta library (deltalake 1.1) cannot store a table under: it turns the
# path into a URL and back, so '#' and '?' start a fragment or a query (the table is "not found" right after its
# first write) and '[', ']', '^', '|' make it panic. Later releases (1.6) handle them all.
DELTA_UNSAFE_CHARS = "#?[]^|"
# What deltalake 1.1 leaves unencoded when it (wrongly) creates a percent-encoded twin of a table's folder beside it
# on a table's first write or a delete (``LocalBackend.remove_delta_twins``); ``-._~`` and letters and digits are
# never encoded.
_DELTA_URL_SAFE = "/!$&'()*+,;=:@"


def delta_safe_folder(path: str, given: str) -> Path:
    """``path`` resolved to an absolute folder, unless it holds a character the Delta library cannot store tables
    under.

    Raises:
        ValueError: naming the root as ``given``, the characters and the ones to avoid.
    """
    local = Path(path).resolve()
    bad = sorted({c for c in str(local) if c in DELTA_UNSAFE_CHARS})
    if bad:
        raise ValueError(
            f"lakehouse root {given!r} contains {' '.join(repr(c) for c in bad)}: the Delta library cannot store "
            f"tables under such a path (deltalake 1.1); choose a folder whose path has none of "
            f"{' '.join(DELTA_UNSAFE_CHARS)}"
        )
    return local


@dataclass(frozen=True)
class LocalBackend:
    """A folder: ``path`` is absolute and resolved (``delta_safe_folder``)."""

    path: Path

    prefix = ""  # a folder has no key prefix: a name's key is its path under the root

    @property
    def identity(self) -> str:
        """The folder's path."""
        return str(self.path)

    @property
    def storage_options(self) -> None:
        """None: delta-rs opens a local table by its path."""
        return None

    def file(self, parts: Parts) -> Path:
        """The local path of ``parts``."""
        return self.path.joinpath(*parts)

    def uri(self, parts: Parts) -> str:
        """The local path, as text."""
        return str(self.file(parts))

    delta_uri = uri
    fs_path = uri

    def filesystem(self) -> Any:
        """pyarrow's local file system."""
        import pyarrow.fs as pafs

        return pafs.LocalFileSystem()

    def spark_conf(self) -> dict[str, str]:
        """Nothing: Spark reads local paths by default."""
        return {}

    def cache_name(self) -> None:
        """None: readers keep what they derive in the folder itself."""
        return None

    def read_tagged(self, parts: Parts) -> tuple[bytes, str] | None:
        """The content, with the SHA-256 of it as its tag (a file has no version of its own)."""
        data = self.read_bytes(parts)
        return None if data is None else (data, content_tag(data))

    def read_bytes(self, parts: Parts) -> bytes | None:
        """The file's content, or None."""
        try:
            return self.file(parts).read_bytes()
        except FileNotFoundError:
            return None

    def write_bytes(self, parts: Parts, data: bytes) -> None:
        """Temp file, fsync, rename (``graph.files.atomic_write_bytes``); the folders are created."""
        path = self.file(parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)

    def create(self, parts: Parts, data: bytes) -> str | None:
        """Write a private temp file, then hard-link it to the name: ``link(2)`` fails when the name exists (even as
        a dangling symbolic link), like ``O_CREAT|O_EXCL``, and a reader never sees half a file. The tag, or None."""
        path = self.file(parts)
        temp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        temp.write_bytes(data)
        try:
            os.link(temp, path)
            return content_tag(data)
        except FileExistsError:
            return None
        finally:
            temp.unlink(missing_ok=True)

    def replace(self, parts: Parts, data: bytes, tag: str) -> str | None:
        """Move the file aside, and create ``data`` in its place only if what was moved is still the version read
        with ``tag``; otherwise put it back. None when another writer changed, removed or re-created it first."""
        path = self.file(parts)
        aside = path.with_name(f".{path.name}.aside.{os.getpid()}.{uuid.uuid4().hex[:8]}")
        try:
            os.rename(path, aside)
        except FileNotFoundError:
            return None  # someone else moved or removed it first
        try:
            moved = aside.read_bytes()
        except OSError:
            moved = None
        if moved is None or content_tag(moved) != tag:
            try:
                os.link(aside, path, follow_symlinks=False)  # not the version read: put it back, unless replaced
            except FileExistsError:
                pass
            aside.unlink(missing_ok=True)
            return None
        aside.unlink(missing_ok=True)
        return self.create(parts, data)

    def delete(self, parts: Parts, tag: str | None) -> bool:
        """Unlink the file (gone already is fine); with ``tag``, only if it is still that version (checked just
        before: a folder has no atomic compare-and-delete)."""
        path = self.file(parts)
        if tag is not None:
            found = self.read_tagged(parts)
            if found is not None and found[1] != tag:
                return False
        path.unlink(missing_ok=True)
        return True

    def is_file(self, parts: Parts) -> bool:
        """Whether a file is there."""
        return self.file(parts).is_file()

    def is_dir(self, parts: Parts) -> bool:
        """Whether a folder is there."""
        return self.file(parts).is_dir()

    def list_files(self, parts: Parts) -> list[str]:
        """The files directly in the folder, sorted; [] when there is no folder."""
        folder = self.file(parts)
        return sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []

    def list_dirs(self, parts: Parts) -> list[str]:
        """The folders directly in the folder, sorted; [] when there is no folder."""
        folder = self.file(parts)
        return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []

    def check_writable(self) -> None:
        """The folder is created if missing, and must be writable."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"cannot create the lakehouse root {self.path}: {exc.strerror}", path=str(self.path)
            ) from exc
        if not os.access(self.path, os.W_OK | os.X_OK):
            raise StorageError(f"the lakehouse root {self.path} is not writable", path=str(self.path))

    def check_confined(self, unchecked: Collection[str]) -> None:
        """Fail when the root's path no longer leads to the folder it resolved to when configured (a folder on it was
        replaced by a link), or a symbolic link under it leads outside it (or dangles there): Delta, delta-rs and the
        marker writes would follow it. A link within the root is fine, and so are the names directly under the root
        in ``unchecked`` (files whose writer never follows a link: the lock).

        Raises:
            StorageError: naming the root or the link (never its target: API clients read run errors).
        """
        if not os.path.lexists(self.path):
            return
        root = str(self.path)
        if os.path.realpath(root) != root:
            raise StorageError(
                f"the lakehouse root {root} no longer leads to the folder it named (a folder on its path was replaced "
                "by a symbolic link); nothing written", path=root,
            )
        for link in _links_under(root):
            if os.path.dirname(link) == root and os.path.basename(link) in unchecked:
                continue
            real = os.path.realpath(link)
            if real != root and not real.startswith(root + os.sep):
                raise StorageError(
                    f"{link} in the lakehouse {root} is a symbolic link leading outside it; csillag writes only inside "
                    "the lakehouse root: remove the link (or name the folder it leads to as the lakehouse)", path=link,
                )

    def remove_delta_twins(self) -> list[Path]:
        """Remove the empty percent-encoded twin folders deltalake 1.1 creates beside a root whose path has a space,
        a non-ASCII letter, ``%`` or one of ``"<>`{}\\`` (e.g. ``k%C3%B6nyvt%C3%A1r`` beside ``könyvtár``): it makes
        them on a table's first write and on a delete, and writes nothing into them. Only empty folders go
        (``rmdir``): a folder holding anything is left as it is. Returns the folders removed."""
        real, twin = self.path.parts, Path(quote(str(self.path), safe=_DELTA_URL_SAFE)).parts
        differs = next((i for i, (a, b) in enumerate(zip(real, twin, strict=True)) if a != b), None)
        if differs is None:
            return []
        top = Path(*twin[: differs + 1])
        if not top.is_dir() or top.is_symlink():
            return []
        removed = []
        for folder, _, _ in sorted(os.walk(top), key=lambda entry: -len(entry[0])):  # deepest first
            try:
                os.rmdir(folder)
            except OSError:
                continue
            removed.append(Path(folder))
        if removed:
            logger.info("removed %d empty folder(s) the Delta library made beside the lakehouse: %s", len(removed),
                        top)
        return removed


def _links_under(folder: str) -> Iterator[str]:
    """Every symbolic link under ``folder``, depth first; links are reported, never entered.

    Raises:
        StorageError: a folder under it cannot be listed (one vanishing meanwhile is skipped).
    """
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StorageError(f"cannot list {folder} to check it for links: {exc.strerror}", path=folder) from exc
    for entry in entries:
        if entry.is_symlink():
            yield entry.path
        elif entry.is_dir(follow_symlinks=False):
            yield from _links_under(entry.path)
