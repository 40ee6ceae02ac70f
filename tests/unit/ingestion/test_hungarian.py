"""Hungarian name inflection: expectations written by hand from Hungarian grammar, checked against the novel."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingestion.domains.hungarian import CASES, Harmony, case_forms, ends_in_vowel, harmony, inflect

# Hand-written paradigms. Each row: word, then the expected form for each case in this order.
_ORDER = (
    "accusative dative inessive illative elative sublative delative superessive "
    "allative ablative adessive possessive terminative translative causal instrumental"
).split()
_PARADIGMS = {
    "Gergely": (
        "Gergelyt Gergelynek Gergelyben Gergelybe Gergelyből Gergelyre Gergelyről Gergelyen "
        "Gergelyhez Gergelytől Gergelynél Gergelyé Gergelyig Gergellyé Gergelyért Gergellyel"
    ).split(),
    "Dobó": (
        "Dobót Dobónak Dobóban Dobóba Dobóból Dobóra Dobóról Dobón "
        "Dobóhoz Dobótól Dobónál Dobóé Dobóig Dobóvá Dobóért Dobóval"
    ).split(),
    "Eger": (
        "Egert Egernek Egerben Egerbe Egerből Egerre Egerről Egeren "
        "Egerhez Egertől Egernél Egeré Egerig Egerré Egerért Egerrel"
    ).split(),
    "Éva": (
        "Évát Évának Évában Évába Évából Évára Éváról Éván Évához Évától Évánál Éváé Éváig Évává Éváért Évával"
    ).split(),
    "Mekcsey": (
        "Mekcseyt Mekcseynek Mekcseyben Mekcseybe Mekcseyből Mekcseyre Mekcseyről Mekcseyn "
        "Mekcseyhez Mekcseytől Mekcseynél Mekcseyé Mekcseyig Mekcseyvé Mekcseyért Mekcseyvel"
    ).split(),
    "Buda": (
        "Budát Budának Budában Budába Budából Budára Budáról Budán "
        "Budához Budától Budánál Budáé Budáig Budává Budáért Budával"
    ).split(),
    "Pécs": (
        "Pécset Pécsnek Pécsben Pécsbe Pécsből Pécsre Pécsről Pécsen "
        "Pécshez Pécstől Pécsnél Pécsé Pécsig Péccsé Pécsért Péccsel"
    ).split(),
    "Jumurdzsák": (
        "Jumurdzsákot Jumurdzsáknak Jumurdzsákban Jumurdzsákba Jumurdzsákból Jumurdzsákra Jumurdzsákról Jumurdzsákon "
        "Jumurdzsákhoz Jumurdzsáktól Jumurdzsáknál Jumurdzsáké Jumurdzsákig Jumurdzsákká Jumurdzsákért Jumurdzsákkal"
    ).split(),
    "Török": (
        "Törököt Töröknek Törökben Törökbe Törökből Törökre Törökről Törökön "
        "Törökhöz Töröktől Töröknél Töröké Törökig Törökké Törökért Törökkel"
    ).split(),
}


@pytest.mark.parametrize("word", sorted(_PARADIGMS))
def test_case_forms_match_hand_written_paradigm(word: str) -> None:
    forms = case_forms(word)
    produced = [forms[case][0] for case in _ORDER]
    assert produced == _PARADIGMS[word]
    assert forms["nominative"] == [word]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("Gergely", Harmony.FRONT),
        ("Dobó", Harmony.BACK),
        ("Török", Harmony.FRONT_ROUNDED),
        ("Bálint", Harmony.BACK),
        ("Pécs", Harmony.FRONT),
        ("Zoltay", Harmony.BACK),
        ("Mekcsey", Harmony.FRONT),
        ("Szarvaskő", Harmony.FRONT_ROUNDED),
        ("Sárközi", Harmony.FRONT),
        ("Hegedüs", Harmony.FRONT_ROUNDED),
        ("Szent-György", Harmony.FRONT_ROUNDED),
    ],
)
def test_harmony_classifies_names(word: str, expected: Harmony) -> None:
    assert harmony(word) is expected


def test_ends_in_vowel_treats_old_final_y_as_vowel_but_not_digraphs() -> None:
    assert ends_in_vowel("Tinódy") and ends_in_vowel("Zoltay") and ends_in_vowel("Mekcsey")
    assert not ends_in_vowel("Gergely") and not ends_in_vowel("Héttorony") and not ends_in_vowel("Nagy")


def test_case_forms_lengthen_final_a_and_e() -> None:
    assert case_forms("Vicuska")["accusative"] == ["Vicuskát"]
    assert case_forms("Vicuska")["possessive"] == ["Vicuskáé"]
    assert case_forms("Imre")["dative"] == ["Imrének"]


def test_case_forms_accusative_linking_vowel_after_stops_and_clusters() -> None:
    assert case_forms("Bálint")["accusative"] == ["Bálintot"]
    assert case_forms("Pest")["accusative"] == ["Pestet"]
    assert case_forms("Szelim")["accusative"] == ["Szelimet"]
    assert case_forms("Tamás")["accusative"] == ["Tamást"]
    assert case_forms("Konstantinápoly")["accusative"] == ["Konstantinápolyt"]


def test_case_forms_instrumental_assimilation_variants() -> None:
    assert case_forms("Bálint")["instrumental"] == ["Bálinttal"]
    assert case_forms("Lukács")["instrumental"] == ["Lukáccsal"]
    assert case_forms("Balogh")["instrumental"] == ["Baloghgal"]
    assert case_forms("Kiss")["instrumental"] == ["Kiss-sel"]
    assert case_forms("Zoltay")["instrumental"] == ["Zoltayval"]


def test_case_forms_archaic_adds_1909_digraph_doubling() -> None:
    assert case_forms("Gergely", archaic=True)["instrumental"] == ["Gergellyel", "Gergelylyel"]
    assert case_forms("Lukács", archaic=True)["instrumental"] == ["Lukáccsal", "Lukácscsal"]
    assert case_forms("Gergely")["instrumental"] == ["Gergellyel"]


def test_case_forms_place_adds_locative_and_drops_family_form() -> None:
    place = case_forms("Pécs", place=True)
    assert place["locative"] == ["Pécsett"]
    assert "family" not in place
    assert case_forms("Szigetvár", place=True)["locative"] == ["Szigetvárott"]
    assert "locative" not in case_forms("Buda", place=True)
    assert case_forms("Gergely")["family"] == ["Gergelyék"]


def test_case_forms_rejects_multi_token_input() -> None:
    with pytest.raises(ValueError, match="Dobó István"):
        case_forms("Dobó István")


def test_inflect_changes_only_the_last_token_and_starts_with_base() -> None:
    forms = inflect("Dobó István")
    assert forms[0] == "Dobó István"
    assert "Dobó Istvánnak" in forms and "Dobó Istvánt" in forms and "Dobó Istvánnal" in forms
    assert all(form.startswith("Dobó ") for form in forms)
    assert len(forms) == len(set(forms))
    assert len(forms) == len(CASES) + 1  # one form per case plus the family form "-ék"


def test_inflect_rejects_blank_name() -> None:
    with pytest.raises(ValueError, match="non-blank"):
        inflect("   ")


def test_case_forms_title_word_ur_lowers_its_stem_before_accusative() -> None:
    assert inflect("Bálint úr")[:2] == ["Bálint úr", "Bálint urat"]
    assert case_forms("ur")["accusative"] == ["urat"]
    assert case_forms("úr")["instrumental"] == ["úrral"]
    assert case_forms("uram")["accusative"] == ["uramat"]


# Inflected forms found by grep in the 1909 text of Egri csillagok (word, is it a place, forms seen).
_ATTESTED = {
    "Gergely": (False, "Gergelynek Gergelyt Gergelyre Gergelyhez Gergelylyel Gergelyék Gergelytől Gergelyé Gergelyért"),
    "Dobó": (False, "Dobónak Dobót Dobóra Dobóhoz Dobótól Dobóék Dobón Dobóban"),
    "Mekcsey": (False, "Mekcseynek Mekcseyt Mekcseyre Mekcseyvel Mekcseyhez Mekcseyn Mekcseyé Mekcseynél Mekcseyért"),
    "Zoltay": (False, "Zoltaynak Zoltayt Zoltayra Zoltayba Zoltayval"),
    "Hegedüs": (False, "Hegedüsre Hegedüst Hegedüsnek Hegedüsön"),
    "Bálint": (False, "Bálintot Bálintnak Bálinthoz Bálintra Bálinték Bálinttal Bálinton"),
    "Lukács": (False, "Lukácsot Lukácscsal Lukácsnak Lukácsra"),
    "Vicuska": (False, "Vicuskának Vicuskát Vicuskára Vicuskáé"),
    "Éva": (False, "Évát Évának Évára"),
    "Eger": (True, "Egerbe Egert Egerből Egerben Egertől Egernél Egerig Egerre Egerért Egerről"),
    "Buda": (True, "Budára Budán Budát Budáról"),
    "Pécs": (True, "Pécsnek Pécstől Pécsett Pécsre Pécsig"),
    "Szarvaskő": (True, "Szarvaskőn Szarvaskőre Szarvaskőből Szarvaskőbe Szarvaskőig"),
    "Szigetvár": (True, "Szigetvárott Szigetvárra Szigetvárt"),
    "Konstantinápoly": (True, "Konstantinápolyban Konstantinápolyba Konstantinápolyt Konstantinápolytól"),
}


@pytest.mark.parametrize("word", sorted(_ATTESTED))
def test_inflect_generates_forms_attested_in_the_novel(word: str) -> None:
    place, forms = _ATTESTED[word]
    generated = set(inflect(word, archaic=True, place=place))
    assert set(forms.split()) - generated == set()


@pytest.mark.corpus
def test_attested_forms_really_occur_in_the_novel() -> None:
    default_corpora = Path(__file__).resolve().parents[3].parent / "shared" / "corpora"
    novel = Path(os.environ.get("CSILLAG_CORPORA_DIR", default_corpora)) / "egri_csillagok.txt"
    if not novel.is_file():
        pytest.skip(f"corpus file {novel} is absent")
    words = set(novel.read_text(encoding="utf-8").split())
    words |= {word.strip(".,;:!?-–\"'()") for word in words}
    for _, forms in _ATTESTED.values():
        assert set(forms.split()) - words == set()
