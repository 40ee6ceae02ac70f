"""The rules that make the first groups (``ingestion.resolution.rules.grouping``): alone, and switched off."""

from __future__ import annotations

from ingestion.alias_table import AliasTable
from ingestion.resolution import prepare

from .crafted import people, resolve, rules_of, together


def test_alias_table_joins_the_forms_of_one_entry_whatever_their_words() -> None:
    forms = people(("Napoleon", 100), ("The Little Corporal", 5), ("Josephine", 30))
    table = AliasTable.from_mapping({"Napoleon Bonaparte": ["Napoleon", "The Little Corporal"]})
    book = prepare(forms, language="en", alias_table=table)
    grouped = [group for group in book.groups if group.entry is not None]
    assert [group.texts for group in grouped] == [("Napoleon", "The Little Corporal")]
    on = resolve(forms, alias_table=table)
    assert together(on, "Napoleon", "The Little Corporal") and rules_of(on, "Napoleon") == ["alias_table"]
    assert not together(resolve(forms, off={"alias_table"}, alias_table=table), "Napoleon", "The Little Corporal")


def test_noble_ranks_apart_keeps_a_mans_two_ranks_two_groups_at_first() -> None:
    forms = people(("Prince Nicholas", 10), ("Count Nicholas", 4), ("Monsieur Nicholas", 3))
    keys = sorted(group.texts for group in prepare(forms, language="en").groups)
    assert keys == [("Count Nicholas",), ("Monsieur Nicholas",), ("Prince Nicholas",)]
    off = prepare(forms, language="en", disabled_rules={"noble_ranks_apart"})
    assert sorted(group.texts for group in off.groups) == [("Count Nicholas", "Monsieur Nicholas", "Prince Nicholas")]
    # resolved: each rank said again and again by another man ("Nicholas Rostov" the count) stays his
    book = people(("Nicholas", 500), ("Prince Nicholas", 10), ("Prince Nicholas Andreevich Volkonski", 12),
                  ("Count Nicholas", 4), ("Nicholas Rostov", 20))
    assert not together(resolve(book), "Prince Nicholas", "Count Nicholas")
    assert together(resolve(book, off={"noble_ranks_apart"}), "Prince Nicholas", "Count Nicholas")
