"""The embedded store's on-disk cache of a ``CompactGraph``: a ``.npz`` of plain arrays, never a pickle.

A pickle runs code when it is read, and the cache lives in a shared lakehouse where anyone who can write a file
could plant one. This format cannot: ``numpy.load(..., allow_pickle=False)`` reads only numeric and fixed-width
string arrays, and the non-array fields (the node models, the string lists) travel as one JSON document stored as
bytes. The file name carries ``CACHE_FORMAT``, so a file of an older layout is simply not looked at (and removed
when the new one is written); an unreadable or incomplete file is only a lost speed-up and is rebuilt.

The file also holds the identity of the lakehouse state it was built from (``graph.model.lakehouse_identity``), and
a read returns it only to a caller expecting exactly that identity: the name carries only a hash of it, and a cache
folder outlives the lakehouse it served (``graph.cache_dir``, the user's cache for a bucket), so a file whose name
matches may still belong to another build of the same root.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import TypeAdapter, ValidationError

from graph.compact import CompactGraph
from graph.files import atomic_open
from graph.model import ChunkNode, DocumentNode, EntityNode, QuoteNode, TypedRelationEdge, UnitNode

logger = logging.getLogger(__name__)

# 5: typed relations and quotations; 4: the identity stored and checked; 3: npz + JSON (2 was a pickle);
# bump on any change of shape
CACHE_FORMAT = 5
CACHE_PREFIX = "graph-"
_PLAIN = "__plain_json__"  # the array holding the JSON document of the non-array fields
_IDENTITY = "__identity_json__"  # the array holding the JSON of the lakehouse state the graph was read from
_MODELS: dict[str, TypeAdapter[Any]] = {
    "entities": TypeAdapter(list[EntityNode]),
    "documents": TypeAdapter(list[DocumentNode]),
    "units": TypeAdapter(list[UnitNode]),
    "chunks": TypeAdapter(list[ChunkNode]),
    "typed_relations": TypeAdapter(list[TypedRelationEdge]),
    "quotes": TypeAdapter(list[QuoteNode]),
}
_TUPLES = {"search_keys"}  # lists of tuples: JSON gives lists back


def cache_name(key: str) -> str:
    """The file name of the cache with this key (the format version is part of it)."""
    return f"{CACHE_PREFIX}v{CACHE_FORMAT}-{key}.npz"


def _json_bytes(value: Any) -> np.ndarray:
    return np.frombuffer(json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8"), dtype=np.uint8)


def _encode(graph: CompactGraph) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    plain: dict[str, Any] = {}
    for item in dataclasses.fields(graph):
        value = getattr(graph, item.name)
        if isinstance(value, np.ndarray):
            arrays[item.name] = value
        elif item.name in _MODELS:
            plain[item.name] = _MODELS[item.name].dump_python(value, mode="json")
        else:
            plain[item.name] = list(value)
    arrays[_PLAIN] = _json_bytes(plain)
    return arrays


def _decode(stored: Any) -> CompactGraph:
    plain = json.loads(bytes(stored[_PLAIN]).decode("utf-8"))
    values: dict[str, Any] = {}
    for item in dataclasses.fields(CompactGraph):
        if item.name in plain:
            value = plain[item.name]
            if item.name in _MODELS:
                value = _MODELS[item.name].validate_python(value)
            elif item.name in _TUPLES:
                value = [tuple(keys) for keys in value]
            values[item.name] = value
        else:
            values[item.name] = stored[item.name]  # a KeyError: a file without the field, i.e. unusable
    return CompactGraph(**values)


def read_cache(path: Path, identity: dict[str, Any]) -> CompactGraph | None:
    """The cached graph at ``path`` if it was built from the lakehouse state ``identity``; None when there is none,
    it was built from another state, or it cannot be read (then it is rebuilt)."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as stored:
            built_from = json.loads(bytes(stored[_IDENTITY]).decode("utf-8"))
            if built_from != json.loads(json.dumps(identity)):  # through JSON, as stored: tuples become lists
                logger.info("graph cache %s was built from another state of the lakehouse; rebuilding it", path)
                return None
            return _decode(stored)
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, ValidationError) as exc:
        logger.warning("ignoring unreadable graph cache %s: %s", path, exc)
        return None


def write_cache(path: Path, graph: CompactGraph, identity: dict[str, Any]) -> None:
    """Write the cache of ``graph``, read from the lakehouse state ``identity``, atomically and remove the other
    cache files of the directory (older keys or formats)."""
    cache_dir = path.parent
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with atomic_open(path, "wb") as handle:  # a reader never sees half a cache
            np.savez(handle, allow_pickle=False, **_encode(graph), **{_IDENTITY: _json_bytes(identity)})
        for stale in cache_dir.glob(f"{CACHE_PREFIX}*"):
            if stale != path and stale.suffix in {".npz", ".pkl"}:
                stale.unlink(missing_ok=True)
    except OSError as exc:
        # A read-only lakehouse still serves queries; it just starts slowly every time.
        logger.warning("could not write the graph cache to %s: %s", cache_dir, exc)
