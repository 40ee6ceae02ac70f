"""Issue 38 item 6 (iii): a stage's ``_STATE`` (what its next incremental run reuses — the entities stage's corpus
evidence) was trusted whenever it named the marker's run, even after it had been changed. The marker now records the
SHA-256 of the state its run wrote; a state that does not match is not used (a warning says so) and the stage counts
again what it kept. Through the real command line, in this process.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli.app import main
from cli.base import EXIT_OK
from graph.lakehouse import Lakehouse
from ingestion.markers import MarkerStore
from tests.conftest import SAMPLES


def test_issue_38_an_altered_entities_state_is_not_trusted_and_is_counted_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, lake = tmp_path / "corpus", tmp_path / "lake"
    corpus.mkdir()
    shutil.copy(SAMPLES / "en" / "harbour_notes.txt", corpus)
    argv = ["pipeline", str(corpus), "--lakehouse", str(lake), "--quiet"]
    assert main(argv) == EXIT_OK
    markers = MarkerStore(Lakehouse.for_root(lake))
    marker = markers.read("entities")
    assert marker is not None
    assert markers.read_state("entities", marker) is not None  # unchanged: trusted
    state_file = lake / "_markers" / "entities" / "_STATE"
    state = json.loads(state_file.read_text(encoding="utf-8"))
    state["evidence"]["lower"] = [word for word in state["evidence"]["lower"] if word != "boat"] + ["vance"]
    state_file.write_text(json.dumps(state), encoding="utf-8")  # well-formed, same run id, other content
    assert markers.read_state("entities", marker) is None
    capsys.readouterr()

    shutil.copy(SAMPLES / "en" / "the_lighthouse_keepers.md", corpus)  # an incremental run that would reuse it
    assert main(argv) == EXIT_OK
    assert "ignoring stage state" in capsys.readouterr().err
    evidence = markers.read("entities").details["evidence"]  # type: ignore[union-attr]
    assert evidence == {"documents_kept": 0, "documents_counted": 2}
