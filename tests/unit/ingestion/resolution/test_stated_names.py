"""The names a book says are one person's (``ingestion.resolution.rules.stated``): the rule alone on a prepared book of
crafted forms, and switched off in a whole resolution."""

from __future__ import annotations

from ingestion.resolution import SurfaceForm, prepare
from ingestion.resolution.rules import partial, stated

from .crafted import index_of, joined, resolve, rules_of, together


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


# "Tony" fits two full names, "Tony Jobling" and "Mr. Tony Weevle", said about as often: two people until "Mr.
# Weevle, otherwise Jobling"
def _tony(statement: bool) -> list[SurfaceForm]:
    stated_ = (("Jobling", 1),) if statement else ()
    return [SurfaceForm("Tony Jobling", "PERSON", 3, he=1), SurfaceForm("Jobling", "PERSON", 40, he=12),
            SurfaceForm("Mr. Tony Weevle", "PERSON", 2), SurfaceForm("Mr. Weevle", "PERSON", 45, he=15, stated=stated_),
            SurfaceForm("Tony", "PERSON", 67, he=6)]


def test_stated_homes_joins_a_name_whose_homes_the_book_says_are_one_person() -> None:
    on = resolve(_tony(statement=True))
    assert together(on, "Tony", "Tony Jobling", "Mr. Weevle", "Mr. Tony Weevle", "Jobling")
    assert rules_of(on, "Tony")[-1] == "stated_homes"
    # the homes joined, the name between them left where partial_names left it
    off = resolve(_tony(statement=True), off={"stated_homes"})
    assert together(off, "Tony Jobling", "Mr. Weevle") and not together(off, "Tony", "Tony Jobling")


def test_stated_homes_leaves_a_name_between_two_people_apart() -> None:
    apart = resolve(_tony(statement=False))
    assert not together(apart, "Tony", "Tony Jobling") and not together(apart, "Tony", "Mr. Tony Weevle")
    assert not together(apart, "Tony Jobling", "Mr. Tony Weevle")


def test_stated_homes_on_a_prepared_book_reads_the_homes_partial_names_left() -> None:
    book = prepare(_tony(statement=True), language="en")
    partial.partial_names(book)
    tony = index_of(book, "Tony")
    homes, receiving = book.undecided[tony]
    assert len(homes) == len(receiving) == 2
    stated.stated_homes(book)
    assert book.root(tony) == tony  # nothing has joined the homes yet
    stated.stated_names(book)
    stated.stated_homes(book)
    assert book.root(tony) == book.root(index_of(book, "Tony Jobling")) == book.root(index_of(book, "Mr. Weevle"))
    assert book.trace[-1].rule == "stated_homes"
