"""Issue 38 item 4: the chat side never answers from a lakehouse that was deleted and rebuilt from another corpus.

A lakehouse rebuilt in the same place restarts its Delta tables at version 0, so a graph cache keyed by the table
versions (and kept outside the lakehouse: ``CSILLAG_GRAPH_CACHE_DIR``, or the user's cache for a bucket) matched the
deleted book's cache. Each test builds a lakehouse from book A through the real pipeline (two tiny texts: every
stage runs in the driver, no JVM), asks about it, deletes the lakehouse, rebuilds it from book B with other names and
asks again through a new process: the answers must come from B, and A's names must appear nowhere.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli.ask import main as ask_main
from tests.unit.tools.two_books import (
    ANSWER_A,
    ANSWER_B,
    ASK_A,
    ASK_B,
    ASK_B_PASSAGE,
    BOOK_A,
    BOOK_B,
    NAMES_A,
    PASSAGE_B,
    corpus,
    ingest,
)

ROOT = Path(__file__).resolve().parents[3]


def _ask_here(question: str, lake: str) -> str:
    out = io.StringIO()
    assert ask_main([question, "--lakehouse", lake, "--quiet"], out=out) == 0
    return out.getvalue()


def _answers_from_b(lake: str, env: dict[str, str]) -> None:
    """``python -m tools.ask --interactive`` in a new process (nothing of this process's state), asked about B's
    people and passages, then about A's people."""
    done = subprocess.run([sys.executable, "-m", "tools.ask", "--interactive", "--lakehouse", lake, "--quiet"],
                          cwd=ROOT, env=env, input=f"{ASK_B}\n{ASK_B_PASSAGE}\n{ASK_A}\n", capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = re.split(r"^\? ", done.stdout, flags=re.MULTILINE)[1:]  # each answer follows the "? " prompt
    assert answers[0].startswith(ANSWER_B), done.stdout
    assert PASSAGE_B in answers[1], done.stdout
    assert not [name for name in NAMES_A if name in done.stdout + done.stderr], done.stdout + done.stderr


def _env(**extra: str) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("CSILLAG_")}
    return kept | {"PYTHONPATH": str(ROOT), "CSILLAG_NO_BOOTSTRAP": "1"} | extra


def test_issue_38_ask_after_the_lakehouse_is_rebuilt_from_another_corpus_answers_from_the_new_book(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "graph-cache"  # outside the lakehouse: deleting the lakehouse leaves A's graph cache
    monkeypatch.setenv("CSILLAG_GRAPH_CACHE_DIR", str(cache))
    lake = str(tmp_path / "lh")
    ingest(corpus(tmp_path / "a", BOOK_A), lake)
    assert _ask_here(ASK_A, lake).startswith(ANSWER_A)
    assert len(list(cache.glob("graph-*.npz"))) == 1
    shutil.rmtree(lake)
    ingest(corpus(tmp_path / "b", BOOK_B), lake)
    _answers_from_b(lake, _env(CSILLAG_GRAPH_CACHE_DIR=str(cache)))
    assert len(list(cache.glob("graph-*.npz"))) == 1  # B's; A's was removed when B's was written


@pytest.mark.s3
def test_issue_38_ask_after_a_bucket_prefix_is_rebuilt_from_another_corpus_answers_from_the_new_book(
    s3_bucket: tuple[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graph.lakehouse import Lakehouse

    bucket, s3 = s3_bucket
    user_cache = tmp_path / "user-cache"  # the graph cache and the index copies of a bucket lakehouse live here
    monkeypatch.setenv("XDG_CACHE_HOME", str(user_cache))
    monkeypatch.setenv("CSILLAG_LAKEHOUSE_S3", s3.model_dump_json())  # type: ignore[attr-defined]
    lake = f"s3a://{bucket}/library/lh"
    ingest(corpus(tmp_path / "a", BOOK_A), lake)
    assert _ask_here(ASK_A, lake).startswith(ANSWER_A)
    storage = Lakehouse.for_root(lake, s3)  # type: ignore[arg-type]
    client = storage.backend.client()  # type: ignore[attr-defined]  # an S3 root: S3Backend
    keys = [item["Key"] for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket)
            for item in page.get("Contents", [])]
    for key in keys:  # the prefix deleted, as a user would: every object under it
        client.delete_object(Bucket=bucket, Key=key)
    ingest(corpus(tmp_path / "b", BOOK_B), lake)
    # B's chunks table is at A's version again, with as many chunks: the local copy of A's index has B's file name
    assert [p.name for p in user_cache.rglob("bm25-*.npz")] == [k.rsplit("/", 1)[1] for k in keys if "/bm25-" in k]
    env = _env(XDG_CACHE_HOME=str(user_cache), CSILLAG_LAKEHOUSE_S3=os.environ["CSILLAG_LAKEHOUSE_S3"],
               AWS_ACCESS_KEY_ID=os.environ["AWS_ACCESS_KEY_ID"],
               AWS_SECRET_ACCESS_KEY=os.environ["AWS_SECRET_ACCESS_KEY"])
    _answers_from_b(lake, env)
