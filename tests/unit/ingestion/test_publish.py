"""Issue 11 item 3: readers never see a half-written run — the publish manifest, on real Spark and Delta tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graph.lakehouse import Lakehouse
from graph.published import PUBLISHED_FILE, read_published
from tests.unit.ingestion.tables import version

pytestmark = pytest.mark.spark

NEW_DOCUMENT = (
    "Captain Ingrid Solberg sailed from Bergen to Reykjavik in March. In Reykjavik, Ingrid Solberg met Gunnar "
    "Olafsson at the harbour office, and Gunnar Olafsson showed Ingrid Solberg the old charts of the fjord.\n"
)


def _graph_counts(lake: Path) -> tuple[int, int, int, int]:
    from graph.model import GraphData

    graph = GraphData.from_lakehouse(Lakehouse.for_root(lake))
    return len(graph.entities), len(graph.relations), len(graph.chunks), len(graph.mentions)


def test_issue_11_reader_sees_the_published_run_while_a_later_run_fails_half_way(
    ingest: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pipeline_run: Any
) -> None:
    from ingestion.stages.mentions import MentionsStage
    from jobs.status import lakehouse_status
    from tools.retrieval.chunks import ChunkRetriever, index_paths

    run = pipeline_run("harbour_notes.txt")
    corpus, lake, first = run.corpus, tmp_path / "lake", run.result
    manifest = read_published(Lakehouse.for_root(lake))
    assert manifest is not None and manifest.run_id == first.run_id
    assert manifest.tables["chunks"] == version(lake, "chunks")
    published_counts = _graph_counts(lake)
    published_chunks = {c.chunk_id for c in ChunkRetriever.from_lakehouse(Lakehouse.for_root(lake), "en").chunks}
    published_index = index_paths(Lakehouse.for_root(lake), "en", manifest.tables["chunks"])[0]
    assert published_index.name in manifest.index_files and published_index.is_file()

    # A second run over a bigger corpus commits new documents and chunks, then dies in the mentions stage.
    (corpus / "fjord.txt").write_text(NEW_DOCUMENT, encoding="utf-8")

    def explode(self: Any, ctx: Any, incremental: bool) -> Any:
        raise RuntimeError("forced failure after the chunks stage")

    monkeypatch.setattr(MentionsStage, "compute", explode)
    second = ingest([corpus], run_id="run-2")
    monkeypatch.undo()
    assert second.status == "failed" and second.stages[3].stage == "mentions", second
    assert version(lake, "chunks") > manifest.tables["chunks"]  # the half-written run did commit new chunks

    # Every reader still sees run-1: the graph, the chunk retriever (and its index file), status.
    assert read_published(Lakehouse.for_root(lake)) == manifest
    assert _graph_counts(lake) == published_counts
    retriever = ChunkRetriever.from_lakehouse(Lakehouse.for_root(lake), "en")
    assert {c.chunk_id for c in retriever.chunks} == published_chunks
    assert published_index.is_file()
    status = lakehouse_status(Lakehouse.for_root(lake))
    assert status["published"]["run_id"] == first.run_id and status["running"] is None
    assert {m["run_id"] for m in status["stages"].values() if m} == {first.run_id}
    assert status["tables"]["documents"] == 1

    # Running the stages before the failure again leaves the later stages out of date: still nothing published.
    partial = ingest([corpus], stages=["documents", "chunks", "index"], run_id="run-3")
    assert [s.status for s in partial.stages] == ["skipped"] * 3, partial
    assert read_published(Lakehouse.for_root(lake)) == manifest

    # The next complete run publishes; the index files of the old chunks version go only now.
    third = ingest([corpus], run_id="run-4")
    assert third.status == "succeeded", third
    now = read_published(Lakehouse.for_root(lake))
    assert now is not None and now.run_id == "run-4" and now.tables["chunks"] == version(lake, "chunks")
    assert _graph_counts(lake)[2] > published_counts[2]
    assert not published_index.exists()
    assert sorted(p.name for p in (lake / "_index").iterdir()) == now.index_files


def test_issue_11_first_locked_run_publishes_an_unmanifested_lakehouse_as_found(
    ingest: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pipeline_run: Any
) -> None:
    from ingestion.stages.graph import GraphStage

    corpus, lake = pipeline_run("harbour_notes.txt").corpus, tmp_path / "lake"
    counts = _graph_counts(lake)
    (lake / PUBLISHED_FILE).unlink()  # as a lakehouse written before publishing existed
    (corpus / "fjord.txt").write_text(NEW_DOCUMENT, encoding="utf-8")

    def explode(self: Any, ctx: Any, incremental: bool) -> Any:
        raise RuntimeError("forced failure in the graph stage")

    monkeypatch.setattr(GraphStage, "compute", explode)
    assert ingest([corpus]).status == "failed"
    baseline = json.loads((lake / PUBLISHED_FILE).read_text(encoding="utf-8"))
    assert baseline["run_id"] is None  # the tables as found when the run took the lakehouse
    assert _graph_counts(lake) == counts
