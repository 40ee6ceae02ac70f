"""A job killed mid-stage leaves no marker; the rerun resumes and the tables hold no duplicates (R-ING-2)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from graph.tables import NON_PROSE_UNIT_KINDS
from tests.conftest import ROOT, SAMPLES
from tests.unit.ingestion.tables import comparable, read

pytestmark = [pytest.mark.spark, pytest.mark.integration]


def _commits(table: Path) -> int:
    log = table / "_delta_log"
    return len(list(log.glob("*.json"))) if log.is_dir() else 0


def _assert_progress_never_ahead_of_mentions(lake: Path) -> None:
    """Every committed version of the progress record is covered by the mentions committed before it.

    The stage commits a batch's mentions before its progress rows (the next batch's NER runs meanwhile); resuming is
    right only if no snapshot of ``mention_chunks`` names a chunk whose mentions were not all committed by then.
    """
    from deltalake import DeltaTable

    mention_versions = sorted((h["timestamp"], h["version"]) for h in DeltaTable(lake / "mentions").history())
    checked = 0
    for entry in DeltaTable(lake / "mention_chunks").history():
        done = DeltaTable(lake / "mention_chunks", version=entry["version"]).to_pandas()
        if done.empty:
            continue
        before = [v for ts, v in mention_versions if ts <= entry["timestamp"]]
        assert before, f"progress version {entry['version']} was committed before any mentions"
        mentions = DeltaTable(lake / "mentions", version=before[-1]).to_pandas()
        have = mentions.chunk_id.value_counts()
        for chunk_id, n_mentions in zip(done.chunk_id, done.n_mentions, strict=True):
            assert have.get(chunk_id, 0) == n_mentions, (entry["version"], chunk_id)
        checked += 1
    assert checked >= 2


def test_r_ing_2_killed_mid_stage_resumes_without_duplicates(ingest: Any, make_settings: Any, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLES / "en", corpus)
    # Enough batches that the stage is still running when the test sees its fourth commit: the sample alone is a
    # dozen batches that a fast machine finishes between two looks at the table. Each copy is its own document.
    story = (SAMPLES / "en" / "the_lighthouse_keepers.md").read_text(encoding="utf-8")
    for copy in range(2, 6):
        (corpus / f"the_lighthouse_keepers_{copy}.md").write_text(f"Copy {copy}.\n\n{story}", encoding="utf-8")
    lake = tmp_path / "lake"
    # small batches on the workers (NER in the driver, which the samples' few words would get, is over too soon)
    env = dict(os.environ, CSILLAG_INGESTION_MENTIONS_BATCH_WORDS="300", CSILLAG_INGESTION_DRIVER_MAX_NER_WORDS="0",
               PYSPARK_PYTHON=sys.executable)
    job = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jobs.pipeline",
            str(corpus),
            "--lakehouse",
            str(lake),
            "--master",
            "local[2]",
            "--quiet",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    progress = lake / "mention_chunks"
    deadline = time.monotonic() + 300
    try:
        # Kill once a few NER batches are committed: the table's creation plus at least three appends.
        while _commits(progress) < 4:
            assert job.poll() is None, f"the job ended before it could be killed: {job.stdout.read().decode()[-2000:]}"
            assert time.monotonic() < deadline, "the mentions stage never got going"
            time.sleep(0.05)
    finally:
        os.killpg(job.pid, signal.SIGKILL)
        job.wait(30)
    assert not (lake / "_markers" / "mentions" / "_SUCCESS").exists()
    _assert_progress_never_ahead_of_mentions(lake)
    done_before = len(read(lake, "mention_chunks"))
    chunks = read(lake, "chunks")
    total_chunks = int((~chunks.unit_kind.isin(NON_PROSE_UNIT_KINDS)).sum())  # NER reads prose chunks only (issue 14)
    assert 0 < done_before < total_chunks, (done_before, total_chunks)

    settings = make_settings(lakehouse={"root": lake}, ingestion={"mentions_batch_words": 300})
    resumed = ingest([corpus], settings=settings)
    assert resumed.status == "succeeded", resumed
    stages = {s.stage: s for s in resumed.stages}
    assert stages["documents"].status == stages["chunks"].status == "skipped"
    # Resumed, not redone: only the chunks the killed run had not finished went through NER.
    assert stages["mentions"].counts["chunks_processed"] == total_chunks - done_before
    mentions = read(lake, "mentions")
    assert mentions.mention_id.is_unique
    assert read(lake, "mention_chunks").chunk_id.is_unique

    fresh = make_settings(lakehouse={"root": tmp_path / "fresh"})
    assert ingest([corpus], settings=fresh).status == "succeeded"
    for table in ("chunks", "mentions", "entities", "mention_entities", "cooccurrences", "graph_nodes"):
        assert comparable(read(lake, table)) == comparable(read(tmp_path / "fresh", table)), table
