"""Issue 16, item 1: ``csillag vacuum`` on a lakehouse in an S3 bucket (moto's S3 API server on 127.0.0.1).

The tables are written by delta-rs straight into the bucket (two versions of ``documents``: the old text and the new),
so the test needs no Spark: what it proves is the vacuum's storage, the same delta-rs ``storage_options`` the
driver's commits use, the bucket's lock, and the index files copied under the new chunks version (a bucket has no
links). The folder case is tests/unit/ingestion/test_vacuum.py's.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest
from deltalake import DeltaTable, write_deltalake

from cli.app import main as cli_main
from graph.lakehouse import Lakehouse
from graph.settings import S3Settings
from ingestion.lock import LOCK_FILE

pytestmark = pytest.mark.s3

OLD = "Captain Vance kept the old secret ledger in the harbour office."
NEW = "Captain Vance burnt the ledger in the harbour office stove."


@pytest.fixture
def bucket_lake(s3_bucket: tuple[str, S3Settings], monkeypatch: pytest.MonkeyPatch) -> Lakehouse:
    """A bucket lakehouse whose documents table has an old and a new version, and a chunks table with index files."""
    bucket, s3 = s3_bucket
    monkeypatch.setenv("CSILLAG_LAKEHOUSE_S3", s3.model_dump_json())
    storage = Lakehouse.for_root(f"s3a://{bucket}/lib/lh", s3)
    options = storage.storage_options
    write_deltalake(storage.delta_uri("documents"), pd.DataFrame({"doc_id": ["d1"], "text": [OLD]}),
                    storage_options=options)
    write_deltalake(storage.delta_uri("documents"), pd.DataFrame({"doc_id": ["d1"], "text": [NEW]}),
                    mode="overwrite", storage_options=options)
    write_deltalake(storage.delta_uri("chunks"), pd.DataFrame({"chunk_id": ["c1"], "text": [NEW]}),
                    storage_options=options)
    write_deltalake(storage.delta_uri("chunks"), pd.DataFrame({"chunk_id": ["c1"], "text": [NEW + " "]}),
                    mode="overwrite", storage_options=options)
    storage.write_text("_index", "bm25-en-v1.json", data='{"chunks": 1}')
    return storage


def _documents(storage: Lakehouse, **version: Any) -> list[str]:
    table = DeltaTable(storage.delta_uri("documents"), storage_options=storage.storage_options, **version)
    return table.to_pandas().text.tolist()


def test_issue_16_vacuum_on_a_bucket_removes_old_text_keeps_current_and_copies_the_index(
    bucket_lake: Lakehouse, capsys: pytest.CaptureFixture[str]
) -> None:
    root = bucket_lake.uri()
    assert _documents(bucket_lake, version=0) == [OLD]  # time travel: the old text is in the bucket

    assert cli_main(["vacuum", "--lakehouse", root, "--retention-hours", "0", "--dry-run", "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert len(planned["documents"]) == 1 and len(planned["chunks"]) == 1, planned
    assert _documents(bucket_lake, version=0) == [OLD]  # a dry run removes nothing

    assert cli_main(["vacuum", "--lakehouse", root, "--retention-hours", "0"]) == 0
    out = capsys.readouterr().out
    assert "documents: removed 1 file(s)" in out and f"table(s) of {root} (retention 0 h)" in out, out
    assert not bucket_lake.is_file("documents", planned["documents"][0])
    with pytest.raises(Exception, match="(?i)not found|no such|404"):
        _documents(bucket_lake, version=0)  # the old text is gone for good
    assert _documents(bucket_lake) == [NEW]  # the current version is untouched
    chunks_now = DeltaTable(bucket_lake.delta_uri("chunks"), storage_options=bucket_lake.storage_options).version()
    assert chunks_now > 1  # VACUUM's own commits, which change no row
    # the index of the chunks version before VACUUM, copied under the new version (the old name stays)
    assert set(bucket_lake.list_files("_index")) == {"bm25-en-v1.json", f"bm25-en-v{chunks_now}.json"}
    assert bucket_lake.read_text("_index", f"bm25-en-v{chunks_now}.json") == '{"chunks": 1}'
    assert not bucket_lake.is_file(LOCK_FILE)  # the bucket's lock was taken and released


def test_issue_16_vacuum_of_an_empty_bucket_prefix_is_one_line_exit_1(
    s3_bucket: tuple[str, S3Settings], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bucket, s3 = s3_bucket
    monkeypatch.setenv("CSILLAG_LAKEHOUSE_S3", s3.model_dump_json())
    root = f"s3a://{bucket}/nothing/here"
    assert cli_main(["vacuum", "--lakehouse", root]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"csillag: lakehouse {root} does not exist or holds nothing in its bucket"], err
