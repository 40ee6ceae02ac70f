"""Issue 38 item 2a: a folder swapped for a link to an outside folder between the check and the read is not read
through.

Real files, real symlinks and a real process that keeps swapping a folder of the corpus for a link out of the allowed
roots while the documents stage's own driver-side read (``prepare_in_driver``, the workers' transform) runs again
and again; and, deterministically, the same swap made between the check and the open through the whole stage.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from ingestion.scan import resolve_roots, scan_inputs
from ingestion.stages.documents import file_stats, prepare_documents, prepare_in_driver
from tests.unit.ingestion.tables import read

FILES = 200


class _Corpus:
    """``allowed/corpus`` with ``own.txt`` and ``shelf/`` (inside texts), and ``outside/shelf`` with the same names
    holding SECRET texts; ``swap()`` replaces ``shelf`` by a link to the outside one, ``back()`` undoes it."""

    def __init__(self, tmp_path: Path) -> None:
        self.allowed = tmp_path / "allowed"
        self.corpus = self.allowed / "corpus"
        self.shelf = self.corpus / "shelf"
        self.parked = self.allowed / "parked"  # where the real shelf waits while the link stands in for it
        self.link = self.allowed / "spare_link"
        outside = tmp_path / "outside" / "shelf"
        for folder in (self.shelf, outside):
            folder.mkdir(parents=True)
        (self.corpus / "own.txt").write_text("Margaret Hale walked to the harbour.\n", encoding="utf-8")
        for n in range(FILES):
            (self.shelf / f"note_{n:03d}.txt").write_text(f"Inside note {n} about the harbour.\n", encoding="utf-8")
            (outside / f"note_{n:03d}.txt").write_text(f"SECRET outside note {n}.\n", encoding="utf-8")
        self.link.symlink_to(outside, target_is_directory=True)

    def swap(self) -> None:
        os.rename(self.shelf, self.parked)
        os.rename(self.link, self.shelf)

    def back(self) -> None:
        os.rename(self.shelf, self.link)
        os.rename(self.parked, self.shelf)


def _read_once(corpus: _Corpus, roots: tuple[Path, ...]) -> list[str]:
    """The texts the documents stage reads in the driver for one scan of the corpus (rejects give no text)."""
    scan = scan_inputs([str(corpus.corpus)], roots)
    transform = partial(prepare_documents, language="en", check_language=False, max_line_chars=100_000,
                        max_bytes=1_000_000, roots=tuple(str(r) for r in roots))
    prepared = prepare_in_driver(scan, file_stats(scan), transform, max_chars=10_000_000)
    assert prepared is not None
    return [text for text in prepared["text"] if isinstance(text, str)]


def _keep_swapping(corpus: _Corpus, stop: Any) -> None:
    while not stop.is_set():
        corpus.swap()
        corpus.back()


def test_issue_38_a_folder_swapped_for_an_outside_link_during_reads_never_leaks_its_text(tmp_path: Path) -> None:
    corpus = _Corpus(tmp_path)
    roots = resolve_roots([corpus.allowed])
    assert roots is not None
    # A process, not a thread: the GIL would serialise a swapping thread with the reader and hide most of the race.
    processes = multiprocessing.get_context("fork")
    stop = processes.Event()
    swapper = processes.Process(target=_keep_swapping, args=(corpus, stop), daemon=True)
    read_texts: list[str] = []
    swapper.start()
    try:
        deadline = time.monotonic() + 4.0
        while time.monotonic() < deadline and not any("SECRET" in text for text in read_texts):
            read_texts += _read_once(corpus, roots)
    finally:
        stop.set()
        swapper.join(timeout=10)
    assert swapper.exitcode == 0, "the swapping process failed"

    leaked = sorted({text for text in read_texts if "SECRET" in text})
    assert not leaked, f"{len(leaked)} outside texts read through the swapped folder, e.g. {leaked[0]!r}"
    assert any(text.startswith("Inside note") for text in read_texts)  # the shelf was read when it was itself


@pytest.mark.spark
def test_issue_38_a_folder_swapped_between_the_check_and_the_open_is_not_read_through(
    ingest: Any, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _Corpus(tmp_path)
    real_realpath = os.path.realpath
    swapped: list[str] = []

    def realpath_then_swap(path: Any, *args: Any, **kwargs: Any) -> str:
        # The reader has just resolved and checked a shelf file: the shelf becomes a link out before it opens it.
        real = real_realpath(path, *args, **kwargs)
        if not swapped and str(path).startswith(f"{corpus.shelf}/"):
            corpus.swap()
            swapped.append(str(path))
        return real

    from ingestion.stages import documents

    real_without_files = documents.without_files

    def hooked(scan: Any, skip: set[str]) -> Any:  # after the scan, before the reading
        monkeypatch.setattr(os.path, "realpath", realpath_then_swap)
        return real_without_files(scan, skip)

    monkeypatch.setattr(documents, "without_files", hooked)
    settings = make_settings(ingestion={"allowed_roots": [corpus.allowed]})
    result = ingest([corpus.corpus], settings=settings, stages=["documents"])
    monkeypatch.setattr(os.path, "realpath", real_realpath)

    assert swapped, "the read never resolved a shelf file"
    texts = list(read(tmp_path / "lake", "documents").text)
    assert not [text for text in texts if "SECRET" in text], result
    assert texts == ["Margaret Hale walked to the harbour.\n"]
    rejects = read(tmp_path / "lake", "rejects")
    first = rejects.set_index("source").loc[swapped[0]]
    assert (first.reason, first.detail) == (
        "unreadable", f"{swapped[0]}: its path changed while it was opened (replaced by a link?); not read"
    )
    assert set(rejects.reason) <= {"unreadable", "outside_allowed_roots"}
    assert len(rejects) == FILES


@pytest.mark.spark
def test_issue_38_a_jsonl_folder_swapped_after_the_scan_is_not_read_through(
    ingest: Any, make_settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from ingestion.stages import documents

    allowed, outside = tmp_path / "allowed", tmp_path / "outside" / "records"
    inside = allowed / "records"
    for folder in (inside, outside):
        folder.mkdir(parents=True)
    (inside / "books.jsonl").write_text(json.dumps({"id": "b1", "text": "Inside record."}) + "\n", encoding="utf-8")
    (outside / "books.jsonl").write_text(json.dumps({"id": "b1", "text": "SECRET record."}) + "\n", encoding="utf-8")
    real_without_files = documents.without_files

    def swap_after_the_scan(scan: Any, skip: set[str]) -> Any:  # checked inside by the scan, read by Spark after it
        inside.rename(allowed / "parked")
        inside.symlink_to(outside, target_is_directory=True)
        return real_without_files(scan, skip)

    monkeypatch.setattr(documents, "without_files", swap_after_the_scan)
    settings = make_settings(ingestion={"allowed_roots": [allowed]})
    result = ingest([inside / "books.jsonl"], settings=settings, stages=["documents"])

    assert not [text for text in read(tmp_path / "lake", "documents").text if "SECRET" in text], result
    rejects = read(tmp_path / "lake", "rejects")
    assert list(zip(rejects.source, rejects.reason, rejects.detail, strict=True)) == [(
        str(inside / "books.jsonl"), "outside_allowed_roots",
        f"{inside / 'books.jsonl'} resolves outside the allowed roots; not read",
    )]
