"""Errors of the graph package: one root, shallow leaves, each carrying its context as attributes.

Driver errors (``neo4j.exceptions``) never escape a store: they are translated here, at the store boundary, so a
caller only ever catches ``GraphStoreError`` and reads a message that names the URI, the user, the query or the path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class GraphStoreError(Exception):
    """Raised when a graph store cannot load or answer; the root of every error the graph package raises."""


class GraphUnavailableError(GraphStoreError):
    """Raised when the graph server cannot be reached (down, wrong port, connection lost mid-load); names the URI."""

    def __init__(self, message: str, *, uri: str) -> None:
        super().__init__(message)
        self.uri = uri


class GraphAuthError(GraphStoreError):
    """Raised when the graph server refuses the credentials; names the URI and the user, never the password."""

    def __init__(self, message: str, *, uri: str, user: str) -> None:
        super().__init__(message)
        self.uri = uri
        self.user = user


class GraphLoadError(GraphStoreError):
    """Raised when the graph cannot be loaded into a server: one line naming the URI and the user, not the password."""

    def __init__(self, message: str, *, uri: str, user: str) -> None:
        super().__init__(message)
        self.uri = uri
        self.user = user


class EntityNotFoundError(GraphStoreError):
    """Raised when no entity matches a name or an id; names the query and the closest candidates, if any."""

    def __init__(self, query: str, candidates: Sequence[str] = (), *, what: str = "name") -> None:
        self.query = query
        self.candidates = list(candidates)
        if self.candidates:
            hint = "closest candidates: " + ", ".join(repr(c) for c in self.candidates)
        else:
            hint = "no candidate comes close"
        super().__init__(f"no entity with {what} {query!r} in the graph ({hint})")


class GraphDataError(GraphStoreError):
    """Raised when a lakehouse table the graph needs is missing or malformed; names the path and the stage to run."""

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


class StorageError(GraphStoreError):
    """Raised when the lakehouse's storage (a folder or a bucket) cannot be read or written; names the location."""

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


def require_columns(frame: Any, columns: Sequence[str], table: str) -> None:
    """Raise ``GraphDataError`` naming the columns a pandas frame of ``table`` lacks, and those it has."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise GraphDataError(
            f"{table} frame lacks the columns {', '.join(missing)} (it has: {', '.join(map(str, frame.columns))})",
            path=table,
        )
