"""Issue 16, item 1 through the REST surface: the production API (``api.app:create_app_from_env`` under uvicorn) whose
``lakehouse.root`` is an S3 bucket (moto's S3 API server on 127.0.0.1). ``/chat`` is a 503 naming the bucket until
it is built; ``POST /runs`` starts the real job (``./spark-submit.sh pipeline``, which must give its JVM Hadoop's S3A
connector) into the bucket; ``GET /runs/{id}`` reads the stage markers from the bucket; then ``/chat`` answers the
demo question from the tables in the bucket — and no local folder named "s3a:" appears anywhere.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from graph.lakehouse import Lakehouse
from graph.settings import S3Settings
from tests.conftest import ROOT, SAMPLES
from tests.integration.api_server import ApiServer
from tests.unit.api.sse import parse_sse
from tools.ingestion import STAGE_NAMES

pytestmark = [pytest.mark.s3, pytest.mark.spark, pytest.mark.integration]

KEY = "bucket-api-key-5f2c"
AUTH = {"X-API-Key": KEY}
QUESTION = "Who is Margaret Hale's closest companion?"
ANSWER = "Margaret Hale's closest companion is Ellen Pryor"  # tests/integration/test_chat_surfaces.py's, on local disk


def _chat(server: ApiServer) -> httpx.Response:
    return httpx.post(f"{server.url}/chat", headers=AUTH, json={"prompt": QUESTION, "user_id": "t"}, timeout=120)


def _poll(url: str, timeout: float) -> dict[str, Any]:
    deadline, body = time.monotonic() + timeout, {}
    while time.monotonic() < deadline:
        body = httpx.get(url, headers=AUTH, timeout=10).json()
        if body["status"] not in {"queued", "running"}:
            return body
        time.sleep(0.5)
    raise AssertionError(f"{url} is still {body.get('status')} after {timeout} s: {body}")


def test_issue_16_api_runs_into_and_chats_from_a_bucket(s3_bucket: tuple[str, S3Settings], tmp_path: Path) -> None:
    bucket, s3 = s3_bucket  # the credentials are in this environment, which the server and its jobs inherit
    root = f"s3a://{bucket}/api/lh"
    env = {
        "CSILLAG_API_API_KEY": KEY, "CSILLAG_API_STATE_DIR": str(tmp_path / "state"),
        "CSILLAG_API_ALLOWED_ROOTS": f'["{SAMPLES}"]', "CSILLAG_LAKEHOUSE_ROOT": root,
        "CSILLAG_LAKEHOUSE_S3": s3.model_dump_json(), "CSILLAG_SPARK_MASTER": "local[2]",
        "CSILLAG_NO_BOOTSTRAP": "1", "CSILLAG_VENV": str(Path(sys.executable).parent.parent),
        "PYSPARK_PYTHON": sys.executable,
    }
    server = ApiServer(env, tmp_path / "server.log", factory="api.app:create_app_from_env").start(timeout=120)
    try:
        refused = _chat(server)
        assert refused.status_code == 503, refused.text
        assert root in refused.json()["detail"], refused.json()

        started = httpx.post(f"{server.url}/runs", headers=AUTH, json={"inputs": ["en"]}, timeout=30)
        assert started.status_code == 202, started.text
        assert started.json()["lakehouse"] == root
        run = _poll(f"{server.url}/runs/{started.json()['run_id']}", 900)
        log = Path(run["log_file"]).read_text(encoding="utf-8")[-3000:] if run.get("log_file") else ""
        assert run["status"] == "succeeded", (run, log)
        # every stage's marker but neo4j's (that stage loads a Neo4j server only with graph.store = "neo4j")
        assert sorted(run["markers"]) == sorted(s for s in STAGE_NAMES if s != "neo4j")
        assert {m["run_id"] for m in run["markers"].values()} == {run["run_id"]}  # read from the bucket
        storage = Lakehouse.for_root(root, s3)
        assert storage.is_table("entities") and storage.read_text("_markers", "graph", "_SUCCESS") is not None

        events = parse_sse(_chat(server).text)
        assert events[-1][0] == "final", events
        assert events[-1][1]["choices"][0]["message"]["content"].startswith(ANSWER), events[-1]
    finally:
        server.stop()
    assert not [folder for folder in (ROOT, tmp_path, SAMPLES) if (folder / "s3a:").exists()]
