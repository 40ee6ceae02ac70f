"""The joining rules besides partial names (``ingestion.resolution.rules.joins``): each run alone on a prepared book
of crafted forms, and switched off in a whole resolution."""

from __future__ import annotations

from ingestion.resolution import SurfaceForm, prepare
from ingestion.resolution.rules import joins

from .crafted import joined, people, resolve, rules_of, together


def test_same_name_titles_joins_one_name_under_titles_of_one_sex() -> None:
    book = prepare(people(("Princess Mary", 50), ("Countess Mary", 10), ("Mary", 20), ("Monsieur Mary", 2)),
                   language="en")
    joins.same_name_titles(book)
    # a man's and a woman's titles: namesakes, left to the partial names one by one (the two women's titles are one
    # name key from the start)
    assert joined(book) == {frozenset({"Princess Mary", "Countess Mary"}), frozenset({"Mary"}),
                            frozenset({"Monsieur Mary"})}
    women = prepare(people(("Princess Mary", 50), ("Countess Mary", 10), ("Mary", 20)), language="en")
    joins.same_name_titles(women)
    assert joined(women) == {frozenset({"Princess Mary", "Countess Mary", "Mary"})}
    # resolved whole: a rank said once ("Count Kutuzov") joins his name only by this rule
    forms = [SurfaceForm("Kutuzov", "PERSON", 500, he=200, she=5), SurfaceForm("Prince Kutuzov", "PERSON", 40, he=10),
             SurfaceForm("Count Kutuzov", "PERSON", 1)]
    on = resolve(forms)
    assert together(on, "Kutuzov", "Count Kutuzov") and "same_name_titles" in rules_of(on, "Count Kutuzov")
    assert not together(resolve(forms, off={"same_name_titles"}), "Kutuzov", "Count Kutuzov")


def test_given_name_forms_joins_two_forms_of_one_given_name_in_one_family() -> None:
    forms = [SurfaceForm("Natalie Rostova", "PERSON", 10, she=4), SurfaceForm("Natasha Rostova", "PERSON", 40, she=20),
             SurfaceForm("Henrietta Smith", "PERSON", 10, she=5), SurfaceForm("Henry Smith", "PERSON", 12, he=6)]
    book = prepare(forms, language="en")
    joins.given_name_forms(book)
    assert joined(book) == {frozenset({"Natalie Rostova", "Natasha Rostova"}), frozenset({"Henrietta Smith"}),
                            frozenset({"Henry Smith"})}
    assert rules_of(resolve(forms), "Natalie Rostova") == ["given_name_forms"]
    assert not together(resolve(forms, off={"given_name_forms"}), "Natalie Rostova", "Natasha Rostova")


def _units(*names: str) -> tuple[tuple[str, int], ...]:
    return tuple((name, 2) for name in names)


def test_titled_surname_of_the_unnamed_joins_the_woman_named_without_her_surname() -> None:
    forms = [SurfaceForm("Princess Drubetskaya", "PERSON", 6, units=_units("u1", "u2", "u3")),
             SurfaceForm("Julie Drubetskaya", "PERSON", 2, she=4, units=_units("u40")),
             SurfaceForm("Anna Mikhaylovna", "PERSON", 100, she=30, units=_units("u1", "u2", "u3", "u5")),
             SurfaceForm("Princess Anna Mikhaylovna", "PERSON", 20, units=_units("u1", "u2"))]
    # alone, on the titled form of her name: her title and her chapters are the rule's evidence
    alone = [*forms[:2], SurfaceForm("Princess Anna Mikhaylovna", "PERSON", 120, she=30,
                                     units=_units("u1", "u2", "u3", "u5"))]
    book = prepare(alone, language="en")
    joins.titled_surname_of_the_unnamed(book)
    assert frozenset({"Princess Drubetskaya", "Princess Anna Mikhaylovna"}) in joined(book)
    on = resolve(forms)
    assert together(on, "Princess Drubetskaya", "Anna Mikhaylovna", "Princess Anna Mikhaylovna")
    assert "titled_surname_of_the_unnamed" in rules_of(on, "Princess Drubetskaya")
    assert not together(resolve(forms, off={"titled_surname_of_the_unnamed"}), "Princess Drubetskaya",
                        "Anna Mikhaylovna")


def test_other_forms_of_given_names_joins_a_pet_form_said_in_its_bearers_chapters() -> None:
    forms = [SurfaceForm("Prince Andrew Bolkonski", "PERSON", 30, he=20, units=_units("u1", "u2", "u3", "u4")),
             SurfaceForm("Andrew Kaysarov", "PERSON", 9, he=4, units=_units("u9")),
             SurfaceForm("Andrusha", "PERSON", 5, units=_units("u2", "u3")),
             SurfaceForm("Andel", "PERSON", 5, units=_units("u2", "u3"))]  # three letters shared only
    book = prepare(forms, language="en")
    joins.other_forms_of_given_names(book)
    assert joined(book) == {frozenset({"Prince Andrew Bolkonski", "Andrusha"}), frozenset({"Andrew Kaysarov"}),
                            frozenset({"Andel"})}
    assert rules_of(resolve(forms), "Andrusha") == ["other_forms_of_given_names"]
    assert not together(resolve(forms, off={"other_forms_of_given_names"}), "Andrusha", "Prince Andrew Bolkonski")
