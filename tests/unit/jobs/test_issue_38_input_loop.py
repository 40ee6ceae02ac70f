"""Issue 38 item 12: a symlink loop named as an input is reported as a loop (ELOOP) naming it, not as missing."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_issue_38_a_symlink_loop_named_as_an_input_is_reported_as_a_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jobs.pipeline import main

    loop = tmp_path / "loop.txt"
    loop.symlink_to(loop)

    code = main([str(loop), "--lakehouse", str(tmp_path / "lake"), "--check"])

    assert code == 2
    line = capsys.readouterr().err.strip()
    assert line == (
        f"csillag: input {str(loop)!r} is a symbolic link loop (ELOOP: too many levels of symbolic links); "
        "it leads to no file"
    )
    assert not (tmp_path / "lake").exists()
