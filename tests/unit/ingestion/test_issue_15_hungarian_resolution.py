"""Issue 15: who's who in a Hungarian book without a gazetteer — crafted surface forms, one naming case per test.

The cases are the model's own errors on Egri csillagok (docs/quality.md): a sentence-initial verb glued to a name
("Ránézett Gergely"), two names glued from a list ("Gergely Dobó"), a lone surname tagged as a place, and pet names
("Gergő"). The figures of the whole book are in docs/quality.md (``bench/quality_hu.py``).
"""

from __future__ import annotations

from typing import Any

import pytest

from ingestion.names import given_name_variant, hungarian_pet_name
from ingestion.resolution import ResolvedEntity, SurfaceForm, opener_candidates, resolve_entities


def _resolve(*forms: tuple[str, int] | tuple[str, int, str], openers: frozenset[str] = frozenset()
             ) -> dict[str, ResolvedEntity]:
    surface = [SurfaceForm(form[0], form[2] if len(form) > 2 else "PER", form[1]) for form in forms]
    entities, _ = resolve_entities(surface, language="hu", sentence_openers=openers)
    return {alias: entity for entity in entities for alias in entity.aliases}


def test_issue_15_a_sentence_opener_glued_to_a_name_is_dropped() -> None:
    index = _resolve(("Ránézett Gergely", 1), ("Bornemissza Gergely", 20), ("Mikorra Éva", 1), ("Éva", 40),
                     openers=frozenset({"Ránézett", "Mikorra"}))
    assert index["Ránézett Gergely"].entity_id == index["Bornemissza Gergely"].entity_id
    assert index["Mikorra Éva"].entity_id == index["Éva"].entity_id
    assert index["Éva"].canonical_name == "Éva"  # not "Mikorra Éva"
    # without the corpus's word: the span is taken as written (a surname "Ránézett" cannot be ruled out)
    plain = _resolve(("Ránézett Gergely", 1), ("Bornemissza Gergely", 20))
    assert plain["Ránézett Gergely"].entity_id != plain["Bornemissza Gergely"].entity_id


def test_issue_15_a_glued_one_off_is_not_the_canonical_name_but_a_one_off_full_name_is() -> None:
    glued = _resolve(("Jelentkezzél Bornemissza Gergely", 1), ("Bornemissza Gergely", 20))
    assert glued["Jelentkezzél Bornemissza Gergely"].canonical_name == "Bornemissza Gergely"
    # English: a full name seen once beside its recurring surname is the most informative name, not a glued one
    entities, _ = resolve_entities([SurfaceForm("Captain Roderick Vance", "PERSON", 1),
                                    SurfaceForm("Captain Vance", "PERSON", 3), SurfaceForm("Vance", "PERSON", 2)],
                                   language="en")
    assert [e.canonical_name for e in entities] == ["Roderick Vance"]


def test_issue_15_opener_candidates_are_the_capitalised_first_words_of_the_names() -> None:
    forms = [SurfaceForm("Ránézett Gergely", "PER", 1), SurfaceForm("Dobó", "PER", 9),
             SurfaceForm("Bornemissza Gergely", "PER", 2), SurfaceForm("von Toll", "PER", 1)]
    assert opener_candidates(forms, "hu") == {"Ránézett", "Bornemissza", "Dobó"}


def test_issue_14_a_lone_word_capitalised_only_where_a_sentence_starts_is_no_name() -> None:
    # "Bother!" tagged a person: the corpus writes "bother" in lowercase and never capitalises it inside a sentence
    forms = [SurfaceForm("Bother", "PERSON", 2), SurfaceForm("Tom", "PERSON", 9),
             SurfaceForm("Bother Tom", "PERSON", 1)]
    entities, mapping = resolve_entities(forms, language="en", sentence_openers={"Bother"})
    assert ("Bother", "PERSON") not in mapping
    assert [e.canonical_name for e in entities] == ["Tom"]
    assert mapping[("Bother Tom", "PERSON")] == mapping[("Tom", "PERSON")]
    # without that evidence from the corpus it stays a name
    _, mapping = resolve_entities(forms, language="en")
    assert ("Bother", "PERSON") in mapping


def test_issue_15_a_lone_given_name_joins_the_dominant_full_name_in_hungarian_order() -> None:
    # "Gergely" ends "Bornemissza Gergely" (given name last); the NER's "Gergely Dobó" (from "Gergely, Dobó") puts
    # it first: the word's usual role wins, and the one-off "Horváth Gergely" is too weak beside 20 mentions
    index = _resolve(("Gergely", 700), ("Bornemissza Gergely", 20), ("Gergely Dobó", 2), ("Horváth Gergely", 1),
                     ("Dobó", 600), ("Dobó István", 12))
    assert index["Gergely"].entity_id == index["Bornemissza Gergely"].entity_id
    assert index["Gergely"].canonical_name == "Bornemissza Gergely"
    assert index["Horváth Gergely"].entity_id != index["Gergely"].entity_id


def test_issue_15_a_full_name_said_once_with_a_title_still_recurs() -> None:
    # "Bornemissza Gergely úrnál" (once) and "Bornemissza Gergely" (20) are one name: joined under the titled form,
    # the full name's mentions still count, so it stays the lone given name's home and the glued "Gergely Dobó" or
    # the one-off "Horváth Gergely" do not make the given name ambiguous
    forms = [("Gergely", 700), ("Bornemissza Gergely", 20), ("Gergely Dobó", 2), ("Horváth Gergely", 1),
             ("Dobó", 600), ("Dobó István", 12), ("Gergő", 80)]
    index = _resolve(*forms, ("Bornemissza Gergely úr", 1))
    assert index["Bornemissza Gergely úr"].entity_id == index["Bornemissza Gergely"].entity_id
    assert index["Gergely"].entity_id == index["Bornemissza Gergely"].entity_id == index["Gergő"].entity_id
    assert index["Horváth Gergely"].entity_id != index["Gergely"].entity_id
    assert index["Gergely Dobó"].entity_id != index["Gergely"].entity_id
    # the same without the titled form, as the rule above
    plain = _resolve(*forms)
    assert plain["Gergely"].entity_id == plain["Bornemissza Gergely"].entity_id == plain["Gergő"].entity_id


def test_issue_15_a_shared_given_name_stays_apart() -> None:
    # "István" of four men mentioned alike: no home dominates, so it joins none
    index = _resolve(("István", 30), ("Dobó István", 12), ("Mekcsey István", 10), ("Zoltay István", 8),
                     ("Hegedüs István", 6))
    assert len({index[name].entity_id for name in ("István", "Dobó István", "Mekcsey István")}) == 3


def test_issue_15_a_lone_surname_tagged_as_a_place_still_makes_a_full_name() -> None:
    # the model tags the bare surname a place 22 times; the full name, a person 20 times, is not a glued span
    index = _resolve(("Bornemissza", 22, "LOC"), ("Bornemissza Gergely", 20), ("Gergely", 300))
    assert index["Gergely"].entity_id == index["Bornemissza Gergely"].entity_id
    assert index["Bornemissza Gergely"].label == "PER"


@pytest.mark.parametrize(("pet", "name", "expected"), [
    ("gergo", "gergely", True), ("evica", "eva", True), ("tamaska", "tamas", True), ("jancsi", "janos", False),
    ("mari", "marton", False), ("balint", "balazs", False), ("miklos", "mihaly", False),
])
def test_issue_15_hungarian_pet_names_by_word_formation(pet: str, name: str, expected: bool) -> None:
    assert hungarian_pet_name(pet, name) is expected and hungarian_pet_name(name, pet) is expected
    assert given_name_variant(pet, name, "hu") is expected


def test_issue_15_a_pet_name_joins_its_full_given_name_when_one_dominates() -> None:
    index = _resolve(("Gergő", 80), ("Gergely", 700), ("Bornemissza Gergely", 20))
    assert index["Gergő"].entity_id == index["Gergely"].entity_id == index["Bornemissza Gergely"].entity_id
    # English order and English nicknames are untouched by the Hungarian rule
    assert not given_name_variant("gergo", "gergely", "en")


@pytest.mark.spark
def test_issue_15_sentence_openers_from_the_corpus_casing(spark: Any) -> None:
    from ingestion.casing import sentence_openers

    text = ("Ránézett Gergely a falra. Gergely ránézett a toronyra, és Fekete Bálint is.\n"
            "Fekete volt az éjszaka. Aztán fekete felhők jöttek. Hallod, Gergely?\n\nMegint Dobó szólt, és megint.")
    chunks = spark.createDataFrame([(text,)], "text string")
    found = sentence_openers(chunks, {"Ránézett", "Fekete", "Megint", "Hallod", "Aztán"})
    # "Ránézett" and "Megint" (after a blank line) open sentences only and are written in lowercase too;
    # "Fekete" is capitalised inside a sentence as well (a surname); "Hallod" and "Aztán" are never in lowercase
    assert found == {"Ránézett", "Megint"}
    assert sentence_openers(chunks, set()) == set()


@pytest.mark.parametrize(
    ("word", "title"),
    [("uram", "uram"), ("uramnak", "uram"), ("urat", "úr"), ("úrral", "úr"), ("bégnek", "bég"), ("deák", "deák"),
     ("hadnagyot", "hadnagy"), ("Uram", None), ("öreg", None), ("Budára", None), ("nagyon", None)],
)
def test_issue_15_a_title_after_a_name_in_any_case(word: str, title: str | None) -> None:
    from ingestion.normalize import hu_postposed_title

    assert hu_postposed_title(word) == title


def test_issue_15_hungarian_mentions_take_the_title_after_the_name() -> None:
    from ingestion.nlp import NlpSpec, build_nlp, extract_mentions

    # a blank pipeline whose EntityRuler stands in for the model's spans: the span rule is what is tested
    patterns = tuple({"label": "PER", "pattern": name} for name in ("Dobó", "Bálint", "Gergely"))
    spec = NlpSpec(language="hu", patterns=patterns)
    text = "Dobó uramnak szólt Gergely, hogy Bálint urat is várják. Gergely Budára ment."
    mentions = [(m["text"], m["ent_id"], m["end"] - m["start"]) for m in extract_mentions(build_nlp(spec), spec, [
        ("d", "c", 0, text)])]
    assert mentions[0] == ("Dobó uramnak", "Dobó uram", len("Dobó uramnak"))
    assert ("Bálint urat", "Bálint úr", len("Bálint urat")) in mentions
    assert [m for m in mentions if m[0] == "Gergely"] == [("Gergely", "", 7), ("Gergely", "", 7)]  # no title after
    # English spans are not touched
    english = NlpSpec(language="en", patterns=({"label": "PERSON", "pattern": "Dobó"},))
    assert [m["text"] for m in extract_mentions(build_nlp(english), english, [("d", "c", 0, text)])] == ["Dobó"]


def test_issue_15_a_titled_bare_surname_joins_the_dominant_full_name_of_its_sex() -> None:
    # "Dobó uram" makes the bare surname a man's; "Dobó István uram" makes István a man's name; the one-offs the
    # NER glued ("Dobó Hegedüs", "Dobó Bécs") weigh nothing beside the recurring full name
    forms = [("Dobó", 600), ("Dobó uram", 5), ("Dobó István", 12), ("Dobó István uram", 1), ("Dobó Hegedüs", 2),
             ("Dobó Bécs", 2), ("Hegedüs István", 3),
             # the father is "Cecey uram"; his daughter "Cecey Éva", "Éva asszony": never the bare surname's home
             ("Cecey", 86), ("Cecey uram", 4), ("Cecey Éva", 3), ("Éva", 190), ("Éva asszony", 4), ("Cecey Péter", 1)]
    index = _resolve(*forms)
    assert index["Dobó"].entity_id == index["Dobó István"].entity_id == index["Dobó uram"].entity_id
    assert index["Dobó"].canonical_name == "Dobó István"
    assert index["Cecey"].entity_id != index["Cecey Éva"].entity_id
    # without any title the bare surname's sex is unknown: it stays apart, as before
    index = _resolve(*[(text, n) for text, n in forms if "uram" not in text and "asszony" not in text])
    assert index["Dobó"].entity_id != index["Dobó István"].entity_id


def test_issue_15_among_one_off_full_names_the_one_with_a_known_given_name_is_the_bare_surnames() -> None:
    index = _resolve(("Mekcsey", 244), ("Mekcsey István", 1), ("Mekcsey Cece", 1), ("Nono Mekcsey", 1),
                     ("Dobó István", 12), ("Zoltay István", 8), ("Cece", 3))
    assert index["Mekcsey"].entity_id == index["Mekcsey István"].entity_id
    assert index["Mekcsey"].canonical_name == "Mekcsey István"
