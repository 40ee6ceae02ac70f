"""Two adjacent Hungarian names read as one person's span are split by the base-form component.

"Tengelyi Völgyesyvel szólt" (Tengelyi spoke with Völgyesy): the model reads one PER span, whose one key would join
the two men. The rules here are learned from a handful of crafted (form, lemma) pairs, as the shipped model learns
them from NerKor, so the tests check the splitting, not the shipped table.
"""

from __future__ import annotations

from typing import Any

import pytest
import spacy
from spacy.tokens import Doc, Span

from ingestion.baseform import FACTORY, SuffixRules, name_starts, register

PAIRS = [
    ("Jónásnak", "Jónás"),
    ("Istvánnak", "István"),
    ("Völgyesyvel", "Völgyesy"),
    ("Rétyvel", "Réty"),
    ("Tengelyitől", "Tengelyi"),
    ("Kovácsot", "Kovács"),
    ("Kováccsal", "Kovács"),
    ("Gergellyel", "Gergely"),
    # most names in a text are nominative, so the rules' default is to leave a word as it is
    *((name, name) for name in ("Dobó", "Tengelyi", "Völgyesy", "Macskaházy", "Réty", "Kovács", "István", "Eger")),
]


@pytest.fixture(scope="module")
def rules() -> SuffixRules:
    return SuffixRules.learn(PAIRS)


@pytest.fixture(scope="module")
def nlp(rules: SuffixRules) -> Any:
    register()
    pipeline = spacy.blank("hu")
    pipeline.add_pipe(FACTORY).rules = rules
    return pipeline


def _run(nlp: Any, words: list[str], ents: list[tuple[int, int, str, str]]) -> list[tuple[str, str, str]]:
    """The component on a doc of ``words`` with ``ents`` (start, end, label, ent_id) set; (text, label, key)."""
    doc = Doc(nlp.vocab, words=words)
    doc.ents = [Span(doc, start, end, label=label, span_id=key) for start, end, label, key in ents]
    doc = nlp.get_pipe(FACTORY)(doc)
    return [(ent.text, ent.label_, ent.ent_id_) for ent in doc.ents]


def test_an_inflected_word_inside_a_persons_span_ends_a_name(rules: SuffixRules) -> None:
    assert name_starts(["Jónásnak", "Rétyvel"], rules) == [1]
    assert name_starts(["Kováccsal", "Péter"], rules) == [1]  # the assimilated -val/-vel counts too


def test_an_old_spelling_family_name_after_a_family_name_begins_a_name(rules: SuffixRules) -> None:
    assert name_starts(["Tengelyi", "Völgyesyvel"], rules) == [1]
    assert name_starts(["Macskaházy", "Völgyesytől"], rules) == [1]
    assert name_starts(["Podolini", "Malatinszky"], rules) == []  # in the nominative: one family and its place


def test_one_persons_name_is_never_split(rules: SuffixRules) -> None:
    assert name_starts(["Dobó", "Istvánnak"], rules) == []  # family name, then the inflected given name
    assert name_starts(["Bornemissza", "Gergellyel"], rules) == []
    assert name_starts(["Tengelyi", "Jónásnak"], rules) == []  # a given name after a family name in -i
    assert name_starts(["Jónásnak", "úr"], rules) == []  # a lowercase title follows the name
    # "-ot" is an accusative the rules strip from "Kovácsot", but too short to tell from a name's own ending
    assert name_starts(["Margot", "Kovács"], rules) == []
    assert name_starts(["John", "Kennedy"], rules) == []  # a given name does not end in -i


def test_the_component_splits_the_span_and_keys_each_name_by_its_base_form(nlp: Any) -> None:
    words = ["Tengelyi", "Völgyesyvel", "szólt", ",", "Dobó", "Istvánnak", "írt"]
    got = _run(nlp, words, [(0, 2, "PER", ""), (4, 6, "PER", "")])
    assert got == [
        ("Tengelyi", "PER", ""),
        ("Völgyesyvel", "PER", "Völgyesy"),
        ("Dobó Istvánnak", "PER", "Dobó István"),
    ]
    words = ["Jónásnak", "Rétyvel", "Kovácsot", "mondta"]  # each inflected word ends a name
    assert _run(nlp, words, [(0, 3, "PER", "")]) == [
        ("Jónásnak", "PER", "Jónás"),
        ("Rétyvel", "PER", "Réty"),
        ("Kovácsot", "PER", "Kovács"),
    ]


def test_places_and_names_from_the_domains_list_are_left_whole(nlp: Any) -> None:
    words = ["Tengelyi", "Völgyesyvel", "ment"]
    assert _run(nlp, words, [(0, 2, "LOC", "")]) == [("Tengelyi Völgyesyvel", "LOC", "Tengelyi Völgyesy")]
    assert _run(nlp, words, [(0, 2, "PER", "Tengelyi Völgyesy")]) == [
        ("Tengelyi Völgyesyvel", "PER", "Tengelyi Völgyesy")
    ]
