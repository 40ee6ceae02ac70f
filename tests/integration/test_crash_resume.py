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

from tests.conftest import ROOT, SAMPLES
from tests.unit.ingestion.tables import comparable, read

pytestmark = [pytest.mark.spark, pytest.mark.integration]


def _commits(table: Path) -> int:
    log = table / "_delta_log"
    return len(list(log.glob("*.json"))) if log.is_dir() else 0


def test_r_ing_2_killed_mid_stage_resumes_without_duplicates(ingest: Any, make_settings: Any, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLES / "en", corpus)
    lake = tmp_path / "lake"
    env = dict(os.environ, CSILLAG_INGESTION_MENTIONS_BATCH_WORDS="300", PYSPARK_PYTHON=sys.executable)
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
            time.sleep(0.2)
    finally:
        os.killpg(job.pid, signal.SIGKILL)
        job.wait(30)
    assert not (lake / "_markers" / "mentions" / "_SUCCESS").exists()
    done_before = len(read(lake, "mention_chunks"))
    total_chunks = len(read(lake, "chunks"))
    assert 0 < done_before < total_chunks

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
