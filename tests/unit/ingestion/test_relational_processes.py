"""The later stages' per-row Python in the processes a run started for NER (``relational.python_processes``).

A run on a local master whose NER runs in processes the driver starts (``ingestion.ner_pool``) keeps them to its
end: ``relational.map_batches`` in process then cuts its rows into parts and runs the stage's per-document Python in
them, on two cores instead of one. The rows must be those of one process, in the same order.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Iterable, Iterator
from types import SimpleNamespace

import pandas as pd
import pyarrow as pa
import pytest

from graph.tables import QUOTES
from ingestion.errors import IngestionError
from ingestion.ner_pool import NerPool
from ingestion.relational import PARTS_PER_PROCESS, beside, python_processes
from ingestion.stages.quotes import output_rows, quote_outputs
from ingestion.startup import SparkStartup

TALK = '"Come here, Pierre," said Anna.\n\n"I will not," said Pierre. He looked at {who}.\n\n"Then stay," she said.'
NAMES = {"Anna": "anna", "Pierre": "pierre", "Natasha": "natasha", "Boris": "boris"}


def _tables(documents: int) -> tuple[pa.Table, pa.Table, pa.Table, pa.Table]:
    """``documents`` talks, each with its own bystander, as the quotes stage reads them."""
    texts = {f"d{i:02}": TALK.format(who="Natasha" if i % 2 else "Boris") for i in range(documents)}
    mentions = [
        {"doc_id": doc_id, "entity_id": NAMES[m.group()], "start": m.start(), "end": m.end(),
         "sentence_id": f"{doc_id}:s{m.start()}", "kind": "name"}
        for doc_id, text in texts.items() for m in re.finditer("|".join(NAMES), text)
    ]  # fmt: skip
    return (
        pa.table({"doc_id": list(texts), "text": list(texts.values()), "language": ["en"] * len(texts)}),
        pa.table({"doc_id": list(texts), "chunk_id": [f"{d}:c0" for d in texts], "start": [0] * len(texts),
                  "unit_kind": pa.array([None] * len(texts), pa.string())}),
        pa.Table.from_pylist(mentions),
        pa.table({"entity_id": list(NAMES.values()), "label": ["PERSON"] * len(NAMES)}),
    )


def test_a_stages_python_in_two_processes_gives_the_rows_of_one() -> None:
    tables = _tables(2 * PARTS_PER_PROCESS + 3)  # more documents than parts: parts of one and of two documents
    alone = quote_outputs(*tables).to_pylist()
    pool = NerPool(2, [])
    try:
        with python_processes(pool):
            together = quote_outputs(*tables).to_pylist()
    finally:
        pool.close()
    quotes = [row for row in alone if row["output"] == QUOTES.name]
    assert len(quotes) == 3 * tables[0].num_rows
    assert [row["speaker_id"] for row in quotes[:2]] == ["anna", "pierre"]  # said-verb and name: explicit
    assert together == alone  # the same rows in the same order


def test_a_killed_process_fails_the_stage_with_one_clear_error() -> None:
    tables = _tables(4)
    pool = NerPool(1, [])
    try:
        with python_processes(pool):
            assert output_rows(quote_outputs(*tables), QUOTES).num_rows == 12  # the process is up and working
            os.kill(next(iter(pool._executor._processes)), signal.SIGKILL)  # noqa: SLF001 - the pool's one process
            deadline = time.monotonic() + 30
            while not pool._executor._broken and time.monotonic() < deadline:  # noqa: SLF001 - noticed by its manager
                time.sleep(0.05)
            with pytest.raises(IngestionError, match=r"process of the driver's pool .* ended abruptly"):
                quote_outputs(*tables)
    finally:
        pool.close()


def _nothing(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    yield from ()


def test_the_run_closes_the_processes_its_mentions_stage_kept() -> None:
    ctx = SimpleNamespace(spark=None, ner_pool=None, keeps_processes=False, force=False)
    with SparkStartup(ctx, []):  # type: ignore[arg-type]
        assert ctx.keeps_processes  # the mentions stage leaves its pool to the run
        pool = ctx.ner_pool = NerPool(1, [])
    assert ctx.ner_pool is None
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.map_parts(_nothing, [pd.DataFrame()])


def test_beside_calls_in_a_process_of_the_pool_and_here_without_one() -> None:
    """``relational.beside``: in one of the run's processes while the caller goes on; at once here without them."""
    pool = NerPool(1, [])
    try:
        with python_processes(pool):
            assert beside(os.getpid).result() != os.getpid()
        assert beside(os.getpid).result() == os.getpid()
    finally:
        pool.close()
