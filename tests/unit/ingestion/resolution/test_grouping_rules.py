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


def test_offices_apart_keeps_a_fathers_rank_and_a_sons_office_two_groups_at_first() -> None:
    forms = people(("Colonel Pyncheon", 28), ("Judge Pyncheon", 82), ("Pyncheon", 24), ("Governor Pyncheon", 1),
                   ("Captain Vance", 6), ("Colonel Vance", 4), ("Vance", 9))
    groups = sorted(group.texts for group in prepare(forms, language="en").groups)
    # two kinds of calling said again and again: apart; a governor said once, and a captain made a colonel, are not
    assert groups == [("Captain Vance", "Colonel Vance", "Vance"), ("Colonel Pyncheon",),
                      ("Governor Pyncheon", "Pyncheon"), ("Judge Pyncheon",)]
    off = prepare(forms, language="en", disabled_rules={"offices_apart"})
    assert ("Colonel Pyncheon", "Governor Pyncheon", "Judge Pyncheon", "Pyncheon") in {
        group.texts for group in off.groups}
    # resolved: the judge goes to the descendant named in full, the colonel stays the founder's
    book = people(("Colonel Pyncheon", 28), ("Judge Pyncheon", 82), ("Jaffrey Pyncheon", 10),
                  ("Hepzibah Pyncheon", 8), ("Miss Hepzibah", 30))
    assert not together(resolve(book), "Colonel Pyncheon", "Judge Pyncheon")
    assert together(resolve(book, off={"offices_apart"}), "Colonel Pyncheon", "Judge Pyncheon")
