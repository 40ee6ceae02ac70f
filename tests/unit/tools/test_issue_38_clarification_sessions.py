"""Issue 38 item 3: a clarification session is resumed only with its secret id and its own ``user_id``.

One API key is one tenant (docs/api.md): the platform cannot check the ``user_id`` its caller states, so the session
id is what an eavesdropper lacks — unguessable, and never written to the log, where anyone reading it could pair it
with a user id (which is usually guessable) and answer in that user's name.
"""

from __future__ import annotations

import logging
import re

import pytest

from tools.clarification import PendingRequest, SessionStore
from tools.errors import ClarificationError
from tools.request import ChatRequest


def _pending(session_id: str, user_id: str) -> PendingRequest:
    return PendingRequest(session_id=session_id, user_id=user_id, request=ChatRequest("siege", user_id=user_id),
                          orchestrator_name="default", questions={}, buffer={}, resume_priority=0, rounds={})


def test_issue_38_session_ids_are_random_and_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    ids = [SessionStore.new_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)  # 128 bits each
    store = SessionStore(max_sessions=1)
    caplog.set_level(logging.DEBUG, logger="tools.clarification")
    store.put(_pending(ids[0], "alice"))
    store.put(_pending(ids[1], "bob"))  # the store is full: alice's session is dropped
    assert "dropped the oldest session" in caplog.text
    assert not [i for i in ids[:2] if i in caplog.text], caplog.text


def test_issue_38_a_session_needs_both_its_id_and_its_user(caplog: pytest.LogCaptureFixture) -> None:
    store = SessionStore()
    session_id = store.put(_pending(SessionStore.new_id(), "alice"))
    caplog.set_level(logging.DEBUG, logger="tools.clarification")
    for other_id, user in ((SessionStore.new_id(), "alice"), (session_id, "mallory"), (session_id, "anonymous")):
        with pytest.raises(ClarificationError) as refused:
            store.take(other_id, user)
        # the same words whether the id is unknown or another user's: nothing says the session exists
        assert str(refused.value) == (f"no open clarification session {other_id!r} for this user (unknown, already "
                                      "answered or expired)")
    assert store.take(session_id, "alice").user_id == "alice"  # the refused attempts did not consume it
    assert session_id not in caplog.text
