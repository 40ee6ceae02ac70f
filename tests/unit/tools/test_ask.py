"""The `csillag ask` command line: language of the asker, usage errors (answers are tested on real lakehouses)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.ask import guess_language, main


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


def test_issue_12_main_checks_the_lakehouse_before_the_domain(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # Any domain name is accepted (its language comes from the documents); an empty folder is the error to report.
    assert main(["Who?", "--lakehouse", str(tmp_path), "--domain", "moby_dick", "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"csillag: lakehouse {tmp_path} holds no ingested corpus (no stage done); ingest one first: "
                   f"csillag ingest PATH… --lakehouse {tmp_path}")


def test_issue_43_a_tie_of_function_words_is_read_in_the_books_language() -> None:
    question = "Elfoglalták-e a törökök Eger várát?"  # only "a", a function word of both languages
    assert guess_language(question, "hu") == "hu"
    assert guess_language(question) == "en"
    assert guess_language("Who is Dobó?", "hu") == "en"
