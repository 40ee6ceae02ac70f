"""Issue 38 item 4: ``/chat`` serves the run the lakehouse publishes now, not the one it loaded at start-up.

The production app (``create_app`` without a registry: the real book tools) serves a lakehouse built from book A
through the real pipeline; the same lakehouse is then ingested from book B alone (A's document is removed, a new run
published) while the app keeps running. The next turn must answer from B and know nothing of A; a clarification
question asked then can still be answered after yet another run is published (the sessions carry over); once the
lakehouse is deleted, a turn is a 503 problem naming it — never the text the app still holds in memory.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.unit.api.conftest import AUTH
from tests.unit.api.sse import parse_sse
from tests.unit.tools.two_books import ANSWER_A, ANSWER_B, ASK_A, ASK_B, BOOK_A, BOOK_B, NAMES_A, corpus, ingest


def _final(client: TestClient, prompt: str, **turn: str) -> dict[str, Any]:
    response = client.post("/chat", headers=AUTH, json={"prompt": prompt, "user_id": "reader", **turn})
    assert response.status_code == 200, response.text
    kind, final = parse_sse(response.text)[-1]
    assert kind == "final", response.text
    return dict(final)


def _answer(client: TestClient, prompt: str, **turn: str) -> str:
    return str(_final(client, prompt, **turn)["choices"][0]["message"]["content"])


def test_issue_38_api_chat_answers_from_the_newly_published_run_without_a_restart(
    api_settings: Callable[..., Any], tmp_path: Path
) -> None:
    from api.app import create_app

    settings = api_settings(chat_reload_check_s=0)  # check on every turn (the default: at most every 5 s)
    lake = settings.lakehouse.root
    ingest(corpus(tmp_path / "a", BOOK_A), str(lake))
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        assert _answer(client, ASK_A).startswith(ANSWER_A)
        b = corpus(tmp_path / "b", BOOK_B)
        ingest(b, str(lake))  # the corpus is now B alone: A's document is removed
        assert _answer(client, ASK_B).startswith(ANSWER_B)
        asked_back = _final(client, "Who is Whitlock's closest companion?")["csillag"]["clarification"]
        assert [q["question"].splitlines()[0] for q in asked_back["questions"]] == ["Which Whitlock do you mean?"]
        (b / "epilogue.txt").write_text("Epilogue\n\nPhilippa Whitlock sold the mill.\n", encoding="utf-8")
        ingest(b, str(lake))  # another run published while the question waits for its answer
        resumed = _answer(client, "Philippa Whitlock", session_id=asked_back["session_id"])
        assert resumed.startswith(ANSWER_B), resumed
        about_a = _answer(client, ASK_A)
        assert not [name for name in NAMES_A if name in about_a], about_a
        shutil.rmtree(lake)
        gone = client.post("/chat", headers=AUTH, json={"prompt": ASK_B, "user_id": "reader"})
    assert gone.status_code == 503
    assert gone.json()["detail"].startswith(f"chat is unavailable: lakehouse {lake} does not exist")
