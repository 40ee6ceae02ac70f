"""Issue 12 "also mend": one atomic file write helper (graph/files.py) for every layer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from graph.files import atomic_open, atomic_write_bytes, atomic_write_text


def test_issue_12_atomic_write_text_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "_SUCCESS.json"
    target.write_text("old", encoding="utf-8")
    atomic_write_text(target, "új tartalom")
    assert target.read_text(encoding="utf-8") == "új tartalom"
    atomic_write_bytes(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_SUCCESS.json"]


def test_issue_12_atomic_write_failure_keeps_the_old_file_and_removes_the_temporary(tmp_path: Path) -> None:
    target = tmp_path / "index.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError, match="half written"), atomic_open(target, "w", encoding="utf-8") as out:
        out.write("new, but")
        raise RuntimeError("half written")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.json"]
    with pytest.raises(TypeError):
        atomic_write_text(target, b"bytes are not text")  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.json"]


def test_issue_12_atomic_write_into_a_missing_folder_names_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="missing"):
        atomic_write_bytes(tmp_path / "missing" / "file.bin", b"x")


def test_issue_12_atomic_open_rejects_a_mode_it_cannot_make_atomic(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"'ab' is not supported; valid: 'wb', 'w'"), \
            atomic_open(tmp_path / "log", "ab"):  # type: ignore[arg-type]
        pass


def test_issue_12_a_killed_writer_never_leaves_a_partial_file_under_the_final_name(tmp_path: Path) -> None:
    # A real process dies mid-write (os._exit: no cleanup runs): the target keeps its old content.
    target = tmp_path / "graph.npz"
    target.write_bytes(b"old")
    script = (
        "import os, sys\nfrom graph.files import atomic_open\n"
        "with atomic_open(sys.argv[1]) as out:\n    out.write(b'partial')\n    out.flush()\n    os._exit(9)\n"
    )
    root = Path(__file__).resolve().parents[3]
    killed = subprocess.run([sys.executable, "-c", script, str(target)], cwd=root)
    assert killed.returncode == 9
    assert target.read_bytes() == b"old"
    # The orphaned temporary is hidden (dot-named) beside the target, never the target itself.
    assert [p.name for p in tmp_path.iterdir() if p.name != "graph.npz"][0].startswith(".graph.npz.")
