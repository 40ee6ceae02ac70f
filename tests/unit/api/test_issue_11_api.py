"""Issue 11 items 1 and 2, the API's side: whole-root inputs, 403 wording, the queue cap, 415 and the access log."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.problems import ProblemError
from api.runs import RunManager, RunRequest
from api.security import AccessLogRedaction, confine_path, redact_target, resolve_roots
from api.state import StateStore
from tests.unit.api.conftest import AUTH, KEY
from tests.unit.api.test_runs import fake_job


@pytest.mark.parametrize("raw", [".", "./", "./.", "", "   "])
def test_issue_11_whole_root_or_empty_input_is_422(tmp_path: Path, raw: str) -> None:
    with pytest.raises(ProblemError) as caught:
        confine_path(raw, resolve_roots([tmp_path]), field="inputs.0")
    assert caught.value.status == 422
    assert caught.value.detail.startswith(f"inputs.0: {raw!r} ")
    assert "name a file or folder inside" in caught.value.detail


def test_issue_11_post_runs_with_dot_input_is_422_naming_it(client: TestClient) -> None:
    response = client.post("/runs", headers=AUTH, json={"inputs": ["."]})
    assert response.status_code == 422
    assert response.json()["detail"] == "inputs.0: '.' names the whole allowed root; name a file or folder inside it"
    assert client.get("/runs", headers=AUTH).json() == []  # nothing was queued


def test_issue_11_403_names_the_input_as_given(client: TestClient, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (tmp_path / "data" / "link").symlink_to(outside)
    response = client.post("/runs", headers=AUTH, json={"inputs": ["link"]})
    assert response.status_code == 403
    detail = response.json()["detail"]
    assert detail == "inputs.0: 'link' refused: it lies outside the allowed roots (api.allowed_roots)"
    assert str(tmp_path) not in detail


@pytest.mark.parametrize(
    ("path", "body"),
    [("/runs", {"inputs": ["book.txt"]}), ("/tasks", {"task_type": "sum.v1", "input": {}}),
     ("/chat", {"prompt": "hi", "user_id": "u"})],
)
def test_issue_11_non_json_body_is_415(client: TestClient, path: str, body: dict) -> None:
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "text/plain; charset=utf-8"):
        response = client.post(path, headers=AUTH | {"Content-Type": content_type}, content=json.dumps(body))
        assert response.status_code == 415, response.text
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["detail"] == (
            f"Content-Type {content_type.split(';')[0]!r} is not accepted; send the body as application/json"
        )


def test_issue_11_json_media_types_still_accepted(client: TestClient, tmp_path: Path) -> None:
    body = json.dumps({"task_type": "no.such.type", "input": {}})
    for content_type in ("application/json", "application/json; charset=utf-8", "application/merge-patch+json"):
        response = client.post("/tasks", headers=AUTH | {"Content-Type": content_type}, content=body)
        assert response.status_code == 422 and "unknown task type" in response.json()["detail"]  # reached the endpoint
    assert client.post("/tasks", headers={"Content-Type": "text/plain"}, content=body).status_code == 401  # key first


def test_issue_11_runs_beyond_the_queue_cap_are_429(api_settings, tmp_path: Path) -> None:
    settings = api_settings(max_queued_runs=2, max_concurrent_runs=1)
    for name in ("a", "b", "c", "d"):
        (tmp_path / "data" / f"{name}.txt").write_text("Dobó István", encoding="utf-8")
    manager = RunManager(settings, StateStore(settings.api.state_dir / "s.sqlite3"),
                         resolve_roots(settings.api.allowed_roots))
    command = fake_job(tmp_path, stdout="", code=0, sleep=30)

    async def go() -> tuple[list[str], ProblemError, tuple[bool, bool]]:
        manager.command = lambda record: command
        started = [manager.start(RunRequest(inputs=[f"{n}.txt"]))[0].run_id for n in ("a", "b", "c")]
        with pytest.raises(ProblemError) as refused:
            manager.start(RunRequest(inputs=["d.txt"]))
        _, duplicate_created = manager.start(RunRequest(inputs=["b.txt"]))  # an identical run is still answered
        manager.cancel(started[1])
        _, created_after_cancel = manager.start(RunRequest(inputs=["d.txt"]))
        await manager.shutdown()
        return started, refused.value, (duplicate_created, created_after_cancel)

    started, refused, (duplicate_created, created_after_cancel) = asyncio.run(go())
    assert len(started) == 3
    assert refused.status == 429
    assert refused.detail.startswith("3 ingestion runs are already queued or running")
    assert "api.max_queued_runs" in refused.detail
    assert not duplicate_created and created_after_cancel


def test_issue_11_query_string_key_never_reaches_the_access_log(
    api_settings, caplog: pytest.LogCaptureFixture
) -> None:
    from api.app import create_app
    from tests.unit.api.apitest_tools import make_registry

    access = logging.getLogger("uvicorn.access")
    with TestClient(create_app(api_settings(), registry=make_registry())) as client:
        assert client.get(f"/runs?api_key={KEY}&limit=5").status_code == 401  # refused, as before
        with caplog.at_level(logging.INFO, logger="uvicorn.access"):
            # the record exactly as uvicorn's h11/httptools protocols log it
            access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", f"/runs?api_key={KEY}&limit=5", "1.1", 401)
            access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", f"/runs?k={KEY}", "1.1", 401)
    lines = [r.getMessage() for r in caplog.records if r.name == "uvicorn.access"]
    assert lines == ['127.0.0.1:5000 - "GET /runs?api_key=***&limit=5 HTTP/1.1" 401',
                     '127.0.0.1:5000 - "GET /runs?k=*** HTTP/1.1" 401']
    assert not any(isinstance(f, AccessLogRedaction) for f in access.filters)  # removed at shutdown


def test_issue_11_redact_target_masks_credential_parameters_only() -> None:
    assert redact_target("/runs?limit=5&status=queued") == "/runs?limit=5&status=queued"
    assert redact_target("/x?token=abc&X-Api-Key=def&password=p&q=1") == "/x?token=***&X-Api-Key=***&password=***&q=1"
    assert redact_target("/x?q=s%2Fe+cret", ["s/e cret"]) == "/x?q=***"
