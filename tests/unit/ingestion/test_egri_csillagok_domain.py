"""The Egri csillagok gazetteer: data validity, ruler output on real sentences, and a whole-novel count."""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from spacy.language import Language

from ingestion.domains.egri_csillagok import (
    LABELS,
    DomainEntity,
    alias_table,
    build_nlp,
    entity_ruler_patterns,
    load_entities,
)

_DEFAULT_CORPORA = Path(__file__).resolve().parents[3].parent / "shared" / "corpora"
_CORPORA = Path(os.environ.get("CSILLAG_CORPORA_DIR", _DEFAULT_CORPORA))
NOVEL = _CORPORA / "egri_csillagok.txt"
needs_novel = pytest.mark.skipif(not NOVEL.is_file(), reason=f"corpus file {NOVEL} is absent (set CSILLAG_CORPORA_DIR)")


@pytest.fixture(scope="module", params=[True, False], ids=["phrase", "token"])
def nlp(request: pytest.FixtureRequest) -> Language:
    return build_nlp(phrase=request.param)


def _ents(nlp: Language, text: str) -> list[tuple[str, str, str]]:
    return [(ent.text, ent.label_, ent.ent_id_) for ent in nlp(text).ents]


def test_load_entities_has_the_main_cast_and_places() -> None:
    entities = {entity.canonical: entity for entity in load_entities()}
    for name in (
        "Bornemissza Gergely",
        "Dobó István",
        "Mekcsey István",
        "Cecey Éva",
        "Jumurdzsák",
        "Tinódi Sebestyén",
        "Török Bálint",
        "Török János",
        "Sárközi",
        "Zoltay",
        "Hegedűs",
    ):
        assert entities[name].label == "PER"
    for name in ("Eger", "Buda", "Konstantinápoly", "Szigetvár", "Keresztes", "Pécs"):
        assert entities[name].label == "LOC"
    assert sum(e.label == "PER" for e in entities.values()) >= 40
    assert sum(e.label == "LOC" for e in entities.values()) >= 20


def test_domain_entity_rejects_unknown_label() -> None:
    with pytest.raises(ValueError, match="valid labels: PER, LOC, ORG"):
        DomainEntity(canonical="X", label="PERSON", aliases=("X",))


def test_alias_table_surface_forms_belong_to_one_canonical_only() -> None:
    owners: dict[str, set[str]] = {}
    for canonical, forms in alias_table().items():
        for form in forms:
            owners.setdefault(form.lower(), set()).add(canonical)
    clashes = {form: names for form, names in owners.items() if len(names) > 1}
    assert clashes == {}


def test_alias_table_includes_inflected_forms() -> None:
    table = alias_table()
    assert {"Gergelyt", "Gergelynek", "Gergellyel", "Gergelylyel", "Gergőnek"} <= set(table["Bornemissza Gergely"])
    assert {"Évát", "Vicuskát", "Vicuskáé"} <= set(table["Cecey Éva"])
    assert {"Egerbe", "Egerben", "Eger várát"} <= set(table["Eger"])
    assert "Pécsett" in table["Pécs"]


def test_entity_ruler_patterns_phrase_mode_gives_strings_except_case_sensitive() -> None:
    patterns = entity_ruler_patterns(phrase=True)
    strings = {p["pattern"] for p in patterns if isinstance(p["pattern"], str)}
    assert {"Dobó Istvánnak", "Gergelylyel", "Egerbe"} <= strings
    token_ids = {p["id"] for p in patterns if not isinstance(p["pattern"], str)}
    assert token_ids == {e.canonical for e in load_entities() if e.case_sensitive}


def test_entity_ruler_patterns_carry_label_and_canonical_id() -> None:
    patterns = entity_ruler_patterns()
    assert all(p["label"] in LABELS and p["id"] for p in patterns)
    dobo = [p for p in patterns if p["id"] == "Dobó István" and len(p["pattern"]) == 2]
    assert dobo[0]["pattern"][0] == {"LOWER": "dobó"}
    assert "istvánnak" in dobo[0]["pattern"][1]["LOWER"]["IN"]


# Sentences copied from the novel; the expected entities were read off by hand.
@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Gergelynek megvizesedett a gatyácskája, hát ledobta.", [("Gergelynek", "PER", "Bornemissza Gergely")]),
        (
            "A Gergő gyerek apja valamikor kovács volt Pécsett, de már meghalt.",
            [("Gergő", "PER", "Bornemissza Gergely"), ("Pécsett", "LOC", "Pécs")],
        ),
        ("Leszállt a lóról, és vezette Évát, amerre az kivánt menni.", [("Évát", "PER", "Cecey Éva")]),
        (
            "Mekcsey a terem egy sarkába vonta Gergelyt, Fügedyt, Petőt és Zoltayt.",
            [
                ("Mekcsey", "PER", "Mekcsey István"),
                ("Gergelyt", "PER", "Bornemissza Gergely"),
                ("Fügedyt", "PER", "Fügedy"),
                ("Petőt", "PER", "Pető Gáspár"),
                ("Zoltayt", "PER", "Zoltay"),
            ],
        ),
        (
            "A fiaira nézett, akik Gergelylyel az almafa körül kergetőztek.",
            [("Gergelylyel", "PER", "Bornemissza Gergely")],
        ),
        (
            "Nincs is más országút arra, csak az az egy: Pécstől Kaposváron át Székesfejérvárra, onnan meg Budára.",
            [("Pécstől", "LOC", "Pécs"), ("Budára", "LOC", "Buda")],
        ),
        (
            "Gergely törökül kiáltott rájok:  - Török Bálint urat küldjék ki egy szóra!",
            [("Gergely", "PER", "Bornemissza Gergely"), ("Török Bálint urat", "PER", "Török Bálint")],
        ),
        ("Ekközben Bálint pap is hazaérkezett.", [("Bálint pap", "PER", "Bálint pap")]),
        ("Hanem azt a Jumurdsákot vezettesse elő és adjon lovat alá.", [("Jumurdsákot", "PER", "Jumurdzsák")]),
        (
            "Dobó végigpillantott az asztalnál ülőkön, és a tekintete Hegedüsön állott meg.",
            [("Dobó", "PER", "Dobó István"), ("Hegedüsön", "PER", "Hegedűs")],
        ),
        (
            "Se Somogyvárott, se Szigetvárott, se a Török Bálint egyéb kastélyaiban nem bőgött tehén az ablaka alatt.",
            [
                ("Somogyvárott", "LOC", "Somogyvár"),
                ("Szigetvárott", "LOC", "Szigetvár"),
                ("Török Bálint", "PER", "Török Bálint"),
            ],
        ),
        ("A cédrusok, túják és babérfák között virágzott már a liliom, tulipán, a pünkösdi rózsa.", []),
    ],
)
def test_build_nlp_ruler_finds_entities_in_novel_sentences(nlp: Language, sentence: str, expected: list) -> None:
    assert _ents(nlp, sentence) == expected


def test_build_nlp_has_sentencizer_and_ruler(nlp: Language) -> None:
    assert nlp.pipe_names == ["sentencizer", "entity_ruler"]
    doc = nlp("Dobó Egerbe ment. Mekcsey Budán maradt.")
    assert len(list(doc.sents)) == 2


@pytest.mark.corpus
@needs_novel
def test_load_entities_every_alias_is_attested_in_the_novel() -> None:
    text = NOVEL.read_text(encoding="utf-8")
    words = set(re.findall(r"\w+", text))
    pairs = set(re.findall(r"(?=\b(\w+ \w+)\b)", text))
    triples = set(re.findall(r"(?=\b(\w+ \w+ \w+)\b)", text))
    vocabulary = {1: words, 2: pairs, 3: triples}
    missing = []
    for entity in load_entities():
        for alias in entity.aliases:
            size = len(alias.split())
            if not any(form in vocabulary[size] for form in entity.surface_forms(alias)):
                missing.append(alias)
    assert missing == []


@pytest.mark.corpus
@needs_novel
def test_build_nlp_counts_top_character_mentions_over_the_novel() -> None:
    nlp = build_nlp()
    text = NOVEL.read_text(encoding="utf-8")
    paragraphs = [line for line in text.split("\n") if line.strip()]
    started = time.perf_counter()
    counts: Counter[str] = Counter()
    for doc in nlp.pipe(paragraphs, batch_size=256):
        counts.update(ent.ent_id_ for ent in doc.ents if ent.label_ == "PER")
    elapsed = time.perf_counter() - started
    top10 = counts.most_common(10)
    print(f"\nEgri csillagok, {elapsed:.1f}s: top 10 characters by ruler mentions:")
    for name, count in top10:
        print(f"  {count:5d}  {name}")
    assert elapsed < 60
    assert [name for name, _ in top10[:3]] == ["Bornemissza Gergely", "Dobó István", "Mekcsey István"]
    # Independent floor: a plain regex over name stems (any ending) must not beat the ruler by much.
    floors = {
        "Bornemissza Gergely": r"\b(?:Gergely|Gergő)\w*",
        "Dobó István": r"\bDobó\w*",
        "Mekcsey István": r"\bMekcsey\w*",
        "Jumurdzsák": r"\bJumurdsák\w*",
    }
    for name, stem in floors.items():
        assert counts[name] >= 0.95 * len(re.findall(stem, text)), name


@pytest.mark.corpus
@needs_novel
def test_build_nlp_phrase_and_token_rulers_agree_on_part_one() -> None:
    text = NOVEL.read_text(encoding="utf-8")
    part_one = text[: text.index("MÁSODIK RÉSZ")]
    paragraphs = [line for line in part_one.split("\n") if line.strip()]
    results = []
    for phrase in (True, False):
        docs = build_nlp(phrase=phrase).pipe(paragraphs, batch_size=256)
        results.append([(i, e.start, e.end, e.label_, e.ent_id_) for i, doc in enumerate(docs) for e in doc.ents])
    assert len(results[0]) > 300  # part one is about a tenth of the novel
    assert results[0] == results[1]
