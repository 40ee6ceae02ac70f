"""The rules that make the first groups: forms the alias table sends to one entry, and forms of one name key kept
apart by the sex and the men's ranks of nobility their titles give."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from ingestion.alias_table import AliasEntry, AliasTable
from ingestion.names import MALE, noble_ranks, offices
from ingestion.normalize import clean_surface, match_key, split_titles
from ingestion.resolution.forms import INTRODUCED, Form, Group, label_family
from ingestion.resolution.language import Language


def group_forms(
    forms: list[Form], table: AliasTable, language: Language, disabled: Collection[str] = ()
) -> list[Group]:
    """The groups of the forms, sorted by key: ``alias_table`` first, else one group per name key, label family and
    sex of the titles (``"Monsieur X"`` and ``"Mademoiselle X"`` are two), split further by ``noble_ranks_apart`` and
    ``offices_apart``."""
    groups: dict[tuple[str, ...], Group] = {}
    held = {} if "offices_apart" in disabled else offices_apart(forms)
    for form in forms:
        entry = None if "alias_table" in disabled else alias_table(form, table)
        if entry is not None:
            key: tuple[str, ...] = ("table", entry.canonical)
            if key not in groups:
                canonical = clean_surface(entry.canonical, language.code).casefold().split()
                _, names = split_titles(canonical, language.code)
                family = label_family(entry.label) if entry.label else ""
                groups[key] = Group(family, tuple(match_key(token) for token in names), entry=entry)
        else:
            ranks = "" if "noble_ranks_apart" in disabled else noble_ranks_apart(form)
            office = " ".join(sorted(offices(form.titles) & held.get(form.name_tokens, set())))
            key = ("form", form.family, form.gender, ranks, office, *form.name_tokens)
            if key not in groups:
                groups[key] = Group(form.family, form.name_tokens, title_only=form.title_only, gender=form.gender)
        groups[key].forms.append(form)
    for group in groups.values():
        if not group.family:
            tally = Counter[str]()
            for form in group.forms:
                tally[form.family] += form.count
            group.family = min(tally, key=lambda family: (-tally[family], family))
    return [groups[key] for key in sorted(groups)]


def alias_table(form: Form, table: AliasTable) -> AliasEntry | None:
    """Joins every form the domain's alias table lists under one entry, whatever its words: "Natasha", "Natalya
    Ilyinichna" and "Countess Rostova" under "Natasha Rostova". Nothing later moves them.

    Evidence: the table, looked up by the form's key and by its name without titles.
    """
    return table.lookup(match_key(" ".join(form.tokens))) or table.lookup(" ".join(form.name_tokens))


def noble_ranks_apart(form: Form) -> str:
    """Keeps a man's two ranks of nobility apart at first: "Prince Nicholas" and "Count Nicholas" may be two men
    (``names.noble_ranks``). ``partial_names`` joins them unless each rank is said again and again (``ranks_apart``).

    Evidence: the form's titles; returns the part of the group key they give ("" for no rank or not a man).
    """
    return " ".join(sorted(noble_ranks(form.titles))) if form.gender == MALE else ""


def offices_apart(forms: list[Form]) -> dict[tuple[str, ...], set[str]]:
    """Keeps a name's two kinds of office apart at first where the book says each again and again: "Colonel
    Pyncheon" (the founder, 28 times) and "Judge Pyncheon" (his descendant, 82) are two men (``names.offices``: the
    military ranks are one kind, a man rises through them). ``ranks_apart`` then keeps them apart in every join.

    Evidence: the forms' ranks and offices before the name, each kind said ``INTRODUCED`` times; returns, per name,
    the kinds that start apart (two at least).
    """
    said: dict[tuple[str, ...], Counter[str]] = {}
    for form in forms:
        for kind in offices(form.titles):
            said.setdefault(form.name_tokens, Counter())[kind] += form.count
    held = {name: {kind for kind, n in kinds.items() if n >= INTRODUCED} for name, kinds in said.items()}
    return {name: kinds for name, kinds in held.items() if len(kinds) > 1}
