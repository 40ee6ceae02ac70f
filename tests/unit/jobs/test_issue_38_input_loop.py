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


def test_issue_38_a_symlink_loop_named_as_an_api_input_is_a_422_naming_it(tmp_path: Path) -> None:
    from api.problems import ProblemError
    from api.security import confine_path, resolve_roots

    (tmp_path / "books").mkdir()
    (tmp_path / "books" / "loop").symlink_to(tmp_path / "books" / "loop")

    with pytest.raises(ProblemError) as caught:
        confine_path("books/loop", resolve_roots([tmp_path]), field="inputs.0")

    assert caught.value.status == 422
    assert caught.value.detail == "inputs.0: 'books/loop' is a symbolic link loop (ELOOP); it leads to no file"
