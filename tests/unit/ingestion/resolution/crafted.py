"""Helpers of the rule tests: crafted forms resolved with rules on or off, what ends up together, and a small
lakehouse for the trace's command and endpoint."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection
from pathlib import Path

import pyarrow as pa
from deltalake import write_deltalake

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


TEXT = ("Prince Kutuzov rode in. Kutuzov said nothing, and he smiled. Michael Ilarionovich Kutuzov was old. "
        "Count Kutuzov nodded to Prince Kutuzov. Kutuzov slept. Michael Ilarionovich Kutuzov woke.")
NAMES = ("Michael Ilarionovich Kutuzov", "Prince Kutuzov", "Count Kutuzov", "Kutuzov")


def kutuzov_lakehouse(root: Path) -> Path:
    """A lakehouse's mentions and chunks tables (real Delta, written with delta-rs): one document, one chunk, a
    PERSON mention wherever a name of ``NAMES`` stands (the longest name first), with its sentence."""
    rows: list[dict[str, object]] = []
    taken: set[int] = set()
    for name in NAMES:
        for match in re.finditer(re.escape(name), TEXT):
            if taken.intersection(range(match.start(), match.end())):
                continue  # inside a longer name
            taken.update(range(match.start(), match.end()))
            sentence = TEXT.count(". ", 0, match.start())
            rows.append({"doc_id": "d1", "chunk_id": "c1", "sentence_id": f"c1:s{sentence}", "start": match.start(),
                         "end": match.end(), "text": name, "label": "PERSON", "ent_id": ""})
    write_deltalake(str(root / "mentions"), pa.Table.from_pylist(rows))
    write_deltalake(str(root / "chunks"), pa.Table.from_pylist(
        [{"chunk_id": "c1", "doc_id": "d1", "unit_id": "u1", "start": 0, "text": TEXT}]))
    return root
