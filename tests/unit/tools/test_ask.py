"""The `csillag ask` command line: language of the asker, usage errors (answers are tested on real lakehouses)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.ask import guess_language, main


@pytest.mark.parametrize(("question", "lang"), [
    ("How are Dobó and Gergely connected?", "en"),  # Hungarian names, English question
    ("Who is Pierre's closest companion?", "en"),
    ("What happens in chapter 3?", "en"),
    ("Ki Gergely legközelebbi társa?", "hu"),
    ("Hogyan kapcsolódik Dobó és Gergely?", "hu"),
    ("Mi történik a 3. fejezetben?", "hu"),
    ("Miről szól a könyv?", "hu"),
])
def test_guess_language_by_function_words_not_names(question: str, lang: str) -> None:
    assert guess_language(question) == lang


def test_main_without_question_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "a question is required" in capsys.readouterr().err


def test_main_unknown_domain_without_language_names_the_known_ones(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CSILLAG_NER_LANGUAGE", raising=False)
    assert main(["Who?", "--lakehouse", str(tmp_path), "--domain", "moby_dick", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "'moby_dick'" in err and "war_and_peace" in err
