"""Issue 12 item 1: the production app builds its chat platform from the settings' lakehouse; while that lakehouse is
not built, ``/chat`` is a 503 problem naming it — never a stream ending in "I found no information"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.unit.api.conftest import AUTH


def test_issue_12_chat_without_a_lakehouse_is_a_503_problem_naming_it(api_settings: Callable[..., Any]) -> None:
    from api.app import create_app

    settings = api_settings()
    lake = settings.lakehouse.root
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:  # no registry: the real tools
        answer = client.post("/chat", headers=AUTH, json={"prompt": "Who is Margaret Hale's closest companion?"})
        assert client.get("/task-types", headers=AUTH).status_code == 200  # the rest of the API still serves
    assert answer.status_code == 503
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.headers["retry-after"] == "60"
    assert answer.json()["detail"] == (f"chat is unavailable: lakehouse {lake} does not exist; ingest a corpus into "
                                       f"it first: csillag ingest PATH… --lakehouse {lake}")
