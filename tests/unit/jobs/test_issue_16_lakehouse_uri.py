"""Issue 16, until object stores are supported: a remote lakehouse root is refused with one line on every surface
(the API's side: tests/unit/api/test_issue_16_lakehouse_uri.py).

``s3a://bucket/lh`` used to become the local folder ``s3a:/bucket/lh`` (pathlib folds the double slash) and a run
"succeeded" into it. Each test checks the line and that nothing was written under the working folder.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from jobs.cli import main as cli_main
from jobs.common import EXIT_USAGE
from settings.config import lakehouse_path, load_settings
from settings.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "ingestion" / "samples" / "en"
REMOTE = ["s3a://bucket/lh", "s3://bucket/lh", "hdfs://namenode:8020/lh", "gs://bucket/lh", "abfss://c@a.dfs/lh"]


@pytest.mark.parametrize("uri", REMOTE)
def test_issue_16_remote_root_setting_is_refused_naming_the_uri_and_the_scheme(uri: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(lakehouse={"root": uri})
    message = str(caught.value)
    scheme = uri.split("://")[0]
    assert f"lakehouse.root = {uri!r}" in message and f"{scheme}:// is not supported yet" in message


def test_issue_16_file_uri_and_paths_are_local_roots(tmp_path: Path) -> None:
    assert lakehouse_path(f"file://{tmp_path}/lake") == tmp_path / "lake"
    assert lakehouse_path("relative/lake") == Path("relative/lake")
    assert lakehouse_path(tmp_path / "lake") == tmp_path / "lake"
    assert load_settings(lakehouse={"root": f"file://{tmp_path}/lake"}).lakehouse.root == tmp_path / "lake"


def test_issue_16_remote_root_from_the_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CSILLAG_LAKEHOUSE_ROOT", "s3a://bucket/lh")
    with pytest.raises(ConfigError, match="CSILLAG_LAKEHOUSE_ROOT"):
        load_settings()


@pytest.mark.parametrize("command", [["status"], ["vacuum", "--dry-run"], ["graph", "export", "g.graphml"],
                                     ["pipeline", str(SAMPLES)], ["ask", "Who is Ishmael?"]])
def test_issue_16_cli_remote_lakehouse_option_is_one_line_exit_2(
    command: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli_main([*command, "--lakehouse", "s3a://bucket/lh"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'s3a://bucket/lh'" in err[0] and "s3a:// is not supported yet" in err[0], err
    assert list(tmp_path.iterdir()) == []  # no folder named "s3a:" appeared


def test_issue_16_spark_submit_remote_lakehouse_is_refused_before_spark(tmp_path: Path) -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CSILLAG_", "SPARK_"))}
    started = time.monotonic()
    done = subprocess.run(
        [str(ROOT / "spark-submit.sh"), "pipeline", str(SAMPLES), "--lakehouse", "s3a://bucket/lh"],
        cwd=tmp_path, env=environ | {"CSILLAG_NO_BOOTSTRAP": "1"}, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == EXIT_USAGE, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("csillag: invalid setting lakehouse.root = 's3a://bucket/lh'")
    assert list(tmp_path.iterdir()) == [] and time.monotonic() - started < 20  # no JVM, no local "s3a:" folder



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
