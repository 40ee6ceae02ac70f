from __future__ import annotations

import json
import sys
import time

from tests.unit.api.conftest import AUTH
from tests.unit.api.sse import parse_sse


def poll(client, url: str, until: set[str], timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(url, headers=AUTH).json()
        if body["status"] in until:
            return body
        time.sleep(0.05)
    raise AssertionError(f"{url} still {body['status']}")


def test_task_types_list_each_type_with_its_input_schema(client):
    types = client.get("/task-types", headers=AUTH).json()
    assert sorted(types) == ["fail.v1", "sleep.v1", "sum.v1"]
    assert types["sum.v1"]["properties"]["numbers"]["type"] == "array"
    assert types["sum.v1"]["required"] == ["numbers"]


def test_task_start_poll_result(client):
    response = client.post("/tasks", headers=AUTH, json={"task_type": "sum.v1", "input": {"numbers": [40, 2]}})
    assert response.status_code == 202
    task = response.json()
    assert task["status"] in {"queued", "running", "succeeded"}
    assert response.headers["location"].endswith(f"/tasks/{task['task_id']}")
    done = poll(client, f"/tasks/{task['task_id']}", {"succeeded", "failed"})
    assert done["status"] == "succeeded" and done["result"] == {"total": 42} and done["progress"] == 1.0


def test_task_invalid_input_is_422_naming_the_field(client):
    response = client.post("/tasks", headers=AUTH, json={"task_type": "sum.v1", "input": {"numbers": "many"}})
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"
    assert "numbers" in response.json()["detail"]


def test_task_unknown_type_is_422_listing_the_known(client):
    response = client.post("/tasks", headers=AUTH, json={"task_type": "reindex.v9", "input": {}})
    assert response.status_code == 422
    assert "reindex.v9" in response.json()["detail"] and "sum.v1" in response.json()["detail"]


def test_task_body_missing_field_is_422_naming_it(client):
    response = client.post("/tasks", headers=AUTH, json={"input": {}})
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "task_type"]
    assert "body.task_type" in response.json()["detail"]


def test_task_cancel_and_failure_states(client):
    sleeping = client.post("/tasks", headers=AUTH, json={"task_type": "sleep.v1", "input": {"seconds": 30}}).json()
    poll(client, f"/tasks/{sleeping['task_id']}", {"running"})
    cancelled = client.post(f"/tasks/{sleeping['task_id']}/cancel", headers=AUTH).json()
    assert cancelled["status"] == "cancelled"
    failing = client.post("/tasks", headers=AUTH, json={"task_type": "fail.v1", "input": {"path": "/a/b.txt"}}).json()
    failed = poll(client, f"/tasks/{failing['task_id']}", {"failed", "succeeded"})
    assert failed["status"] == "failed" and failed["error"] == "FileNotFoundError: no such corpus: b.txt"
    listed = client.get("/tasks?status=cancelled", headers=AUTH).json()
    assert [t["task_id"] for t in listed] == [sleeping["task_id"]]


def test_task_unknown_id_is_404_problem(client):
    for response in (client.get("/tasks/abc", headers=AUTH), client.post("/tasks/abc/cancel", headers=AUTH)):
        assert response.status_code == 404
        assert response.json()["detail"] == "no task with id 'abc'"


def test_problem_json_for_unknown_route_and_method(client):
    missing = client.get("/nowhere", headers=AUTH)
    assert missing.status_code == 404 and missing.headers["content-type"] == "application/problem+json"
    wrong = client.put("/tasks", headers=AUTH)
    assert wrong.status_code == 405 and wrong.json()["title"] == "Method Not Allowed"


def test_problem_json_for_an_unexpected_error_has_no_traceback(client):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals /etc/passwd")

    client.app.state.runs.list = broken
    response = client.get("/runs", headers=AUTH)
    assert response.status_code == 500
    body = response.json()
    assert body["title"] == "Internal Server Error" and "incident" in body["detail"]
    assert "secret" not in response.text and "Traceback" not in response.text


def test_runs_over_http_start_dedupe_status_list(client, tmp_path):
    (tmp_path / "data" / "book.txt").write_text("Bornemissza Gergely", encoding="utf-8")
    result = {"run_id": "x", "status": "succeeded", "stages": [{"stage": "documents", "status": "succeeded",
                                                                 "counts": {"documents": 1}}]}
    job = tmp_path / "job.py"
    job.write_text(f"import time, json\ntime.sleep(1.0)\nprint(json.dumps({result!r}, indent=2))\n")
    client.app.state.runs.command = lambda record: [sys.executable, str(job)]
    marker = tmp_path / "data" / "lake" / "_markers" / "documents" / "_SUCCESS"
    marker.parent.mkdir(parents=True)
    marker.write_text(json.dumps({"stage": "documents", "counts": {"documents": 1}}))

    first = client.post("/runs", headers=AUTH, json={"inputs": ["book.txt"]})
    second = client.post("/runs", headers=AUTH, json={"inputs": ["book.txt"]})
    assert first.status_code == 202 and second.status_code == 200
    assert first.json()["run_id"] == second.json()["run_id"]
    run_id = first.json()["run_id"]
    assert first.headers["location"].endswith(f"/runs/{run_id}")
    done = poll(client, f"/runs/{run_id}", {"succeeded", "failed", "partial"})
    assert done["status"] == "succeeded" and done["exit_code"] == 0
    assert done["stage_reports"][0]["counts"] == {"documents": 1}
    assert done["markers"]["documents"]["counts"] == {"documents": 1}
    assert [r["run_id"] for r in client.get("/runs", headers=AUTH).json()] == [run_id]


def test_runs_paths_outside_roots_are_refused_naming_the_path(client, tmp_path):
    response = client.post("/runs", headers=AUTH, json={"inputs": [str(tmp_path / "state")]})
    assert response.status_code == 403 and str(tmp_path / "state") in response.json()["detail"]
    response = client.post("/runs", headers=AUTH, json={"inputs": ["missing.txt"]})
    assert response.status_code == 422 and "'missing.txt' does not exist" in response.json()["detail"]
    response = client.get("/runs/nope", headers=AUTH)
    assert response.status_code == 404


def test_chat_streams_answer_then_final(client):
    response = client.post("/chat", headers=AUTH, json={"prompt": "What is the weather like on Mars?"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    assert events[-1][0] == "final"
    final = events[-1][1]
    assert final["object"] == "chat.completion"
    streamed = "".join(data["text"] for kind, data in events if kind == "delta")
    assert streamed == final["choices"][0]["message"]["content"]


def test_chat_clarification_then_resumption_by_session_id(client):
    first = parse_sse(
        client.post("/chat", headers=AUTH, json={"prompt": "Tell me about the castle siege", "user_id": "u1"}).text
    )
    kinds = [kind for kind, _ in first]
    assert ("progress", {"text": "looking for the castle", "tool": "castle_asker"}) in first
    assert kinds[-2:] == ["clarification", "final"]
    clarification = first[-2][1]
    assert clarification["questions"][0]["question"] == "Which castle do you mean?"
    assert clarification["questions"][0]["options"] == ["Eger", "Szigetvár"]
    assert first[-1][1]["choices"][0]["finish_reason"] == "clarification"

    session = clarification["session_id"]
    foreign = parse_sse(client.post("/chat", headers=AUTH, json={"prompt": "Eger", "session_id": session,
                                                                    "user_id": "someone-else"}).text)
    assert foreign[-1][0] == "error" and foreign[-1][1]["status"] == 404

    answer = parse_sse(
        client.post("/chat", headers=AUTH, json={"prompt": "Eger", "session_id": session, "user_id": "u1"}).text
    )
    assert answer[-1][0] == "final"
    assert answer[-1][1]["choices"][0]["message"]["content"] == "The castle of Eger withstood the siege of 1552."
