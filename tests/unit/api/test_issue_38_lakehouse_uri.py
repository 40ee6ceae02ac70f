"""Issue 38, the API's side of lakehouse confinement: a run's lakehouse URI is confined as the object store will
resolve it (``s3a://bucket/api/%2e%2e/lh`` used to be accepted under the root ``s3a://bucket/api`` and delta-rs wrote
``s3a://bucket/lh/documents``), an allowed root itself is refused however it is spelled, and an empty lakehouse is
called empty. The parser's own rules: tests/unit/graph/test_issue_38_lakehouse_uri.py.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.problems import ProblemError
from api.security import confine_path, resolve_roots
from graph.settings import S3Settings
from tests.unit.api.apitest_tools import make_registry
from tests.unit.api.conftest import AUTH

# What the pipeline's driver does first with a run's lakehouse: delta-rs writes the documents table at the storage's
# delta_uri with its storage_options (argv: the --lakehouse the API gives the job, the S3 endpoint).
JOB = (
    "import sys, pyarrow as pa; from deltalake import write_deltalake; from graph.settings import S3Settings; "
    "from graph.lakehouse import Lakehouse as S; "
    "lake = sys.argv[sys.argv.index('--lakehouse') + 1]; "
    "s = S.for_root(lake, S3Settings(endpoint=sys.argv[1], region='us-east-1', path_style=True)); "
    "write_deltalake(s.delta_uri('documents'), pa.table({'id': ['d1'], 'text': ['Call me Ishmael.']}), "
    "storage_options=s.storage_options)"
)


@pytest.fixture
def bucket_client(api_settings: Any, s3_bucket: tuple[str, S3Settings], tmp_path: Path) -> Iterator[TestClient]:
    """The real app whose allowed roots are ``data`` and ``s3a://<bucket>/api``; a run's job writes its documents
    table where the pipeline would."""
    bucket, s3 = s3_bucket
    settings = api_settings(allowed_roots=[tmp_path / "data", f"s3a://{bucket}/api"], runner="python")
    settings = settings.model_copy(update={"lakehouse": settings.lakehouse.model_copy(update={"s3": s3})})
    (tmp_path / "data" / "book.txt").write_text("Call me Ishmael.", encoding="utf-8")
    app = create_app(settings, registry=make_registry())
    runs, job_command = app.state.runs, app.state.runs.command
    runs.command = lambda record: [sys.executable, "-c", JOB, s3.endpoint or "", *job_command(record)]
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def _keys(bucket: str, endpoint: str) -> list[str]:
    listing = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").list_objects_v2(Bucket=bucket)
    return sorted(item["Key"] for item in listing.get("Contents", []))


def _wait_for_runs(client: TestClient, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while any(r["status"] in ("queued", "running") for r in client.get("/runs", headers=AUTH).json()):
        assert time.monotonic() < deadline, "a run is still going"
        time.sleep(0.2)


@pytest.mark.s3
@pytest.mark.parametrize("escape", ["%2e%2e", "%2E%2E"])
def test_issue_38_post_runs_with_an_encoded_dotdot_lakehouse_is_refused_and_writes_nothing_outside(
    bucket_client: TestClient, s3_bucket: tuple[str, S3Settings], escape: str
) -> None:
    bucket, s3 = s3_bucket
    uri = f"s3a://{bucket}/api/{escape}/lh"
    response = bucket_client.post("/runs", headers=AUTH, json={"inputs": ["book.txt"], "lakehouse": uri})
    _wait_for_runs(bucket_client)
    outside = [key for key in _keys(bucket, s3.endpoint or "") if not key.startswith("api/")]
    assert outside == []  # before: lh/documents/_delta_log/… — the run escaped its prefix
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert detail.startswith(f"lakehouse {uri!r}: ") and "percent-escapes are not allowed" in detail
    assert bucket_client.get("/runs", headers=AUTH).json() == []  # nothing was queued


@pytest.mark.s3
@pytest.mark.parametrize("suffix", ["lh?versionId=1", "lh#frag", "a//lh", "a/./lh"])
def test_issue_38_post_runs_with_a_uri_the_store_would_rewrite_is_422(
    bucket_client: TestClient, s3_bucket: tuple[str, S3Settings], suffix: str
) -> None:
    bucket, _ = s3_bucket
    uri = f"s3a://{bucket}/api/{suffix}"
    response = bucket_client.post("/runs", headers=AUTH, json={"inputs": ["book.txt"], "lakehouse": uri})
    assert response.status_code == 422, response.text
    assert response.json()["detail"].startswith(f"lakehouse {uri!r}: {uri}: ")
    assert bucket_client.get("/runs", headers=AUTH).json() == []


def test_issue_38_an_allowed_root_named_by_its_absolute_path_is_refused_as_input_and_lakehouse(
    client: TestClient, tmp_path: Path
) -> None:
    root = str((tmp_path / "data").resolve())
    for body, field in (({"inputs": [root]}, "inputs.0"), ({"inputs": [f"{root}/"]}, "inputs.0"),
                        ({"inputs": ["book.txt"], "lakehouse": root}, "lakehouse")):
        (tmp_path / "data" / "book.txt").write_text("Call me Ishmael.", encoding="utf-8")
        response = client.post("/runs", headers=AUTH, json=body)
        assert response.status_code == 422, response.text
        given = body["lakehouse"] if field == "lakehouse" else body["inputs"][0]
        assert response.json()["detail"] == (
            f"{field}: {given!r} names the whole allowed root; name a file or folder inside it"
        )
    assert client.get("/runs", headers=AUTH).json() == []


def test_issue_38_the_servers_own_lakehouse_may_still_be_an_allowed_root(tmp_path: Path) -> None:
    # the operator's choice (tests/integration/test_api.py serves this way): a root itself only when not named
    roots = resolve_roots([tmp_path])
    assert confine_path(str(tmp_path), roots, field="lakehouse", must_exist=False, whole_root=True) == roots[0]
    with pytest.raises(ProblemError) as refused:
        confine_path(str(tmp_path), roots, field="lakehouse", must_exist=False)
    assert refused.value.status == 422


def test_issue_38_an_empty_lakehouse_is_called_empty(client: TestClient, tmp_path: Path) -> None:
    (tmp_path / "data" / "book.txt").write_text("Call me Ishmael.", encoding="utf-8")
    response = client.post("/runs", headers=AUTH, json={"inputs": ["book.txt"], "lakehouse": ""})
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail.startswith("lakehouse '': the lakehouse root is empty") and "'.'" not in detail
