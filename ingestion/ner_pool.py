"""NER in processes the driver starts: the mentions stage's engine on a local master.

On a local master Spark's Python workers are processes of this machine too, so what Spark adds to the NER is only
cost: the JVM's start (~3 s) before its daemon starts and loads the pipeline (~1.5 s), and every batch's texts and
mentions crossing the JVM as Arrow. Here the stage starts the processes itself, each loads the pipelines once, and
each part of a batch goes to a free process; only the mention rows come back. The function is the one Spark's
workers run (``ingestion.stages.mentions.ner_batches``) on the same rows, so the mentions are the same; the tests
compare the two engines table for table.

The processes are spawned, not forked from the driver: a driver that talks to a JVM holds py4j connections in
other threads, and a forked child frees those threads' connection objects, whose finalizer shuts the shared socket
down under the parent (measured: a fork during the session's start resets its connection). A spawned process
starts clean; the price is its own imports and pipeline load (~1.5 s, the processes in parallel). Each ends with the
driver, however the driver ends (killed with SIGKILL too: ``ingestion.parent_watch``), and so does multiprocessing's
resource tracker after them.

A part is a few thousand words, so that the processes end a batch together (a Spark task per core would leave one
core idle behind the longest). A process that dies (killed, out of memory) breaks the pool: the batch fails with one
``IngestionError`` that says so and names the setting, instead of hanging, and the stage's resume protocol keeps
every committed batch.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa

from ingestion.errors import IngestionError
from ingestion.parent_watch import DyingWithParentContext

if TYPE_CHECKING:
    from ingestion.nlp import NlpSpec
    from ingestion.relational import Transform

logger = logging.getLogger(__name__)

# Words per part sent to a process: ~0.3 s of NER, so the last parts of a batch end within a fraction of a second of
# each other, and the cost of sending a part (its texts pickled, its mentions back: milliseconds) stays small.
PART_WORDS = 4_000
_LOCAL_MASTER = re.compile(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?")

# In each process, the specs it loaded when it started (``_load``), by key: a part names its spec by key.
_specs: dict[str, NlpSpec] = {}


def local_cores(master: str) -> int | None:
    """The cores a local master gives Spark (``local`` 1, ``local[N]`` N, ``local[*]`` this machine's), else None."""
    match = _LOCAL_MASTER.fullmatch(master.strip())
    if match is None:
        return None
    count = match.group(1)
    if count is None:
        return 1
    return (os.cpu_count() or 1) if count == "*" else int(count)


def _load(specs: list[NlpSpec]) -> None:
    """Each process's start: the stage's code and every pipeline the batches use, before the first part."""
    from ingestion.nlp import get_nlp

    for spec in specs:
        get_nlp(spec)
        _specs[spec.key] = spec


def _ner_part(key: str, rows: pd.DataFrame, spec: NlpSpec | None = None) -> pd.DataFrame:
    """One part's mention rows, in a pool's process; ``spec`` comes along when the process did not load it."""
    from ingestion.stages.mentions import ner_batches

    if spec is not None:
        _specs.setdefault(key, spec)
    return pd.concat(list(ner_batches([rows], spec=_specs[key])))


def _transform_part(transform: Transform, part: pd.DataFrame) -> list[pd.DataFrame]:
    """One part's rows through a stage's per-row Python (``relational.map_batches``), in a pool's process."""
    return list(transform([part]))


def _ready() -> None:
    """A first task for every process: it makes the pool start them (and load the pipelines) at once."""


def parts(rows: pa.Table, words_per_part: int = PART_WORDS) -> Iterator[pa.Table]:
    """The batch's rows in order, cut into parts of about ``words_per_part`` words (a part holds one chunk at least),
    by the rule that cuts the stage's batches (``plan_batches``)."""
    from ingestion.stages.mentions import plan_batches

    start = 0
    for part in plan_batches(list(enumerate(rows.column("n_words").to_pylist())), words_per_part):
        yield rows.slice(start, len(part))
        start += len(part)


def _broken(processes: int) -> IngestionError:
    return IngestionError(
        f"a process of the driver's pool ({processes}, started for NER) ended abruptly (killed, or out of memory); "
        "the stages committed before it are kept and a rerun goes on from them. Fewer processes: "
        "ingestion.driver_ner_processes",
    )


class _Beside:
    """A call running in a pool's process (``NerPool.beside``); ``result`` waits for its value."""

    def __init__(self, future: Future[Any], processes: int) -> None:
        self._future = future
        self._processes = processes

    def result(self) -> Any:
        """The call's value (its error raised; a process that died: one ``IngestionError``)."""
        try:
            return self._future.result()
        except BrokenProcessPool as exc:
            raise _broken(self._processes) from exc


class NerPool:
    """``processes`` processes, each with ``specs``' pipelines loaded when it starts; ``close`` ends them."""

    def __init__(self, processes: int, specs: list[NlpSpec], words_per_part: int = PART_WORDS) -> None:
        self._executor = ProcessPoolExecutor(
            max_workers=processes, mp_context=DyingWithParentContext(), initializer=_load, initargs=(specs,)
        )
        self._loaded = {spec.key for spec in specs}
        self._closed = False
        self._words_per_part = words_per_part
        self.processes = processes
        # The processes start (and load the pipelines) now, in the background, not at the first batch.
        for _ in range(processes):
            self._executor.submit(_ready)

    def mentions(self, rows: pa.Table, spec: NlpSpec, columns: list[str]) -> pd.DataFrame:
        """The mention rows of ``rows`` (doc_id, chunk_id, start, text, n_words), in their order."""
        pieces = [part.select(columns).to_pandas() for part in parts(rows, self._words_per_part)]
        extra = None if spec.key in self._loaded else spec  # a language the pool did not start with
        try:
            found = list(self._open().map(_ner_part, [spec.key] * len(pieces), pieces, [extra] * len(pieces)))
        except BrokenProcessPool as exc:
            raise IngestionError(
                f"an NER process of the mentions stage ended abruptly (killed, or out of memory: {self.processes} "
                "processes each hold a pipeline); the batches committed before it are kept and a rerun goes on from "
                "them. Fewer processes: ingestion.driver_ner_processes; Spark's workers instead: set it to 0",
                stage="mentions",
            ) from exc
        return pd.concat(found) if found else pd.DataFrame()

    def map_parts(self, transform: Transform, parts: list[pd.DataFrame]) -> list[pd.DataFrame]:
        """``transform`` (a module-level function, or a partial of one: it is pickled) over each part in the
        processes, each part to a free one; the frames it yields, in the parts' order. The later stages' per-row
        Python uses the processes NER has started (``relational.python_processes``)."""
        try:
            found = list(self._open().map(_transform_part, [transform] * len(parts), parts))
        except BrokenProcessPool as exc:
            raise _broken(self.processes) from exc
        return [frame for frames in found for frame in frames]

    def beside(self, function: Callable[..., Any], *args: Any) -> _Beside:
        """``function(*args)`` (module-level: it is pickled) begun in a free process (``relational.beside``)."""
        return _Beside(self._open().submit(function, *args), self.processes)

    def _open(self) -> ProcessPoolExecutor:
        """The executor, unless ``close`` ended its processes (which its manager may then take for a crash)."""
        if self._closed:
            raise RuntimeError("cannot schedule new futures after shutdown: the pool was closed")
        return self._executor

    def close(self) -> None:
        """End the processes at once, their queued or running work with them (a failed stage has no use for it).

        Ended, not asked to stop: they hold nothing to save, and a process that ends by itself first frees its
        pipelines object by object — ~1 s of two cores at the end of every run (3.5-4 s against 0.15 s measured at
        load 6-10)."""
        self._closed = True
        processes = list((getattr(self._executor, "_processes", None) or {}).values())
        self._executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join()
        self._executor.shutdown(wait=True)

    join = close  # the run ends what its stages began early by joining it (``ingestion.startup.SparkStartup``)
