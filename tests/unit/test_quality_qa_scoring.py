"""The scoring and the question-kind classifier of bench/quality_qa.py, and the honesty of our own question set
(bench/qa_own.jsonl: every evidence sentence is in its book at the line given). Fast, no lakehouse needed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.unit.repo_files import load_module

ROOT = Path(__file__).resolve().parents[2]


qa = load_module("bench/quality_qa.py")


@pytest.mark.parametrize(("question", "kind"), [
    ("Who owned the House of Seven Gables in the Mid-Nineteenth Century?", "who"),
    ("Whose dog is Buck?", "who"),
    ("What order of priests run the Clongowes Wood College?", "what"),
    ("Where does Dr Arthur Bell live?", "where"),
    ("During which time period does this story take place?", "which"),
    ("When do we first meet Pierre?", "when"),
    ("Why did Pierre fight a duel with Dolokhov?", "why"),
    ("How did the Headless Horseman get his head shot off?", "how"),
    ("How old is Philip when his mother passes away?", "how many"),
    ("How many children does Natasha have?", "how many"),
    ("Does Prince Andrew survive the wound he received at Borodino?", "yes/no"),
    ("When Mary was younger, how did her mother fill her free time?", "how"),  # the main clause decides
    ("Mary's mother was obsessed with what?", "what"),
    ("Summarize the book.", "other"),
    ("Ki volt Eger kapitánya az ostrom idején?", "who"),
    ("Hol raboskodott Török Bálint?", "where"),
    ("Mikor játszódik a regény első fejezete?", "when"),
    ("Miért indulnak Gergelyék Konstantinápolyba?", "why"),
    ("Hány ágyúgolyót szedtek össze a várban az ostrom után?", "how many"),
    ("Elfoglalták-e a törökök Eger várát?", "yes/no"),
    ("Mi történik az első rész első fejezetében?", "what"),
])
def test_question_kind_by_wording(question: str, kind: str) -> None:
    assert qa.question_kind(question) == kind


def test_answered_needs_sixty_percent_of_content_words_stemmed() -> None:
    text = "John Pontifex was a carpenter by trade, and his carpenters built the church."
    assert qa.answered(["He was a carpenter."], text, "en")  # stop words dropped: only "carpenter" counts
    assert qa.answered(["Carpenters."], text, "en")  # stems meet
    # 3 of 5 content words (60 %) is enough, 2 of 5 is not
    assert qa.answered(["John Pontifex built houses quickly"], text, "en")
    assert not qa.answered(["John built houses quickly everywhere"], text, "en")
    assert qa.answered(["a tailor", "a carpenter"], text, "en")  # either reference answer counts
    assert not qa.answered(["a tailor"], text, "en")


def test_answer_of_stop_words_only_keeps_its_words() -> None:
    assert qa.content_terms("No.", "en") == {"no"}
    assert qa.answered(["No"], "No, he dies.", "en")
    assert not qa.answered(["No"], "He survives.", "en")
    assert not qa.answered([""], "anything", "en")  # an empty reference never counts


def test_hungarian_answers_meet_inflected_forms() -> None:
    assert qa.answered(["Dobó István"], "Küldi Ahmed pasa. Dobó Istvánnak üdvözlet.", "hu")
    assert not qa.answered(["Cecey Péter"], "Dobó István egri kapitány.", "hu")


def test_answer_line_is_the_first_non_empty_line() -> None:
    assert qa.answer_line("\n  \nPierre marries Natasha.\n\n> quote [1]\n") == "Pierre marries Natasha."
    assert qa.answer_line("") == ""


def test_percentile_nearest_rank() -> None:
    values = [float(n) for n in range(1, 21)]  # 1..20
    assert qa.percentile(values, 0.5) == 10.0
    assert qa.percentile(values, 0.95) == 19.0
    assert qa.percentile([3.0], 0.95) == 3.0
    assert qa.percentile([], 0.5) == 0.0


def test_summary_counts_and_shares() -> None:
    rows = [qa.Row(set="own", book="b", question="q", answers=["a"], kind="who", label="person", recall=r,
                   answer_line=False, bm25_top2=True, bm25_top5=True, seconds=s, printed="")
            for r, s in ((True, 0.1), (False, 0.3))]
    summary = qa.summarize(rows)
    assert (summary["n"], summary["recall"], summary["recall_share"], summary["bm25_top5_share"]) == (2, 1, 0.5, 1.0)
    assert (summary["p50_ms"], summary["p95_ms"]) == (100, 300)
    assert list(qa.grouped(rows, "kind", qa.KINDS)) == ["who"]


OWN_KINDS = {"person", "place", "time", "reason", "manner", "yes/no", "relation", "quotation", "chapter",
             "appearance", "list", "summary"}


def _own_rows() -> list[dict]:
    lines = (ROOT / "bench" / "qa_own.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_own_set_covers_every_kind_the_issue_lists() -> None:
    rows = _own_rows()
    assert len(rows) >= 40
    assert OWN_KINDS <= {row["kind"] for row in rows}
    for row in rows:
        assert row["question"] and 1 <= len(row["answers"]) <= 2 and row["evidence"] and row["line"] >= 1, row


def test_own_evidence_is_in_the_text_at_its_line() -> None:
    checked = 0
    for row in _own_rows():
        source = row.get("file", row["book"])
        path = next((base / source for base in (ROOT, ROOT.parent) if (base / source).is_file()), None)
        if path is None:  # ../shared is not everywhere; the README's sample is
            continue
        text = path.read_text(encoding="utf-8-sig")
        # the texts are hard-wrapped: a sentence may span lines
        pattern = r"\s+".join(re.escape(word) for word in row["evidence"].split())
        found = re.search(pattern, text)
        assert found, f"evidence of {row['question']!r} is not in {path}"
        assert text.count("\n", 0, found.start()) + 1 == row["line"], row["question"]
        checked += 1
    assert checked >= 8  # at least the sample's questions
