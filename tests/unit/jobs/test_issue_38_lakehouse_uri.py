"""Issue 38, the command line's side: a ``--lakehouse`` the object store would read differently from csillag
(``%2e%2e``, a query, ``//``) or a mistyped or empty one ends the command with one line and exit 2, before any work
— the same parser as the settings and the API (tests/unit/graph/test_issue_38_lakehouse_uri.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.app import main as cli_main
from cli.base import EXIT_USAGE

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "ingestion" / "samples" / "en"


@pytest.mark.parametrize(
    ("uri", "why"),
    [("s3a://b-38/x/%2e%2e/y", "percent-escapes are not allowed"), ("s3a://b-38/x?versionId=1", "a query or fragment"),
     ("s3a:/b-38/x", "write '://' after the scheme"), ("", "the lakehouse root is empty")],
)
def test_issue_38_pipeline_with_a_lakehouse_the_store_would_rewrite_is_one_line_exit_2(
    uri: str, why: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CSILLAG_LAKEHOUSE_ROOT", raising=False)
    assert cli_main(["pipeline", str(SAMPLES), "--lakehouse", uri, "--check"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"csillag: invalid setting lakehouse.root = {uri!r}: "), err
    assert why in err[0], err
    assert list(tmp_path.iterdir()) == []  # no folder "s3a:" nor the default lakehouse


@pytest.mark.parametrize("command", [["status"], ["ask", "Who?"], ["vacuum", "--dry-run"]])
def test_issue_38_other_commands_refuse_an_encoded_dotdot_lakehouse_in_one_line(
    command: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    uri = "s3a://b-38/x/%2e%2e/y"
    assert cli_main([*command, "--lakehouse", uri]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and repr(uri) in err[0] and "percent-escapes are not allowed" in err[0], err
