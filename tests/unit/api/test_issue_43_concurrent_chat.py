"""``/chat`` under 100 concurrent reader questions stays isolated: every answer is its own question's.

The production app (the real book tools) over a lakehouse built by the real pipeline; two kinds of question — one the
entity card answers, one the question-answering tool answers from a passage — sent 50 times each, interleaved, from
100 threads at once, each as another user. A response holding the other question's answer, or none, is cross-talk.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.unit.api.conftest import AUTH
from tests.unit.api.sse import parse_sse
from tests.unit.tools.two_books import ANSWER_B, ASK_B, ASK_B_PASSAGE, BOOK_B, corpus, ingest

CONCURRENT = 100
PASSAGE_ANSWER = "“In Glenbarrow, Philippa Whitlock met Aldous Whitlock again at the mill.”"


def test_issue_43_a_hundred_concurrent_questions_each_get_their_own_answer(
    api_settings: Callable[..., Any], tmp_path: Path
) -> None:
    from api.app import create_app

    settings = api_settings()
    ingest(corpus(tmp_path / "b", BOOK_B), str(settings.lakehouse.root))
    questions = [ASK_B if n % 2 else ASK_B_PASSAGE for n in range(CONCURRENT)]
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:

        def ask(n: int) -> str:
            response = client.post("/chat", headers=AUTH, json={"prompt": questions[n], "user_id": f"reader-{n}"})
            assert response.status_code == 200, response.text
            kind, final = parse_sse(response.text)[-1]
            assert kind == "final", response.text
            return str(final["choices"][0]["message"]["content"])

        with ThreadPoolExecutor(CONCURRENT) as pool:
            answers = list(pool.map(ask, range(CONCURRENT)))
    for question, answer in zip(questions, answers, strict=True):
        first = answer.splitlines()[0]
        if question == ASK_B:
            assert first.startswith(ANSWER_B) and PASSAGE_ANSWER not in first, answer
        else:
            assert first.startswith(PASSAGE_ANSWER), answer
