"""The place-gazetteer flag of the Hungarian NER (ingestion.hu_places) and the script that builds its list."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ingestion import hu_places
from ingestion.hu_places import PLACE_ATTR, add_place_flag, names_place

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture()
def listed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small crafted gazetteer in place of the shipped one."""
    monkeypatch.setattr(hu_places, "places", lambda: frozenset({"Kassa", "Eger", "Pest", "Pécs", "Ág", "Szeged"}))


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("Kassa", True),
        ("Kassára", True),  # the stem's final a lengthened before the ending
        ("Egerben", True),
        ("Egerrel", True),  # the instrumental assimilated: the consonant doubled
        ("Pesttel", True),
        ("Pécsett", True),  # the locative -ett of some towns
        ("Szegeden", True),
        ("kassára", False),  # a place name is written with a capital
        ("Kassai", False),  # the adjective in -i is no case ending
        ("Egerek", False),  # a plural is no place
        ("Ágban", False),  # a listed name shorter than three letters only as it stands
        ("Ág", True),
        ("Gergely", False),
    ],
)
def test_names_place_listed_names_and_their_case_endings(listed: None, word: str, expected: bool) -> None:
    assert names_place(word) is expected


def test_shipped_gazetteer_names_places_of_the_novels() -> None:
    for word in ("Budapesten", "Kolozsvárt", "Pozsonyba", "Temesváron", "Magyarországon", "Bécsből"):
        assert names_place(word), word
    assert not names_place("Zoltán")  # a village in the package's lists, but first a given name: left out


def test_add_place_flag_feeds_the_flag_to_a_doc_array(listed: None) -> None:
    import spacy

    nlp = spacy.blank("hu")
    before = nlp.make_doc("Kassa")  # a lexeme made before the flag is installed gets it too
    add_place_flag(nlp)
    doc = nlp.make_doc("Gergely Kassára ment , Kassa messze van")
    assert doc.to_array([PLACE_ATTR]).tolist() == [0, 1, 0, 0, 1, 0, 0]
    assert before[0].check_flag(hu_places.PLACE_FLAG)


def test_build_hu_places_keeps_one_word_places_less_personal_names(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    from build_hu_places import collect

    fake = SimpleNamespace(
        telepules=["Eger", "Zoltán", "Nagy"], megye=["Heves"], folyo=["Duna", "Kis-Duna"],
        hatarontuli=[{"Kassa": {"mai_hivatalos_nev": "Košice", "orszag": "SK"}}],
        orszag={"Bosznia és Hercegovina": "Szarajevó", "Ausztria": "Bécs"},
        keresztnev_v=["Zoltán"], vezeteknev=["Nagy"],
    )
    assert collect(fake) == {"Eger", "Heves", "Duna", "Kis-Duna", "Kassa", "Szarajevó", "Ausztria", "Bécs"}
