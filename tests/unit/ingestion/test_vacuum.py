"""Issue 11 item 6: old text stays readable through Delta time travel until ``csillag vacuum`` removes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from deltalake import DeltaTable

from cli.app import main as cli_main
from graph.lakehouse import Lakehouse
from tests.unit.ingestion.tables import read

pytestmark = pytest.mark.spark

OLD = "Captain Vance kept the old secret ledger in the harbour office, and nobody else ever read it.\n"
NEW = "Captain Vance burnt the ledger in the harbour office stove one cold evening in March.\n"


def _index_files(lake: Path) -> set[str]:
    return {p.name for p in (lake / "_index").iterdir()}


def test_issue_11_vacuum_removes_old_versions_text_and_keeps_the_current_tables(
    ingest: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    ledger = corpus / "ledger.txt"
    ledger.write_text(OLD, encoding="utf-8")
    stages = ["documents", "chunks", "index"]
    assert ingest([corpus], stages=stages).status == "succeeded"
    ledger.write_text(NEW, encoding="utf-8")
    assert ingest([corpus], stages=stages).status == "succeeded"
    lake = tmp_path / "lake"
    documents = str(lake / "documents")
    assert DeltaTable(documents, version=0).to_pandas().text.tolist() == [OLD]  # time travel: the old text is there
    current = read(lake, "documents")
    chunks_before = DeltaTable(str(lake / "chunks")).version()

    # A dry run lists what would go and removes nothing.
    assert cli_main(["vacuum", "--lakehouse", str(lake), "--retention-hours", "0", "--dry-run", "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert planned["documents"] and planned["chunks"]
    assert DeltaTable(documents, version=0).to_pandas().text.tolist() == [OLD]

    assert cli_main(["vacuum", "--lakehouse", str(lake), "--retention-hours", "0"]) == 0
    out = capsys.readouterr().out
    assert f"documents: removed {len(planned['documents'])} file(s)" in out
    assert not any((lake / "documents" / name).exists() for name in planned["documents"])
    with pytest.raises(FileNotFoundError):
        DeltaTable(documents, version=0).to_pandas()  # the old text is gone for good
    assert read(lake, "documents").equals(current)  # the current version is untouched
    # VACUUM committed to chunks without changing a row: its index is reachable under the new version too.
    chunks_after = DeltaTable(str(lake / "chunks")).version()
    assert chunks_after > chunks_before
    assert any(name.endswith(f"-v{chunks_after}.npz") for name in _index_files(lake))
    # Nothing left to remove: a second vacuum removes nothing and commits nothing.
    assert cli_main(["vacuum", "--lakehouse", str(lake), "--retention-hours", "0", "--json"]) == 0
    assert all(files == [] for files in json.loads(capsys.readouterr().out).values())
    assert DeltaTable(str(lake / "chunks")).version() == chunks_after


def test_vacuum_default_retention_keeps_recent_versions(ingest: Any, tmp_path: Path, capsys: Any) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "ledger.txt").write_text(OLD, encoding="utf-8")
    assert ingest([corpus], stages=["documents"]).status == "succeeded"
    (corpus / "ledger.txt").write_text(NEW, encoding="utf-8")
    assert ingest([corpus], stages=["documents"]).status == "succeeded"
    lake = tmp_path / "lake"
    assert cli_main(["vacuum", "--lakehouse", str(lake)]) == 0  # lakehouse.retention_hours: 168
    assert "removed 0 file(s) in 2 table(s)" in capsys.readouterr().out
    assert DeltaTable(str(lake / "documents"), version=0).to_pandas().text.tolist() == [OLD]


def test_vacuum_refuses_while_a_run_holds_the_lakehouse(tmp_path: Path, capsys: Any) -> None:
    from ingestion.lock import LakehouseLock

    lake = tmp_path / "lake"
    lake.mkdir()
    with LakehouseLock(Lakehouse.for_root(lake), run_id="r-busy", tool="ner_ingestion"):
        assert cli_main(["vacuum", "--lakehouse", str(lake), "--retention-hours", "0"]) == 4
    err = capsys.readouterr().err
    assert "run r-busy" in err and err.startswith("csillag:")


def test_vacuum_of_a_missing_lakehouse_fails_naming_it(tmp_path: Path, capsys: Any) -> None:
    assert cli_main(["vacuum", "--lakehouse", str(tmp_path / "nowhere")]) == 1
    assert f"lakehouse {tmp_path / 'nowhere'} does not exist" in capsys.readouterr().err
