"""The rules that label entities (``ingestion.resolution.rules.naming``): alone on crafted forms, and switched off."""

from __future__ import annotations

from ingestion.resolution import SurfaceForm, prepare
from ingestion.resolution.rules import naming

from .crafted import label_of, people, resolve


def _kept_forms(forms: list[SurfaceForm], language: str = "en") -> list:
    return [form for group in prepare(forms, language=language).groups for form in group.forms]


def test_families_labels_a_surname_in_the_plural() -> None:
    forms = people(("Julie Karagina", 40), ("Karagins", 9), ("Mary Smith", 5), ("Marys", 2), ("Holmes", 50),
                   ("Sherlock Holmes", 6))
    assert naming.families(_kept_forms(forms)) == {"karagins"}  # "the two Marys" is a given name; "Holmes" one man
    hungarian = people(("Cecey Péter", 20), ("Ceceyék", 4), label="PER")
    assert naming.families(_kept_forms(hungarian, "hu")) == {"ceceyek"}
    assert label_of(resolve(forms), "Karagins") == "FAMILY"
    assert label_of(resolve(forms, off={"families"}), "Karagins") == "PERSON"


def test_deities_label_a_name_invoked_in_oaths() -> None:
    forms = [SurfaceForm("God", "PERSON", 220, sworn=74), SurfaceForm("Natasha", "PERSON", 1200, sworn=40),
             SurfaceForm("Madame de Genlis", "PERSON", 4, sworn=3)]
    by_text = {form.text: form for form in _kept_forms(forms)}
    assert naming.deities([by_text["God"]])
    assert not naming.deities([by_text["Natasha"]]) and not naming.deities([by_text["Madame de Genlis"]])
    assert (label_of(resolve(forms), "God"), label_of(resolve(forms), "Natasha")) == ("DEITY", "PERSON")
    assert label_of(resolve(forms, off={"deities"}), "God") == "PERSON"
