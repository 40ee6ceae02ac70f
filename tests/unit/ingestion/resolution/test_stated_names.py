"""The names a book says are one person's (``ingestion.resolution.rules.stated``): the rule alone on a prepared book of
crafted forms, and switched off in a whole resolution."""

from __future__ import annotations

from ingestion.resolution import SurfaceForm, prepare
from ingestion.resolution.rules import stated

from .crafted import joined, resolve, rules_of, together


def test_stated_names_joins_a_pseudonym_the_book_states_once() -> None:
    forms = [SurfaceForm("Abel Magwitch", "PERSON", 3, he=1, stated=(("Provis", 1),)),
             SurfaceForm("Magwitch", "PERSON", 20, he=8), SurfaceForm("Provis", "PERSON", 60, he=25)]
    on = resolve(forms)
    assert together(on, "Abel Magwitch", "Magwitch", "Provis")
    assert rules_of(on, "Provis")[-1] == "stated_names"
    # nothing in the names themselves joins them
    assert not together(resolve(forms, off={"stated_names"}), "Magwitch", "Provis")


def test_stated_names_joins_the_rarer_group_into_the_more_mentioned() -> None:
    book = prepare([SurfaceForm("Mr. Weevle", "PERSON", 60, he=20, stated=(("Jobling", 1),)),
                    SurfaceForm("Jobling", "PERSON", 15, he=5)], language="en")
    stated.stated_names(book)
    assert joined(book) == {frozenset({"Mr. Weevle", "Jobling"})}
    assert book.trace[-1].rule == "stated_names" and book.trace[-1].into == ("Mr. Weevle",)


def test_stated_names_joins_a_maiden_and_a_married_name_but_not_her_husband() -> None:
    forms = [SurfaceForm("Miss Ada Clare", "PERSON", 5, she=2, stated=(("Mrs. Richard Carstone", 1),)),
             SurfaceForm("Ada", "PERSON", 300, she=90), SurfaceForm("Mrs. Richard Carstone", "PERSON", 2),
             SurfaceForm("Richard Carstone", "PERSON", 40, he=15), SurfaceForm("Richard", "PERSON", 250, he=80)]
    on = resolve(forms)
    # a Miss and a Mrs. are one woman when the book says she married
    assert together(on, "Ada", "Miss Ada Clare", "Mrs. Richard Carstone")
    assert not together(on, "Richard", "Mrs. Richard Carstone")
    assert not together(resolve(forms, off={"stated_names"}), "Ada", "Mrs. Richard Carstone")


def test_stated_names_keeps_apart_names_of_two_sexes() -> None:
    forms = [SurfaceForm("Mr. Guppy", "PERSON", 50, he=20, stated=(("Caddy", 1),)),
             SurfaceForm("Caddy", "PERSON", 40, she=15)]
    assert not together(resolve(forms), "Mr. Guppy", "Caddy")
    # one name of no known sex is no objection
    unknown = [SurfaceForm("Mr. Guppy", "PERSON", 50, he=20, stated=(("Lignum", 1),)),
               SurfaceForm("Lignum", "PERSON", 10)]
    assert together(resolve(unknown), "Mr. Guppy", "Lignum")


def test_stated_names_reads_no_statement_of_a_form_that_is_not_a_name() -> None:
    forms = [SurfaceForm("Pip", "PERSON", 100, he=30, stated=(("London", 1),)),
             SurfaceForm("London", "GPE", 40)]
    assert not together(resolve(forms), "Pip", "London")
