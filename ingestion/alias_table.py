"""The domain's alias table: canonical names and the other names they go by, applied before any heuristic.

Read from a mapping, or a JSON, YAML or TSV file (``AliasTable.from_file``); looked up by match key, so case,
accents, possessives and surrounding punctuation do not matter. ``ingestion.resolution`` applies it first.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ingestion.errors import IngestionError
from ingestion.normalize import clean_surface, match_key

logger = logging.getLogger(__name__)

__all__ = ["AliasEntry", "AliasTable", "AliasTableError"]


class AliasTableError(IngestionError, ValueError):
    """Raised when an alias table mapping or file is malformed or of an unknown format."""


@dataclass(frozen=True, slots=True)
class AliasEntry:
    """One domain entity: its canonical name, the other names it goes by, and optionally its NER label."""

    canonical: str
    aliases: tuple[str, ...]
    label: str | None = None


class AliasTable:
    """The domain's alias table: canonical name -> aliases (+ optional label), applied before any heuristic.

    Lookups use match keys, so case, accents, possessives and surrounding punctuation do not matter. An alias
    listed under two canonical names is ambiguous: it is dropped (with a warning) and left to the heuristics.
    Matching ignores the NER label of a mention, because NER mislabels characters as places or organisations
    far more often than a domain table lists a person's name that is also a place.
    """

    _FORMATS = (".json", ".yaml", ".yml", ".tsv")

    def __init__(self, entries: Iterable[AliasEntry]) -> None:
        self._entries = tuple(sorted(entries, key=lambda entry: entry.canonical))
        index: dict[str, AliasEntry | None] = {}
        for entry in self._entries:
            for name in (entry.canonical, *entry.aliases):
                key = match_key(clean_surface(name))
                if index.get(key, entry) is not entry:
                    logger.warning("alias %r is listed under several canonical names; ignoring it", name)
                    index[key] = None
                elif key:
                    index[key] = entry
        self._index = {key: entry for key, entry in index.items() if entry is not None}
        self._casefolded = frozenset(
            clean_surface(name).casefold() for entry in self._entries for name in (entry.canonical, *entry.aliases)
        )

    @property
    def entries(self) -> tuple[AliasEntry, ...]:
        """All entries, sorted by canonical name."""
        return self._entries

    def lookup(self, key: str) -> AliasEntry | None:
        """The entry whose canonical name or alias has this match key, if exactly one has."""
        return self._index.get(key)

    def casefolded_keys(self) -> frozenset[str]:
        """Every name in the table, cleaned and casefolded but with accents kept (stems are checked against it)."""
        return self._casefolded

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> AliasTable:
        """Build from ``{canonical: [alias, ...]}`` or ``{canonical: {"aliases": [...], "label": "PERSON"}}``."""
        entries = []
        for canonical, value in mapping.items():
            label = None
            if isinstance(value, Mapping):
                label, value = value.get("label"), value.get("aliases", [])
            if isinstance(value, str) or not isinstance(value, list | tuple):
                raise AliasTableError(
                    f"aliases of {canonical!r} must be a list of strings or a mapping with 'aliases' (a list) and "
                    f"an optional 'label', got {value!r}"
                )
            if not all(isinstance(alias, str) for alias in value) or not isinstance(label, str | None):
                raise AliasTableError(f"aliases and label of {canonical!r} must be strings, got {value!r}, {label!r}")
            entries.append(AliasEntry(str(canonical), tuple(value), label))
        return cls(entries)

    @classmethod
    def from_file(cls, path: str | Path) -> AliasTable:
        """Load a JSON or YAML mapping (as ``from_mapping``) or a TSV of ``canonical<TAB>alias[<TAB>label]`` rows.

        In TSV an alias cell may hold several aliases separated by ``|``; blank lines and ``#`` comments are
        skipped; rows sharing a canonical name accumulate.
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in cls._FORMATS:
            raise AliasTableError(f"alias table {str(path)!r} has unknown format {suffix!r}; valid: {cls._FORMATS}")
        try:
            text = path.read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise AliasTableError(f"cannot read alias table {str(path)!r}: {exc.strerror or exc}") from exc
        if suffix == ".tsv":
            return cls.from_mapping(_parse_tsv(text, path))
        if suffix == ".json":
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise AliasTableError(f"alias table {str(path)!r} is not valid JSON: {exc}") from exc
        else:
            import yaml  # only YAML tables need it

            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise AliasTableError(f"alias table {str(path)!r} is not valid YAML: {exc}") from exc
        if not isinstance(data, Mapping):
            raise AliasTableError(f"alias table {str(path)!r} must hold a mapping, got {type(data).__name__}")
        return cls.from_mapping(data)


def _parse_tsv(text: str, path: Path) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [cell.strip() for cell in line.split("\t")]
        if len(cells) not in (2, 3) or not cells[0]:
            raise AliasTableError(
                f"{str(path)!r} line {number}: expected 'canonical<TAB>alias[<TAB>label]', got {line!r}"
            )
        entry = table.setdefault(cells[0], {"aliases": [], "label": None})
        entry["aliases"].extend(alias.strip() for alias in cells[1].split("|") if alias.strip())
        if len(cells) == 3 and cells[2]:
            entry["label"] = cells[2]
    return table
