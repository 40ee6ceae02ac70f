"""Issue 16, the API's side: a run's lakehouse may be a folder under a folder root or an ``s3a://`` (or ``hdfs://``) URI
under such a root of ``api.allowed_roots`` (or the server's own ``lakehouse.root``); anything else is refused naming the
value, and a refused URI never becomes a local folder named "s3a:". Inputs stay local files under the folder roots.
The whole run into a bucket through the HTTP surface: tests/integration/test_issue_16_api_on_a_bucket.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.problems import ProblemError
from api.runs import RunManager, RunRequest
from api.security import confine_uri, resolve_roots
from api.state import StateStore
from settings.config import ConfigError
from tests.unit.api.conftest import AUTH


def _manager(tmp_path: Path, api_settings: Any, **lakehouse: Any) -> RunManager:
    settings = api_settings(allowed_roots=[tmp_path / "data", "s3a://library/shelves"])
    if lakehouse:
        settings = settings.model_copy(update={"lakehouse": settings.lakehouse.model_copy(update=lakehouse)})
    (tmp_path / "data" / "book.txt").write_text("Call me Ishmael.", encoding="utf-8")
    return RunManager(settings, StateStore(tmp_path / "state.sqlite3"), resolve_roots(settings.api.allowed_roots))


def test_issue_16_api_run_with_a_bucket_outside_the_roots_is_403_and_queues_nothing(
    client: TestClient, tmp_path: Path
) -> None:
    (tmp_path / "data" / "book.txt").write_text("Call me Ishmael.", encoding="utf-8")
    response = client.post("/runs", headers=AUTH, json={"inputs": ["book.txt"], "lakehouse": "s3a://bucket/lh"})
    assert response.status_code == 403
    assert response.json()["detail"] == (
        "lakehouse: 's3a://bucket/lh' refused: it lies under no allowed bucket root (api.allowed_roots)"
    )
    assert client.get("/runs", headers=AUTH).json() == []
    assert not (tmp_path / "data" / "s3a:").exists()


def test_issue_16_api_run_with_a_gcs_lakehouse_is_422_naming_it(client: TestClient, tmp_path: Path) -> None:
    (tmp_path / "data" / "book.txt").write_text("Call me Ishmael.", encoding="utf-8")
    response = client.post("/runs", headers=AUTH, json={"inputs": ["book.txt"], "lakehouse": "gs://bucket/lh"})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("lakehouse 'gs://bucket/lh': gs:// is not supported")
    assert client.get("/runs", headers=AUTH).json() == []


def test_issue_16_api_run_into_hdfs_under_an_hdfs_root_is_accepted_and_elsewhere_403(
    tmp_path: Path, api_settings: Any
) -> None:
    settings = api_settings(allowed_roots=[tmp_path / "data", "hdfs://nn:8020/library/"])
    assert settings.api.allowed_roots[1] == "hdfs://nn:8020/library"  # normalised as the lakehouse will be
    (tmp_path / "data" / "book.txt").write_text("Call me Ishmael.", encoding="utf-8")
    manager = RunManager(settings, StateStore(tmp_path / "state.sqlite3"), resolve_roots(settings.api.allowed_roots))
    _, lakehouse, _ = manager._validate(RunRequest(inputs=["book.txt"], lakehouse="hdfs://nn:8020/library/novels/"))
    assert lakehouse == "hdfs://nn:8020/library/novels"
    for outside in ("hdfs://nn:8020/library2", "hdfs://other:8020/library/novels"):
        with pytest.raises(ProblemError) as refused:
            manager._validate(RunRequest(inputs=["book.txt"], lakehouse=outside))
        assert refused.value.status == 403
    assert not (tmp_path / "data" / "hdfs:").exists()


def test_issue_16_api_run_into_a_bucket_under_a_bucket_root_is_accepted(tmp_path: Path, api_settings: Any) -> None:
    manager = _manager(tmp_path, api_settings)
    for given, kept in (("s3a://library/shelves", "s3a://library/shelves"),
                        ("s3a://library/shelves/novels/", "s3a://library/shelves/novels"),
                        ("s3://library/shelves/news", "s3a://library/shelves/news")):  # s3:// is s3a:// by another name
        inputs, lakehouse, _ = manager._validate(RunRequest(inputs=["book.txt"], lakehouse=given))
        assert lakehouse == kept
        assert inputs == [str((tmp_path / "data" / "book.txt").resolve())]
    # the job's own input confinement gets the folders only: a bucket is no place for input files
    assert manager.job_environment()["CSILLAG_INGESTION_ALLOWED_ROOTS"] == f'["{(tmp_path / "data").resolve()}"]'


@pytest.mark.parametrize("uri, why", [
    ("s3a://library/shelves2", "it lies under no allowed bucket root (api.allowed_roots)"),
    ("s3a://other/shelves", "it lies under no allowed bucket root (api.allowed_roots)"),
    ("s3a://library/shelves/../secrets", "'..' is not allowed in paths"),
])
def test_issue_16_api_bucket_confinement_compares_key_segments(uri: str, why: str) -> None:
    with pytest.raises(ProblemError) as refused:
        confine_uri(uri, [Path("/srv/data"), "s3a://library/shelves"], field="lakehouse")
    assert refused.value.status == 403
    assert refused.value.detail == f"lakehouse: {uri!r} refused: {why}"


def test_issue_16_api_the_servers_own_bucket_lakehouse_needs_no_root(tmp_path: Path, api_settings: Any) -> None:
    manager = _manager(tmp_path, api_settings, root="s3a://own-bucket/lh")
    _, lakehouse, _ = manager._validate(RunRequest(inputs=["book.txt"]))  # no lakehouse named: the server's own
    assert lakehouse == "s3a://own-bucket/lh"
    with pytest.raises(ProblemError) as refused:  # its neighbours are not the server's
        manager._validate(RunRequest(inputs=["book.txt"], lakehouse="s3a://own-bucket/other"))
    assert refused.value.status == 403


def test_issue_16_api_settings_refuse_an_unsupported_allowed_root_naming_it(api_settings: Any) -> None:
    with pytest.raises(ConfigError, match=r"api\.allowed_roots.*abfss:// is not supported"):
        api_settings(allowed_roots=["abfss://c@a.dfs/lib"])
