"""Issue 16: a lakehouse root csillag cannot write is refused with one line on every surface (the API's side:
tests/unit/api/test_issue_16_lakehouse_uri.py).

``s3a://bucket/lh`` used to become the local folder ``s3a:/bucket/lh`` (pathlib folds the double slash) and a run
"succeeded" into it. The pipeline, ``csillag status`` and ``summary`` now take s3a:// roots (proven against an S3 API
server in tests/integration/test_issue_16_s3_pipeline.py), and so does the chat side (``ask``; on a bucket:
tests/unit/tools/test_issue_16_chat_on_a_bucket.py); so do hdfs:// roots (against a MiniDFSCluster:
tests/integration/test_issue_16_hdfs_pipeline.py); GCS and Azure roots stay refused everywhere — csillag has no tested
storage for them (``vacuum`` and ``graph`` take a bucket too:
tests/unit/ingestion/test_issue_16_vacuum_on_a_bucket.py, tests/integration/test_issue_16_s3_pipeline.py). Each test
checks the line and that nothing was written under the working folder.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from cli.app import main as cli_main
from cli.base import EXIT_FAILED, EXIT_USAGE
from settings.config import load_settings
from settings.errors import ConfigError
from tools.errors import LakehouseNotReadyError

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "ingestion" / "samples" / "en"
REMOTE = ["gs://bucket/lh", "abfss://c@a.dfs/lh", "wasbs://c@a.blob/lh"]


@pytest.mark.parametrize("uri", REMOTE)
def test_issue_16_remote_root_setting_is_refused_naming_the_uri_and_the_scheme(uri: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(lakehouse={"root": uri})
    message = str(caught.value)
    scheme = uri.split("://")[0]
    assert f"lakehouse.root = {uri!r}" in message and f"{scheme}:// is not supported" in message
    assert "s3a://BUCKET/PATH" in message  # what is accepted


@pytest.mark.parametrize("uri", ["s3a://bucket/lh", "s3://bucket/lh/"])
def test_issue_16_s3_root_setting_is_kept_as_one_s3a_uri(uri: str) -> None:
    assert load_settings(lakehouse={"root": uri}).lakehouse.root == "s3a://bucket/lh"


@pytest.mark.parametrize("uri", ["hdfs://namenode:8020/lh", "hdfs://namenode:8020/lh/", "hdfs://nameservice1/lh"])
def test_issue_16_hdfs_root_setting_is_kept_as_one_hdfs_uri(uri: str) -> None:
    assert load_settings(lakehouse={"root": uri}).lakehouse.root == uri.removesuffix("/")


def test_issue_16_hdfs_root_without_a_namenode_is_refused_naming_it() -> None:
    with pytest.raises(ConfigError, match="does not name an HDFS NameNode"):
        load_settings(lakehouse={"root": "hdfs:///lh"})


def test_issue_16_s3_root_with_a_bad_bucket_name_is_refused_naming_it() -> None:
    with pytest.raises(ConfigError, match="does not name a valid S3 bucket \\('B_'\\)"):
        load_settings(lakehouse={"root": "s3a://B_/lh"})


def test_issue_16_file_uri_and_paths_are_local_roots(tmp_path: Path) -> None:
    assert load_settings(lakehouse={"root": "relative/lake"}).lakehouse.root == Path("relative/lake")
    assert load_settings(lakehouse={"root": f"file://{tmp_path}/lake"}).lakehouse.root == tmp_path / "lake"


def test_issue_16_remote_root_from_the_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CSILLAG_LAKEHOUSE_ROOT", "gs://bucket/lh")
    with pytest.raises(ConfigError, match="CSILLAG_LAKEHOUSE_ROOT"):
        load_settings()


@pytest.mark.parametrize(
    ("command", "uri"),
    [(["status"], "gs://bucket/lh"), (["pipeline", str(SAMPLES)], "gs://bucket/lh"), (["ask", "Who?"], "abfss://c@a/lh"),
     (["vacuum", "--dry-run"], "gs://bucket/lh"), (["graph", "export", "g.graphml"], "gs://bucket/lh")],
)
def test_issue_16_cli_unsupported_lakehouse_option_is_one_line_exit_2(
    command: list[str], uri: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli_main([*command, "--lakehouse", uri]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    scheme = uri.split("://")[0]
    assert len(err) == 1 and repr(uri) in err[0] and f"{scheme}:// is not supported" in err[0], err
    assert list(tmp_path.iterdir()) == []  # no folder named "gs:" or "abfss:" appeared


def test_issue_16_spark_submit_remote_lakehouse_is_refused_before_spark(tmp_path: Path) -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CSILLAG_", "SPARK_"))}
    started = time.monotonic()
    done = subprocess.run(
        [str(ROOT / "spark-submit.sh"), "pipeline", str(SAMPLES), "--lakehouse", "gs://bucket/lh"],
        cwd=tmp_path, env=environ | {"CSILLAG_NO_BOOTSTRAP": "1"}, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == EXIT_USAGE, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("csillag: invalid setting lakehouse.root = 'gs://bucket/lh'")
    assert list(tmp_path.iterdir()) == [] and time.monotonic() - started < 20  # no JVM, no local "gs:" folder



def test_issue_16_spark_submit_user_check_starts_no_spark_submit(tmp_path: Path) -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CSILLAG_", "SPARK_"))}
    lake = tmp_path / "lake"
    done = subprocess.run(
        [str(ROOT / "spark-submit.sh"), "pipeline", str(SAMPLES), "--lakehouse", str(lake), "--check"],
        cwd=tmp_path, env=environ | {"CSILLAG_NO_BOOTSTRAP": "1"}, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "", done.stderr
    # spark-submit resolves the Delta package with Ivy before anything else: none of that ran
    assert ":: resolving dependencies" not in done.stderr and "ivy" not in done.stderr.lower(), done.stderr
    assert not lake.exists()


@pytest.mark.s3
def test_issue_16_chat_side_reads_an_s3a_root_setting_and_names_it_when_it_holds_nothing(
    s3_bucket: tuple[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the chat side reads the bucket (its answers: tests/unit/tools/test_issue_16_chat_on_a_bucket.py), and an
    # s3a:// lakehouse.root never becomes the local folder "s3a:"
    bucket, s3 = s3_bucket
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CSILLAG_LAKEHOUSE_ROOT", f"s3a://{bucket}/lh")
    monkeypatch.setenv("CSILLAG_LAKEHOUSE_S3", s3.model_dump_json())
    assert cli_main(["ask", "Who is Ishmael?"]) == EXIT_FAILED
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"csillag: lakehouse s3a://{bucket}/lh does not exist; ingest a corpus into it first: "
                   f"csillag ingest PATH… --lakehouse s3a://{bucket}/lh"], err
    from tools.platform import ChatPlatform

    with pytest.raises(LakehouseNotReadyError, match=f"lakehouse s3a://{bucket}/lh does not exist"):
        ChatPlatform.from_settings(load_settings())
    assert list(tmp_path.iterdir()) == []
