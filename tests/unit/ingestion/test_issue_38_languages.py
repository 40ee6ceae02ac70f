"""Issue 38: a document in a language csillag has no model for is recorded in its language and gets rules only.

German and Russian texts (tests/data/languages, written for these tests) used to be recorded ``en`` and read by the
English model, which found people in German nouns ("Krieg", "Tisch"). The detector is py3langid
(``ingestion.language_id``); the pipeline test runs the generic tool on local Spark over four languages.
"""

from __future__ import annotations

import logging
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ingestion.nlp import NlpSpec
from ingestion.routing import NlpRouting, warn_rules_only
from tests.conftest import CORPORA, ROOT, SAMPLES
from tests.unit.ingestion.tables import read

LANGUAGES = ROOT / "tests" / "data" / "languages"
EGRI = CORPORA / "egri_csillagok.txt"
GERMAN, RUSSIAN, FRENCH = (LANGUAGES / name for name in ("de_heimkehr.txt", "ru_vozvrashchenie.txt", "fr_retour.txt"))


def _rules_only_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "rules only" in r.getMessage()]


def test_issue_38_languages_without_a_model_are_detected_as_themselves() -> None:
    from ingestion.language_id import detect_language

    found = {path.name: detect_language(path.read_text(encoding="utf-8")) for path in (GERMAN, RUSSIAN, FRENCH)}
    assert found == {GERMAN.name: "de", RUSSIAN.name: "ru", FRENCH.name: "fr"}
    assert detect_language((SAMPLES / "en" / "harbour_notes.txt").read_text(encoding="utf-8")) == "en"
    assert detect_language((SAMPLES / "hu" / "a_var_ostroma.txt").read_text(encoding="utf-8")) == "hu"
    # Under 200 words: not judged (the tool's language applies); a name repeated is no language.
    assert detect_language(" ".join(GERMAN.read_text(encoding="utf-8").split()[:150])) is None
    assert detect_language("Dobó " * 300) is None


@pytest.mark.skipif(not EGRI.is_file(), reason=f"Egri csillagok not found at {EGRI}")
def test_issue_38_egri_csillagok_is_still_hungarian_throughout() -> None:
    from ingestion.language_id import detect_language

    text = EGRI.read_text(encoding="utf-8")
    windows = [text[start : start + 20_000] for start in range(0, len(text) - 20_000, len(text) // 12)]
    assert len(windows) >= 12 and {detect_language(window) for window in windows} == {"hu"}


def test_issue_38_one_warning_names_every_language_without_a_model(caplog: pytest.LogCaptureFixture) -> None:
    routing = NlpRouting(NlpSpec(language="en", model="en_core_web_sm", labels=("PERSON",)), detect=True)
    with caplog.at_level(logging.WARNING, logger="ingestion.routing"):
        assert warn_rules_only(routing, Counter({"en": 3, "hu": 1, "de": 2, "ru": 1})) == ["de", "ru"]
    [warning] = _rules_only_warnings(caplog)
    assert "3 document(s)" in warning and "'de' (2)" in warning and "'ru' (1)" in warning


@pytest.mark.spark
def test_issue_38_german_and_russian_get_rules_only_english_and_hungarian_their_models(
    ingest: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for path in (GERMAN, RUSSIAN, SAMPLES / "en" / "harbour_notes.txt", SAMPLES / "hu" / "a_var_ostroma.txt"):
        shutil.copy(path, corpus / path.name)
    with caplog.at_level(logging.WARNING):
        assert ingest([corpus]).status == "succeeded"
    lake = tmp_path / "lake"
    documents = read(lake, "documents")
    language = {Path(d.source).stem: d.language for d in documents.itertuples()}
    assert language == {"de_heimkehr": "de", "ru_vozvrashchenie": "ru", "harbour_notes": "en", "a_var_ostroma": "hu"}
    mentions = read(lake, "mentions")
    model_of = {d.language: set(mentions[mentions.doc_id == d.doc_id].model) for d in documents.itertuples()}
    assert model_of["en"] == {"en_litbank"} and model_of["hu"] == {"hu_nerkor"}
    assert not model_of["de"] and not model_of["ru"]  # no model, and the tool has no patterns: no mention at all
    assert not {"Krieg", "Tisch", "Heinrich Vogel"} & set(mentions.text)
    [warning] = _rules_only_warnings(caplog)
    assert "2 document(s)" in warning and "'de' (1)" in warning and "'ru' (1)" in warning


@pytest.mark.spark
def test_issue_38_a_corpus_only_in_languages_without_a_model_is_run_in_the_tools_language(
    ingest: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Mostly German: name resolution has no German rules, so the run keeps English (it failed on 'de')."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for path in (GERMAN, RUSSIAN):
        shutil.copy(path, corpus / path.name)
    with caplog.at_level(logging.INFO, logger="ingestion"):
        result = ingest([corpus])
    assert result.status == "succeeded", result.reason
    assert sorted(read(tmp_path / "lake", "documents").language) == ["de", "ru"]
    assert not any(r.getMessage().startswith("corpus language:") for r in caplog.records)
    [warning] = _rules_only_warnings(caplog)
    assert "'de' (1)" in warning and "'ru' (1)" in warning
