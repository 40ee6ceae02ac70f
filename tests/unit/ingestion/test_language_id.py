"""The language detector's feature counts computed by numpy (``ingestion.language_id.window_visits``) are py3langid's
own, in the same order, so every text scores exactly as py3langid scores it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import CORPORA, ROOT, SAMPLES


@pytest.fixture(scope="module")
def py3langid_itself() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _texts() -> list[str]:
    """Texts of five languages, whole and in 20,000-character windows of the novels, and edge cases: nothing, one
    byte, digits, capitals only (py3langid lower-cases them), a text shorter than the window."""
    files = [*sorted((ROOT / "tests" / "data" / "languages").glob("*.txt")), *sorted(SAMPLES.glob("*/*"))]
    texts = [path.read_text(encoding="utf-8") for path in files if path.suffix in (".txt", ".md")]
    for novel in ("war_and_peace.txt", "egri_csillagok.txt"):
        if (CORPORA / novel).exists():
            whole = (CORPORA / novel).read_text(encoding="utf-8")
            texts += [whole[at : at + 20_000] for at in range(0, len(whole), len(whole) // 25)]
    return [*texts, "", "a", "12345 678", "THE OLD MAN SAID NOTHING AT ALL.", "Égi csillag"]


def test_window_reaches_every_state_of_the_automaton(py3langid_itself: Any) -> None:
    from ingestion.language_id import WINDOW, automaton_depth

    assert 1 <= automaton_depth(py3langid_itself) <= WINDOW


def test_window_visits_are_py3langids_counts_in_its_order(py3langid_itself: Any) -> None:
    from py3langid.langid import visit_counts

    from ingestion.language_id import automaton_tables, window_visits

    tables = automaton_tables(py3langid_itself)
    checked = 0
    for text in _texts():
        data = py3langid_itself._encode(text)
        expected = visit_counts(
            py3langid_itself.tk_nextmove, py3langid_itself._rowbase, py3langid_itself.tk_output, data
        )
        found = window_visits(tables, data)
        assert found == expected and list(found or ()) == list(expected or ())
        checked += len(data)
    assert checked > 30_000  # the repository's own texts (~42,000 bytes); the novels add ~500,000 where present


def test_detector_classifies_as_py3langid_does(py3langid_itself: Any) -> None:
    from ingestion.language_id import _identifier

    results = [(_identifier().classify(text), py3langid_itself.classify(text)) for text in _texts()]
    assert all(ours == theirs for ours, theirs in results)
    assert {language for (language, _), _ in results} >= {"en", "hu", "de", "ru", "fr"}
