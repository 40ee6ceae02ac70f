"""The rules on single forms (``ingestion.resolution.rules.forms``): each alone on crafted forms, and switched off."""

from __future__ import annotations

from collections import Counter

from ingestion.alias_table import AliasTable
from ingestion.resolution import SurfaceForm
from ingestion.resolution.forms import Form, parse
from ingestion.resolution.language import LANGUAGES
from ingestion.resolution.rules import forms as rules

from .crafted import clusters, label_of, people, resolve, together

EN, HU = LANGUAGES["en"], LANGUAGES["hu"]


def _form(text: str, language=EN, family: str = "PERSON", **context: int) -> Form:
    form = parse(text, Counter({"PERSON" if family == "PERSON" else "GPE": 10}), language)
    form.family = family
    form.context = Counter(context)
    return form


def test_not_a_name_keeps_out_lowercase_words_and_addresses_in_english_only() -> None:
    forms = [_form(text) for text in ("one", "Serene Highness", "My Lord", "Thou", "Pierre", "Grace")]
    assert [form.text for form in rules.not_a_name(forms, EN)] == ["Pierre", "Grace"]
    hungarian = [_form("törökök", HU), _form("Gergely", HU)]
    assert rules.not_a_name(hungarian, HU) == hungarian  # Hungarian writes peoples in lowercase


def test_not_a_name_switched_off_lets_every_form_through() -> None:
    forms = people(("one", 25), ("Serene Highness", 4), ("Pierre", 40))
    assert {text for cluster in clusters(resolve(forms)) for text in cluster} == {"Pierre"}
    assert {text for cluster in clusters(resolve(forms, off={"not_a_name"})) for text in cluster} == {
        "one", "Serene Highness", "Pierre"}


def test_hungarian_suffixes_key_a_suffixed_name_by_its_attested_stem() -> None:
    forms = [_form("Gergely", HU), _form("Gergelynek", HU), _form("Katalinnak", HU)]
    rules.hungarian_suffixes(forms, AliasTable(()))
    assert [form.tokens for form in forms] == [["gergely"], ["gergely"], ["katalinnak"]]  # "Katalin" is not attested
    assert forms[1].display == "Gergely"
    suffixed = people(("Gergely", 300), ("Gergelynek", 5), label="PER")
    assert together(resolve(suffixed, "hu"), "Gergely", "Gergelynek")
    assert not together(resolve(suffixed, "hu", off={"hungarian_suffixes"}), "Gergely", "Gergelynek")


def test_said_where_a_place_is_makes_a_place_of_a_person_said_where_places_are() -> None:
    tilsit, natasha = _form("Tilsit"), _form("Natasha")
    votes = {"tilsit": Counter({"PERSON": 10}), "natasha": Counter({"PERSON": 300})}
    context = {"tilsit": Counter(located=8), "natasha": Counter(located=4, spoken=60)}
    rules.said_where_a_place_is([tilsit, natasha], EN, votes, context)
    assert (tilsit.family, natasha.family) == ("LOC", "PERSON")
    forms = [SurfaceForm("Tilsit", "PERSON", 10, located=8), SurfaceForm("Natasha", "PERSON", 300, located=4,
                                                                         spoken=60)]
    assert label_of(resolve(forms), "Tilsit") == "LOC"  # no place label of its own: the family's name
    assert label_of(resolve(forms, off={"said_where_a_place_is"}), "Tilsit") == "PERSON"


def test_titled_is_a_person_makes_every_form_of_a_titled_name_a_person() -> None:
    telyanin, titled = _form("Telyanin", family="LOC"), _form("Lieutenant Telyanin")
    rules.titled_is_a_person([telyanin, titled], EN)
    assert telyanin.family == "PERSON"
    forms = [SurfaceForm("Telyanin", "GPE", 27), SurfaceForm("Lieutenant Telyanin", "PERSON", 1)]
    assert together(resolve(forms), "Telyanin", "Lieutenant Telyanin")
    off = resolve(forms, off={"titled_is_a_person"})
    assert not together(off, "Telyanin", "Lieutenant Telyanin") and label_of(off, "Telyanin") == "GPE"


def test_titled_is_a_person_leaves_a_place_said_where_places_are_far_more_often_than_titled() -> None:
    battersby, lord = _form("Battersby", family="LOC"), _form("Lord Battersby")
    lord.labels = Counter({"PERSON": 1})
    votes = {"battersby": Counter({"PERSON": 77}), "lord battersby": Counter({"PERSON": 1})}
    context = {"battersby": Counter(located=18)}
    rules.titled_is_a_person([battersby, lord], EN, votes, context)
    assert (battersby.family, lord.family) == ("LOC", "PERSON")
    forms = [SurfaceForm("Battersby", "PERSON", 77, located=18), SurfaceForm("Lord Battersby", "PERSON", 1)]
    assert label_of(resolve(forms), "Battersby") == "LOC" and label_of(resolve(forms), "Lord Battersby") == "PERSON"
    # titled a third as often as said somewhere: the titles stand ("Count Kochubey", 3, beside "at Kochubey", 4)
    kochubey = [SurfaceForm("Kochubey", "PERSON", 10, located=4), SurfaceForm("Count Kochubey", "PERSON", 3)]
    assert label_of(resolve(kochubey), "Kochubey") == "PERSON"
    off = resolve(forms, off={"titled_is_a_person"})
    assert label_of(off, "Battersby") == "LOC" and label_of(off, "Lord Battersby") == "PERSON"
    assert label_of(resolve(forms, off={"said_where_a_place_is"}), "Battersby") == "PERSON"


def test_place_words_makes_a_place_of_a_name_ending_in_a_kind_of_place() -> None:
    wold, rectory, bank = _form("Chesney Wold"), _form("Crampsford Rectory"), _form("Mill Pond Bank")
    john, peter, mister = _form("John Hall"), _form("Peter Wood"), _form("Mr. Wood")
    sir, milt, dale = _form("Sir Arthur Grange"), _form("Milt Dale"), _form("Dale")  # "Dale" alone is someone
    forms = [wold, rectory, bank, john, peter, mister, sir, milt, dale]
    rules.place_words(forms, EN)
    assert {form.text for form in forms if form.family == "LOC"} == {"Chesney Wold", "Crampsford Rectory",
                                                                     "Mill Pond Bank"}
    crafted = people(("Chesney Wold", 50), ("Sir Leicester Dedlock", 80), ("John Hall", 6))
    assert label_of(resolve(crafted), "Chesney Wold") == "LOC"
    assert label_of(resolve(crafted), "John Hall") == "PERSON"
    assert label_of(resolve(crafted, off={"place_words"}), "Chesney Wold") == "PERSON"
    hungarian = [_form("Kovács Hall", HU)]  # English head nouns say nothing of Hungarian names
    rules.place_words(hungarian, HU)
    assert hungarian[0].family == "PERSON"


def test_name_words_are_people_makes_a_person_of_a_word_opening_a_recurring_full_name() -> None:
    natasha, full, moscow = _form("Natasha", family="LOC"), _form("Natasha Rostova"), _form("Moscow", family="LOC")
    rules.name_words_are_people([natasha, full, moscow], EN)
    assert (natasha.family, moscow.family) == ("PERSON", "LOC")
    forms = [SurfaceForm("Bornemissza", "LOC", 22), SurfaceForm("Bornemissza Gergely", "PER", 20),
             SurfaceForm("Gergely", "PER", 300)]
    assert together(resolve(forms, "hu"), "Bornemissza", "Bornemissza Gergely")
    assert not together(resolve(forms, "hu", off={"name_words_are_people"}), "Bornemissza", "Bornemissza Gergely")


def test_vessels_make_a_ship_of_a_name_said_after_a_vessels_kind() -> None:
    marianne, miss = _form("Marianne", family="LOC", vessel=2), _form("Miss Marianne", vessel=2)
    votes = {"marianne": Counter({"LOC": 5}), "miss marianne": Counter({"PERSON": 5})}
    context = {"marianne": Counter(vessel=2), "miss marianne": Counter(vessel=2)}
    rules.vessels([marianne, miss], EN, {"Marianne": (7, 5)}, votes, context)
    assert (marianne.family, miss.family) == ("VEH", "PERSON")  # a person's title keeps a person
    forms = [SurfaceForm("Jim", "PERSON", 15, vessel=2), SurfaceForm("Marianne", "GPE", 5, vessel=2)]
    usage = {"Jim": (15, 0), "Marianne": (7, 5)}  # "the Marianne"; never "the Jim"
    on = resolve(forms, article_usage=usage)
    assert (label_of(on, "Marianne"), label_of(on, "Jim")) == ("VEH", "PERSON")
    assert label_of(resolve(forms, off={"vessels"}, article_usage=usage), "Marianne") == "GPE"


def test_respell_keys_a_rare_spelling_by_the_usual_one() -> None:
    usual, rare = _form("Bonaparte"), _form("Buonaparte")
    usual.name_tokens, rare.name_tokens = ("bonaparte",), ("buonaparte",)
    usual.labels, rare.labels = Counter(PERSON=80), Counter(PERSON=7)
    rules.respell([usual, rare])
    assert rare.name_tokens == ("bonaparte",)
    forms = people(("Bonaparte", 80), ("Buonaparte", 7))
    assert together(resolve(forms), "Bonaparte", "Buonaparte")
    assert not together(resolve(forms, off={"respell"}), "Bonaparte", "Buonaparte")


def test_common_nouns_drop_or_relabel_a_word_mostly_said_after_an_article() -> None:
    frenchman, pierre = _form("Frenchman"), _form("Pierre")
    for form in (frenchman, pierre):
        form.name_tokens = tuple(form.tokens)
    usage = {"Frenchman": (99, 80), "Pierre": (2000, 12)}
    assert rules.common_nouns([frenchman, pierre], set(), AliasTable(()), usage) == [pierre]
    forms = [SurfaceForm("Frenchman", "PERSON", 21), SurfaceForm("Kremlin", "PERSON", 5),
             SurfaceForm("Kremlin", "GPE", 2), SurfaceForm("Pierre", "PERSON", 300)]
    usage = {"Frenchman": (99, 80), "Kremlin": (28, 25), "Pierre": (2000, 12)}
    on = resolve(forms, article_usage=usage)
    assert ("Frenchman", "PERSON") not in on.mapping and label_of(on, "Kremlin") == "GPE"
    off = resolve(forms, off={"common_nouns"}, article_usage=usage)
    assert label_of(off, "Frenchman") == label_of(off, "Kremlin") == "PERSON"


def test_parents_by_role_keeps_out_words_for_a_parent_in_english_only() -> None:
    texts = ("Papa", "Chere Mamma", "Ma", "Mum", "Mother", "Mother Hubbard", "Ma Joad", "Marmee", "Grandpa", "Pierre")
    kept = [form.text for form in rules.parents_by_role([_form(text) for text in texts], EN)]
    assert kept == ["Mother Hubbard", "Ma Joad", "Marmee", "Grandpa", "Pierre"]
    hungarian = [_form("Mama", HU)]
    assert rules.parents_by_role(hungarian, HU) == hungarian
    forms = people(("Papa", 40), ("Mamma", 30), ("Pierre", 20))
    assert {text for cluster in clusters(resolve(forms)) for text in cluster} == {"Pierre"}
    assert together(resolve(forms, off={"parents_by_role"}), "Papa")
