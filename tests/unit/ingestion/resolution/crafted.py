"""Helpers of the rule tests: crafted forms resolved with rules on or off, and what ends up together."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection

from ingestion.resolution import Resolution, SurfaceForm, resolve_traced
from ingestion.resolution.evidence import Book


def people(*rows: tuple[str, int] | SurfaceForm, label: str = "PERSON") -> list[SurfaceForm]:
    """Forms from (text, mentions) pairs under ``label``, or given whole."""
    return [row if isinstance(row, SurfaceForm) else SurfaceForm(row[0], label, row[1]) for row in rows]


def resolve(forms: list[SurfaceForm], language: str = "en", off: Collection[str] = (), **options: object) -> Resolution:
    """The forms resolved with the rules ``off`` switched off."""
    return resolve_traced(forms, language=language, disabled_rules=off, **options)  # type: ignore[arg-type]


def clusters(resolution: Resolution) -> set[frozenset[str]]:
    """The surface texts of each entity."""
    by_entity: dict[str, set[str]] = defaultdict(set)
    for (text, _), entity_id in resolution.mapping.items():
        by_entity[entity_id].add(text)
    return {frozenset(texts) for texts in by_entity.values()}


def together(resolution: Resolution, *texts: str) -> bool:
    """Whether the texts are all forms of one entity."""
    return any(set(texts) <= cluster for cluster in clusters(resolution))


def rules_of(resolution: Resolution, text: str) -> list[str]:
    """The rules in the trace of the entity ``text`` is a form of, in order."""
    entity_id = next(entity_id for (form, _), entity_id in resolution.mapping.items() if form == text)
    return [step.rule for step in resolution.traces.get(entity_id, ())]


def label_of(resolution: Resolution, text: str) -> str:
    """The label of the entity ``text`` is a form of."""
    entity_id = next(entity_id for (form, _), entity_id in resolution.mapping.items() if form == text)
    return next(entity.label for entity in resolution.entities if entity.entity_id == entity_id)


def joined(book: Book) -> set[frozenset[str]]:
    """The surface texts gathered under each root of the book, so far."""
    by_root: dict[int, set[str]] = defaultdict(set)
    for index, group in enumerate(book.groups):
        by_root[book.root(index)].update(group.texts)
    return {frozenset(texts) for texts in by_root.values()}


def index_of(book: Book, text: str) -> int:
    """The group holding the surface text."""
    return next(i for i, group in enumerate(book.groups) if text in group.texts)
