from __future__ import annotations

import pytest

from tools.clarification import PendingRequest, SessionStore, split_answers
from tools.documents import ClarificationQuestion
from tools.errors import ClarificationError
from tools.request import ChatRequest


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def pending(session_id: str, user: str = "u") -> PendingRequest:
    return PendingRequest(session_id, user, ChatRequest("q", user_id=user), "default_orchestrator",
                          {"t": ClarificationQuestion("?")}, {}, 0, {"t": 1})


def test_session_store_expires_after_ttl():
    clock = Clock()
    store = SessionStore(ttl_s=10, clock=clock)
    store.put(pending("a"))
    clock.now += 9.9
    assert store.take("a", "u").session_id == "a"
    store.put(pending("b"))
    clock.now += 10
    with pytest.raises(ClarificationError, match="session 'b' expired after 10s"):
        store.take("b", "u")


def test_session_store_drops_the_oldest_when_full():
    store = SessionStore(ttl_s=10, max_sessions=2, clock=Clock())
    for sid in ("a", "b", "c"):
        store.put(pending(sid))
    assert len(store) == 2
    with pytest.raises(ClarificationError):
        store.take("a", "u")


def test_split_answers_numbered_lines_go_to_the_tools_in_question_order():
    answer = "1. Eger\n2) 1552\n   and autumn"
    assert split_answers(answer, ["castle", "year"]) == {"castle": "Eger", "year": "1552 and autumn"}


def test_split_answers_unnumbered_answer_goes_to_every_tool():
    assert split_answers("Eger, 1552", ["castle", "year"]) == {"castle": "Eger, 1552", "year": "Eger, 1552"}


def test_split_answers_mapping_must_match_the_asking_tools():
    with pytest.raises(ClarificationError, match=r"\['ghost'\]"):
        split_answers({"castle": "Eger", "ghost": "?"}, ["castle"])
    with pytest.raises(ClarificationError, match=r"no answer for the question of \['year'\]"):
        split_answers({"castle": "Eger"}, ["castle", "year"])
