"""Scores of who's who against a hand-written character list (tests/data/gold_people/*.json): the pure part of
bench/quality_people.py, tested on crafted clusterings by tests/unit/test_quality_people_scoring.py.

A list names each character with the forms the book writes for them (``aliases``), the forms that name two or more
of them (``ambiguous``: they count neither for nor against a resolver), and name-like forms that are no one
(``not_people``: places, houses, ships, deities, interjections). Forms are compared by ``form_key``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def form_key(text: str) -> str:
    """The comparable key of a name as written: whitespace (line breaks inside a name) collapsed, curly apostrophes
    straightened, a trailing possessive ("Edgar Linton's", "Jones'") dropped, surrounding punctuation stripped."""
    text = " ".join(text.replace("’", "'").split()).strip(" \"“”,.;:!?()-_").lstrip("'")
    if text.endswith("'s"):
        text = text[:-2]
    elif text.endswith("s'"):
        text = text[:-1]
    return text.strip()


@dataclass
class Character:
    """One character of a list."""

    name: str
    sex: str
    aliases: list[str]
    family: dict[str, list[str]] = field(default_factory=dict)

    def kin(self) -> set[str]:
        """The characters this one is a parent, child, sibling or spouse of."""
        return {other for relatives in self.family.values() for other in relatives}


@dataclass
class GoldPeople:
    """A book's character list."""

    book: str
    characters: list[Character]
    ambiguous: dict[str, list[str]]  # form key -> the characters it names
    not_people: dict[str, str]  # form key -> kind (place, house, deity …)

    def owner(self) -> dict[str, str]:
        """Each unambiguous alias's key -> its character's name."""
        return {form_key(alias): c.name for c in self.characters for alias in c.aliases}

    def related(self, a: str, b: str) -> bool:
        """Whether the list records a family tie between characters ``a`` and ``b`` (either direction)."""
        by_name = {c.name: c for c in self.characters}
        return b in by_name.get(a, Character(a, "", [])).kin() or a in by_name.get(b, Character(b, "", [])).kin()


def load_gold(path: Path) -> GoldPeople:
    """Read one list (the format of tests/data/gold_people/*.json)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    characters = [
        Character(e["canonical_name"], e.get("sex", "u"), list(e["aliases"]), dict(e.get("family", {})))
        for e in data["entities"]
    ]
    ambiguous = {form_key(a["form"]): list(a.get("characters", [])) for a in data.get("ambiguous", [])}
    not_people = {form_key(n["form"]): n["kind"] for n in data.get("not_people", [])}
    return GoldPeople(data["novel"], characters, ambiguous, not_people)


def b_cubed(system: Sequence[Hashable], gold: Sequence[Hashable]) -> dict[str, float]:
    """Mention-level B³ of a clustering: item i is in system cluster ``system[i]`` and gold cluster ``gold[i]``.

    Per item, precision = |its system cluster ∩ its gold cluster| / |its system cluster| and recall = the same over
    |its gold cluster|; both averaged over the items, F1 their harmonic mean. ``None`` as a system cluster is an
    item left alone (a singleton). No items: all three are 0."""
    if len(system) != len(gold):
        raise ValueError(f"b_cubed needs one system and one gold cluster per item, got {len(system)} and {len(gold)}")
    if not gold:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0, "mentions": 0}
    keys = [s if s is not None else ("singleton", i) for i, s in enumerate(system)]
    size_s: dict[Hashable, int] = defaultdict(int)
    size_g: dict[Hashable, int] = defaultdict(int)
    both: dict[tuple[Hashable, Hashable], int] = defaultdict(int)
    for s, g in zip(keys, gold, strict=True):
        size_s[s] += 1
        size_g[g] += 1
        both[(s, g)] += 1
    precision = sum(both[(s, g)] / size_s[s] for s, g in zip(keys, gold, strict=True)) / len(gold)
    recall = sum(both[(s, g)] / size_g[g] for s, g in zip(keys, gold, strict=True)) / len(gold)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "mentions": len(gold)}


def mention_clustering(mentions: Iterable[tuple[str, Hashable]], gold: GoldPeople) -> dict[str, float]:
    """B³ of the PERSON mentions ``(text, entity id or None)`` whose text is an unambiguous alias of the list."""
    owner = gold.owner()
    system, reference = [], []
    for text, entity in mentions:
        character = owner.get(form_key(text))
        if character is not None:
            system.append(entity)
            reference.append(character)
    return b_cubed(system, reference)


def characters_held(forms: Iterable[str], gold: GoldPeople) -> set[str]:
    """The list's characters one of whose unambiguous aliases is among ``forms``."""
    owner = gold.owner()
    return {owner[key] for key in map(form_key, forms) if key in owner}


def merges_and_splits(entities: Mapping[str, Iterable[str]], gold: GoldPeople) -> dict[str, Any]:
    """Wrong merges: entities (id -> the forms they hold) holding aliases of two or more characters, each counted
    once, marked ``family`` when two of those characters are kin in the list. Splits: per character, the entities
    holding its aliases less one, summed."""
    holders: dict[str, set[str]] = defaultdict(set)
    merged = []
    for entity_id, forms in entities.items():
        held = sorted(characters_held(forms, gold))
        for character in held:
            holders[character].add(entity_id)
        if len(held) > 1:
            family = any(gold.related(a, b) for i, a in enumerate(held) for b in held[i + 1:])
            merged.append({"entity": entity_id, "characters": held, "family": family})
    split = {name: sorted(ids) for name, ids in holders.items() if len(ids) > 1}
    return {
        "wrong_merges": len(merged), "family_merges": sum(m["family"] for m in merged), "merged": merged,
        "splits": sum(len(ids) - 1 for ids in split.values()), "split": split,
    }


def is_someone(forms: Iterable[str], gold: GoldPeople) -> bool:
    """Whether an entity holding ``forms`` is one of the list's characters: it holds an alias or an ambiguous form."""
    keys = set(map(form_key, forms))
    return bool(keys & set(gold.owner())) or bool(keys & set(gold.ambiguous))


def top_people_precision(
    ranked: Sequence[tuple[str, Iterable[str]]], gold: GoldPeople, top: int = 20
) -> dict[str, Any]:
    """Of the ``top`` PERSON entities by mentions (``(name, forms)``, most mentioned first), the share that are one
    of the list's characters (``is_someone``); the others are listed by name."""
    head = [(name, list(forms)) for name, forms in ranked[:top]]
    others = [name for name, forms in head if not is_someone(forms, gold)]
    return {"precision": (len(head) - len(others)) / len(head) if head else 0.0, "top": len(head), "others": others}


def non_people(
    entities: Iterable[tuple[str, Iterable[str], int]], gold: GoldPeople, min_chapters: int = 5
) -> list[dict[str, Any]]:
    """The PERSON entities ``(name, forms, chapters seen in)`` seen in ``min_chapters`` or more chapters that hold a
    form the list calls no one and no character's alias or ambiguous form, with that form's kind."""
    found = []
    for name, forms, chapters in entities:
        forms = list(forms)
        if chapters < min_chapters or is_someone(forms, gold):
            continue
        kinds = sorted({gold.not_people[k] for k in map(form_key, forms) if k in gold.not_people})
        if kinds:
            found.append({"entity": name, "kinds": kinds, "chapters": chapters})
    return found
