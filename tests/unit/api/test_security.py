from __future__ import annotations

import os
from pathlib import Path

import pytest

from api.problems import ProblemError
from api.security import confine_path, resolve_roots
from tests.unit.api.conftest import AUTH, KEY


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "root"
    (root / "books").mkdir(parents=True)
    (root / "books" / "egri.txt").write_text("Gergely", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("x", encoding="utf-8")
    return root, outside


def test_confine_path_accepts_a_relative_path_under_the_first_root(tree):
    root, _ = tree
    roots = resolve_roots([root])
    assert confine_path("books/egri.txt", roots, field="inputs.0") == (root / "books" / "egri.txt").resolve()


def test_confine_path_accepts_an_absolute_path_under_a_later_root(tree):
    root, outside = tree
    roots = resolve_roots([root, outside])
    assert confine_path(str(outside / "secret.txt"), roots, field="inputs.0") == (outside / "secret.txt").resolve()


def test_confine_path_refuses_dot_dot_naming_the_field_and_path(tree):
    root, _ = tree
    with pytest.raises(ProblemError) as caught:
        confine_path("books/../../outside/secret.txt", resolve_roots([root]), field="inputs.2")
    assert caught.value.status == 403
    assert "inputs.2" in caught.value.detail and "books/../../outside/secret.txt" in caught.value.detail


def test_confine_path_refuses_an_absolute_path_outside_the_roots(tree):
    root, outside = tree
    with pytest.raises(ProblemError) as caught:
        confine_path(str(outside / "secret.txt"), resolve_roots([root]), field="lakehouse")
    assert caught.value.status == 403
    assert "outside the allowed roots" in caught.value.detail and "lakehouse" in caught.value.detail


def test_confine_path_refuses_a_symlink_leading_out(tree):
    root, outside = tree
    os.symlink(outside, root / "books" / "escape")
    with pytest.raises(ProblemError) as caught:
        confine_path("books/escape/secret.txt", resolve_roots([root]), field="inputs.0")
    assert caught.value.status == 403
    # issue 11: the input as given, never the symlink's target nor the server's roots
    assert caught.value.detail == (
        "inputs.0: 'books/escape/secret.txt' refused: it lies outside the allowed roots (api.allowed_roots)"
    )
    assert str(outside) not in caught.value.detail and str(root) not in caught.value.detail


def test_confine_path_missing_input_is_422_but_a_new_lakehouse_is_fine(tree):
    root, _ = tree
    roots = resolve_roots([root])
    with pytest.raises(ProblemError) as caught:
        confine_path("books/nope.txt", roots, field="inputs.0")
    assert caught.value.status == 422 and "does not exist" in caught.value.detail
    assert confine_path("lake", roots, field="lakehouse", must_exist=False) == (root / "lake").resolve()


def test_api_key_missing_is_401_problem_json(client):
    response = client.get("/runs")
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["status"] == 401 and "X-API-Key" in response.json()["detail"]


def test_api_key_wrong_is_401_and_both_header_forms_are_accepted(client):
    assert client.get("/tasks", headers={"X-API-Key": KEY + "x"}).status_code == 401
    assert client.get("/tasks", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/tasks", headers=AUTH).status_code == 200
    assert client.get("/tasks", headers={"Authorization": f"Bearer {KEY}"}).status_code == 200


def test_api_key_checked_before_the_body(client):
    response = client.post("/runs", json={"inputs": "not a list"})
    assert response.status_code == 401


def test_health_needs_no_key(client):
    response = client.get("/health")
    assert response.status_code == 200 and response.json()["status"] == "ok"


def test_api_key_empty_in_settings_refuses_every_key(api_settings):
    from fastapi.testclient import TestClient

    from api.app import create_app

    app = create_app(api_settings(api_key=""))
    with TestClient(app) as test_client:
        assert test_client.get("/tasks", headers={"X-API-Key": ""}).status_code == 401
        assert test_client.get("/tasks", headers={"Authorization": "Bearer "}).status_code == 401
        assert test_client.get("/tasks", headers={"X-API-Key": "anything"}).status_code == 401


def test_body_size_limit_413_by_content_length(api_settings):
    from fastapi.testclient import TestClient

    from api.app import create_app

    app = create_app(api_settings(max_body_bytes=2048))
    with TestClient(app) as test_client:
        small = test_client.post("/tasks", headers=AUTH, json={"task_type": "nope", "input": {"pad": "x" * 1000}})
        assert small.status_code == 422  # reached the endpoint
        big = test_client.post("/tasks", headers=AUTH, json={"task_type": "nope", "input": {"pad": "x" * 3000}})
        assert big.status_code == 413
        assert big.headers["content-type"] == "application/problem+json"
        assert "2048" in big.json()["detail"]


def test_body_size_limit_413_for_a_chunked_body(api_settings):
    from fastapi.testclient import TestClient

    from api.app import create_app

    def chunks():
        for _ in range(5):
            yield b"x" * 1000

    app = create_app(api_settings(max_body_bytes=2048))
    with TestClient(app) as test_client:
        response = test_client.post("/tasks", headers=AUTH | {"Content-Type": "application/json"}, content=chunks())
        assert response.status_code == 413
        assert "more than 2048" in response.json()["detail"]
