"""Issue 16, the API's side: its runs confine the lakehouse to api.allowed_roots, folders of this machine, so a remote
root (s3a:// included: the pipeline takes one, the API does not yet) is refused rather than made a folder "s3a:"."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from tests.unit.api.conftest import AUTH


def test_issue_16_api_run_with_a_remote_lakehouse_is_422_and_queues_nothing(client: TestClient, tmp_path: Path) -> None:
    (tmp_path / "data" / "book.txt").write_text("Call me Ishmael.", encoding="utf-8")
    response = client.post("/runs", headers=AUTH, json={"inputs": ["book.txt"], "lakehouse": "s3a://bucket/lh"})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("lakehouse 's3a://bucket/lh': s3a:// is not supported here")
    assert client.get("/runs", headers=AUTH).json() == []
    assert not (tmp_path / "data" / "s3a:").exists()
