"""spark-submit.sh's handshake with ``csillag pipeline`` (``cli.handshake``), through the real command in this process:
the codes and the option the script uses are the module's, a run with work is left to spark-submit or run here, and
an up-to-date run is answered without Spark."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from cli.base import EXIT_OK, EXIT_USAGE
from cli.handshake import OPTION, SPARK_ARGS_FILE_VARIABLE, Handshake, HandshakeExit
from cli.ingest import pipeline_main
from tests.conftest import ROOT, SAMPLES

SCRIPT = (ROOT / "spark-submit.sh").read_text(encoding="utf-8")


def test_spark_submit_sh_speaks_the_handshake_of_cli_handshake() -> None:
    codes = {name: int(value) for name, value in re.findall(r"^(ANSWERED|SUBMIT)=(\d+)", SCRIPT, re.MULTILINE)}
    assert codes == {code.name: code.value for code in HandshakeExit}
    assert f'{OPTION} "$MODE"' in SCRIPT and SPARK_ARGS_FILE_VARIABLE in SCRIPT
    modes = set(re.findall(r"\bMODE=([\w-]+)", SCRIPT))
    assert modes == {mode.value for mode in Handshake}


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SAMPLES / "en" / "harbour_notes.txt", corpus)
    return corpus


def _shake(corpus: Path, lake: Path, mode: Handshake, *extra: str) -> int:
    return pipeline_main([str(corpus), "--lakehouse", str(lake), "--master", "local[2]", "--quiet", "--json",
                          OPTION, mode.value, *extra])


def test_handshake_leaves_a_run_with_work_to_spark_submit_and_writes_its_arguments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args_file = tmp_path / "spark-args"
    args_file.write_text("stale\n", encoding="utf-8")
    monkeypatch.setenv(SPARK_ARGS_FILE_VARIABLE, str(args_file))
    lake = tmp_path / "lake"
    assert _shake(_corpus(tmp_path), lake, Handshake.SUBMIT) == HandshakeExit.SUBMIT
    assert capsys.readouterr().out == ""  # nothing ran: no result
    assert not (lake / "documents").exists()
    assert args_file.read_text(encoding="utf-8") == ""  # a folder needs nothing on spark-submit's command line


def test_handshake_refuses_a_missing_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _shake(tmp_path / "missing.txt", tmp_path / "lake", Handshake.RUN_HERE) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("csillag: input ") and "missing.txt" in err[0], err


def test_handshake_runs_a_local_run_here_and_then_answers_it_without_spark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, lake = _corpus(tmp_path), tmp_path / "lake"
    assert _shake(corpus, lake, Handshake.RUN_HERE) == EXIT_OK
    ran = json.loads(capsys.readouterr().out)
    assert ran["status"] == "succeeded" and (lake / "entities").is_dir()

    def no_spark(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an up-to-date run must be answered without Spark")

    monkeypatch.setattr("ingestion.spark.get_spark", no_spark)
    for mode in Handshake:
        assert _shake(corpus, lake, mode) == HandshakeExit.ANSWERED
        answered = json.loads(capsys.readouterr().out)
        assert answered["status"] == "skipped", answered
        assert [s["stage"] for s in answered["stages"]] == [s["stage"] for s in ran["stages"]]
        assert {s["status"] for s in answered["stages"]} == {"skipped"}
