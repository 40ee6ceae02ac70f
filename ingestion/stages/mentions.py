"""Stage 4, ``mentions``: spaCy NER inside Spark, resumable batch by batch.

Three engines run the same function (``ner_batches``) over the same rows: a few words in the driver itself
(``ingestion.driver_max_ner_words``), processes the stage starts on a local master (``ingestion.ner_pool``, the
default there), Spark's Python workers on any other master. On Spark, each Python worker loads the pipeline once
(``ingestion.nlp.get_nlp``) and runs ``nlp.pipe`` over Arrow batches of chunks inside ``mapInPandas``. The
stage works in batches of chunks. A batch is committed in two steps: its mentions, then a row per chunk in
``mention_chunks`` (the record of which chunks are done); a rerun after a crash deletes the
mentions of chunks not recorded as done (a half-committed batch) and goes on from there, so no mention is ever
written twice.

Throughput: NER is the only work that needs the cores, so nothing else waits in front of it.
- The driver reads each batch's texts in-process (delta-rs, one scan of one table version) and hands them to Spark
  as local relations dealt out by words, one task per core: no Delta scan, join or shuffle job before each batch.
- Each batch's mentions come back to the driver as Arrow (they are few: about one per 25 words), and a committer
  thread writes them in-process with delta-rs while the cores already run the next batch: a Spark write job would
  wait for a core behind the NER tasks and take JVM time from them. Commits stay strictly in batch order, and a
  batch's progress rows are committed only after its mentions, which is all that resuming relies on.
- The workers come with the pipeline loaded: ``worker_environment`` hands the spec to the run's Python daemon
  (``ingestion.worker_daemon``), which builds it once before it forks them.
"""

from __future__ import annotations

import functools
import heapq
import logging
import math
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from graph.tables import CHUNKS, MENTION_CHUNKS, MENTIONS, NON_PROSE_UNIT_KINDS
from ingestion.ner_pool import NerPool, local_cores
from ingestion.nlp import NlpSpec, extract_mentions, get_nlp
from ingestion.routing import warn_rules_only
from ingestion.spark import made_with_environment, run_master, session_unless
from ingestion.stage import Stage, StageOutput
from ingestion.worker_daemon import preload_environment

if TYPE_CHECKING:
    from ingestion.context import RunContext

logger = logging.getLogger(__name__)

# The mentions' columns for Spark (the NER job's output) and both tables' for Arrow (the in-process commits).
MENTION_SCHEMA = MENTIONS.ddl()
MENTION_ARROW = MENTIONS.arrow_schema()
DONE_ARROW = MENTION_CHUNKS.arrow_schema()
PROGRESS_TABLE = MENTION_CHUNKS.name
# What ``batch_rows`` reads of the chunks table for each batch.
BATCH_COLUMNS = tuple(CHUNKS.pick("doc_id", "chunk_id", "start", "text", "n_words"))
# A batch's texts travel inside its tasks; Spark warns about tasks over 1,000 KiB (they slow its scheduler on a
# cluster), so a batch whose texts exceed this per core gets more tasks per core (see ``task_count``).
MAX_TASK_TEXT_BYTES = 900 * 1024
# Batches whose NER result waits for the committer: one in commit while the next runs keeps the cores busy; more
# would only hold more results in the driver.
MAX_WAITING_COMMITS = 1
BATCHES_IN_FLIGHT = 2


def ner_batches(batches: Iterable[pd.DataFrame], *, spec: NlpSpec) -> Iterator[pd.DataFrame]:
    """``mapInPandas`` transform: chunk rows (doc_id, chunk_id, start, text) → mention rows."""
    nlp = get_nlp(spec)
    for batch in batches:
        items = zip(batch["doc_id"], batch["chunk_id"], batch["start"], batch["text"], strict=True)
        rows = list(extract_mentions(nlp, spec, items))
        yield pd.DataFrame(rows, columns=list(MENTIONS.names))


# The columns the NER function reads (``ner_batches``): what a batch's parts carry to the processes.
NER_COLUMNS = ["doc_id", "chunk_id", "start", "text"]
# Bytes of input text per word, for foreseeing a run's words from its files' sizes (English prose: ~5.7).
BYTES_PER_WORD = 6


def driver_processes(ctx: RunContext) -> int:
    """How many processes the driver starts for this stage's NER (``ingestion.driver_ner_processes``): the
    local master's cores by default; 0 — Spark's workers — on any other master, with the setting at 0, or with
    ``ingestion.driver_max_chars`` at 0 (nothing in the driver)."""
    ingestion = ctx.settings.ingestion
    if ingestion.driver_ner_processes == 0 or ingestion.driver_max_chars == 0:
        return 0
    cores = local_cores(run_master(ctx.spark, ctx.settings.spark.master))
    if cores is None:
        return 0
    return ingestion.driver_ner_processes or cores


def workers_starter(
    spark: Any, spec: NlpSpec, environment: Mapping[str, str], called_off: threading.Event | None = None
) -> threading.Thread:
    """A thread (not started) running one trivial task with the NER function's worker ``environment``: the executor
    starts its Python daemon for it, which preloads the pipeline (~1.3 s) — while the driver does other work, instead
    of before the first NER batch. The thread makes the job too, so a session still starting
    (``ingestion.spark.StartingSession``) is waited for there, not by the caller; pyspark copies the environment into
    the function when ``mapInPandas`` is called, and Spark starts one daemon per environment, so it must be the one
    the NER batches will have. Never fails: the NER tasks start the daemon themselves. ``called_off``, once set, stops
    it before its job (the stage found only a few words for NER, done in the driver): a run that needs no worker
    must not wait at its end for a daemon and two pipelines loading on its cores."""

    def touch(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        get_nlp(spec)  # already there when the daemon preloaded it
        yield from batches

    def run() -> None:
        try:
            session = session_unless(spark, called_off or threading.Event())
            if session is None:
                return
            job = made_with_environment(session, environment,
                                        lambda: session.range(1, numPartitions=1).mapInPandas(touch, "id long"))
            job.collect()
        except Exception:  # noqa: BLE001 — only a head start; the stage's own jobs report real problems
            logger.debug("mentions: starting the Python workers early failed", exc_info=True)

    return threading.Thread(target=run, name="mentions-workers", daemon=True)


def plan_language_batches(
    pending: list[tuple[str, int]], language_of: dict[str, str], batch_words: int
) -> tuple[list[list[str]], list[str]]:
    """``plan_batches`` within each run of chunks of one language: (batches, each batch's language), in order.

    A batch is never mixed: all its chunks go through the one pipeline of their language.
    """
    plan: list[list[str]] = []
    languages: list[str] = []
    start = 0
    while start < len(pending):
        language = language_of.get(pending[start][0], "")
        end = start
        while end < len(pending) and language_of.get(pending[end][0], "") == language:
            end += 1
        batches = plan_batches(pending[start:end], batch_words)
        plan.extend(batches)
        languages.extend([language] * len(batches))
        start = end
    return plan, languages


def plan_batches(pending: list[tuple[str, int]], batch_words: int) -> list[list[str]]:
    """Group pending (chunk_id, n_words) in order into batches of about ``batch_words`` words."""
    batches: list[list[str]] = []
    current: list[str] = []
    words = 0
    for chunk_id, n_words in pending:
        current.append(chunk_id)
        words += n_words
        if words >= batch_words:
            batches.append(current)
            current, words = [], 0
    if current:
        batches.append(current)
    return batches


def batch_rows(snapshot: Any, plan: list[list[str]]) -> Iterator[pa.Table]:
    """Each planned batch's chunk rows (doc_id, chunk_id, start, text, n_words), in plan order, from one scan.

    The texts are read in-process (delta-rs, Arrow) rather than by a Spark job per batch: a Delta scan, a join
    and a shuffle before every batch cost the JVM ~0.6 s and the cores their first NER task's start (docs/
    benchmarks.md). Rows are routed to their batch by chunk id; the plan follows the table's order, so a batch is
    complete when the scan has passed it and only the batch being read is held (any other order stays correct,
    it only holds more).
    """
    number_of = {cid: number for number, ids in enumerate(plan) for cid in ids}
    held: dict[int, list[pa.Table]] = {}
    seen = [0] * len(plan)
    ready = 0
    for record_batch in snapshot.to_batches(columns=list(BATCH_COLUMNS)):
        table = pa.Table.from_batches([record_batch])
        numbers = pa.array([number_of.get(cid, -1) for cid in table.column("chunk_id").to_pylist()], pa.int64())
        for number in pc.unique(numbers).to_pylist():
            if number < 0:  # done before (a resumed run)
                continue
            part = table.filter(pc.equal(numbers, number))
            held.setdefault(number, []).append(part)
            seen[number] += part.num_rows
        while ready < len(plan) and seen[ready] == len(plan[ready]):
            yield pa.concat_tables(held.pop(ready))
            ready += 1
    if ready < len(plan):
        raise RuntimeError(f"mentions: the chunks table lost rows of batch {ready} while it was read")


def task_count(rows: pa.Table, cores: int) -> int:
    """Tasks for one batch: one per core, or a multiple of the cores when the texts would make tasks too large.

    One per core: each task costs its worker some set-up, and with two batches in flight the next batch's task
    takes a core the moment the current batch's task leaves it. A whole multiple of the cores, so the cores still
    end a batch together.
    """
    per_core = max(1, math.ceil(rows.column("text").nbytes / (cores * MAX_TASK_TEXT_BYTES)))
    return max(1, min(cores * per_core, rows.num_rows))


def spread(spark: Any, rows: pa.Table, parts: int) -> Any:
    """A DataFrame of ``rows`` in ``parts`` partitions of about equal words, one NER task each.

    Chunks are dealt to the partitions largest first, each to the lightest so far; each partition is a local
    relation of its own, coalesced to one partition, and the union keeps them apart (one task per partition).
    """
    loads = [(0, slot) for slot in range(parts)]
    members: list[list[int]] = [[] for _ in range(parts)]
    for index, words in sorted(enumerate(rows.column("n_words").to_pylist()), key=lambda item: (-item[1], item[0])):
        load, slot = heapq.heappop(loads)
        members[slot].append(index)
        heapq.heappush(loads, (load + words, slot))
    columns = rows.select(["doc_id", "chunk_id", "start", "text"])
    frames = [spark.createDataFrame(columns.take(sorted(indices))).coalesce(1) for indices in members]
    return functools.reduce(lambda left, right: left.union(right), frames)


class _Committer:
    """Commits batches in order on one background thread; ``submit`` blocks while a batch already waits.

    The first error stops it: later batches are dropped (their chunks stay pending for the rerun), and ``close``
    raises the error after every earlier batch is committed.
    """

    def __init__(self, commit: Callable[[Any], None]) -> None:
        self._commit = commit
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=MAX_WAITING_COMMITS)
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="mentions-committer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self.error is None:
                try:
                    self._commit(item)
                except BaseException as exc:  # noqa: BLE001 — handed to the stage's thread in close()
                    self.error = exc

    def submit(self, item: Any) -> None:
        """Queue a batch; raises the committer's error instead once it has one."""
        if self.error is not None:
            raise self.error
        self._queue.put(item)

    def close(self) -> None:
        """Wait for every queued commit; raise the first error."""
        self._queue.put(None)
        self._thread.join()
        if self.error is not None:
            raise self.error


class _Batch:
    """One batch's NER result, held in the driver until it is committed."""

    def __init__(self, number: int, chunk_ids: list[str], mentions: pa.Table) -> None:
        self.number = number
        self.chunk_ids = chunk_ids
        self.mentions = mentions


class MentionsStage(Stage):
    """Runs NER over the chunks; writes ``mentions`` and ``mention_chunks``."""

    name = "mentions"
    # A new version redoes the stage; what each version changed: docs/decisions/0002-stage-versions.md
    version = 2
    tables = (MENTIONS.name, PROGRESS_TABLE)
    requires = ("chunks",)

    def config(self, ctx: RunContext) -> dict[str, Any]:
        """The pipeline (model, language, patterns, labels); with detected languages, every language's."""
        return {"nlp": ctx.domain.routing.key if ctx.domain.detect_language else ctx.domain.nlp.key}

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """NER over the chunks not yet done, in committed batches, with progress in the log."""
        started = time.perf_counter()
        with ExitStack() as stack:  # holds the early start of the workers (``_run_batches``) until the stage ends
            return self._run_batches(ctx, incremental, started, stack)

    def worker_environment(self, ctx: RunContext) -> dict[str, str]:
        """The pipeline's spec, so the workers' daemon (``ingestion.worker_daemon``) loads it before forking them."""
        return preload_environment(ctx.domain.nlp)

    def start_early(self, ctx: RunContext) -> threading.Thread | NerPool | None:
        """The workers' start, begun with the run when the stages before this one work in the driver (a small
        corpus: docs/ingestion.md): their daemon and its pipeline are then ready when the first batch comes. On a
        local master, the processes of the driver's NER instead (``ingestion.ner_pool``), when the run is foreseen
        to read more words than the driver does alone (``ingestion.driver_max_ner_words``)."""
        processes = driver_processes(ctx)
        if not processes:
            return self._start_workers(ctx)
        words = (ctx.foreseen_bytes or 0) // BYTES_PER_WORD
        if words <= ctx.settings.ingestion.driver_max_ner_words:
            return None
        ctx.ner_pool = NerPool(processes, [ctx.domain.nlp])
        return ctx.ner_pool

    def _start_workers(self, ctx: RunContext) -> threading.Thread:
        """Start the workers' daemon in a thread (``workers_starter``), and record its environment for the stages
        after this one to reuse (``RunContext.started_worker_environment``)."""
        environment = self.worker_environment(ctx)
        starter = workers_starter(ctx.spark, ctx.domain.nlp, environment, ctx.workers_not_needed)
        starter.start()
        ctx.started_worker_environment.update(environment)
        return starter

    def _run_batches(self, ctx: RunContext, incremental: bool, started: float, stack: ExitStack) -> StageOutput:
        run = _MentionsRun(self, ctx, fresh=not incremental)
        run.plan_work()
        run.choose_engine(stack)
        ctx.progress.start(self.name, run.total_words, "words")
        try:
            run.pipeline()
            if run.fresh and not run.plan:
                ctx.lakehouse.write_arrow(MENTION_ARROW.empty_table(), self.name, overwrite=True)
        finally:
            ctx.progress.finish(self.name)
        return run.output(time.perf_counter() - started)

    @staticmethod
    def _chunk_languages(ctx: RunContext, doc_of: dict[str, str]) -> dict[str, str]:
        """chunk id → its document's detected language (documents table; in-process, two small columns)."""
        table = ctx.lakehouse.columns("documents", ["doc_id", "language"]).to_pydict()
        by_doc = dict(zip(table["doc_id"], table["language"], strict=True))
        return {cid: by_doc.get(doc_id) or "" for cid, doc_id in doc_of.items()}

    def _delete_chunks(self, ctx: RunContext, chunk_ids: list[str]) -> None:
        """Delete the mentions of these chunks (a crashed batch's). A table small enough for the driver is looked at
        first (``delete_listed``): an incremental run's new chunks have none, and a Spark merge to find that out cost
        5 s on the 8× library."""
        ctx.lakehouse.delete_listed(self.name, "chunk_id", chunk_ids)


def _chunks_by_doc(pending: list[tuple[str, int]], doc_of: dict[str, str]) -> list[list[str]]:
    """The pending chunk ids grouped by document (one group per document), for counting documents per language."""
    groups: dict[str, list[str]] = {}
    for cid, _ in pending:
        groups.setdefault(doc_of[cid], []).append(cid)
    return list(groups.values())


class _MentionsRun:
    """One run of the mentions stage: what is left to read, in which batches and where, and their commits."""

    def __init__(self, stage: MentionsStage, ctx: RunContext, *, fresh: bool) -> None:
        self.stage, self.ctx, self.fresh = stage, ctx, fresh
        self.name = stage.name
        self.spec = ctx.domain.nlp
        self.in_driver = False
        self.processes = 0
        self.ner_pool: NerPool | None = None

    def _done_chunks(self) -> set[str]:
        """The chunks whose mentions are committed (none on a fresh run, whose progress record is reset first)."""
        lake = self.ctx.lakehouse
        if self.fresh:
            # Whatever a crash leaves after this, no old record of done chunks can stand beside new mentions. The
            # first batch then overwrites the mentions table.
            lake.write_arrow(DONE_ARROW.empty_table(), PROGRESS_TABLE, overwrite=True)
            return set()
        removed = sorted(lake.doc_ids(PROGRESS_TABLE) - lake.doc_ids("chunks"))
        lake.delete_docs(self.name, removed)
        lake.delete_docs(PROGRESS_TABLE, removed)
        # Which chunks are left is decided in-process from two small columns, without a Spark job.
        return set(lake.columns(PROGRESS_TABLE, ["chunk_id"]).column("chunk_id").to_pylist())

    def plan_work(self) -> None:
        """The pending chunks, in batches of one language each, and the pipeline of each batch."""
        ctx = self.ctx
        done_ids = self._done_chunks()
        # One version of the chunks table for the listing and the texts: what is planned is what is read.
        self.snapshot = ctx.lakehouse.snapshot("chunks")
        listing = self.snapshot.to_table(columns=CHUNKS.pick("chunk_id", "doc_id", "n_words", "unit_kind")).to_pydict()
        self.doc_of = dict(zip(listing["chunk_id"], listing["doc_id"], strict=True))
        # In the table's own order, so the texts, read in that order, arrive batch after batch. Front matter, tables
        # of contents and back matter are no story: no NER there, so no entity starts in them.
        self.pending = [
            (cid, int(n))
            for cid, n, kind in zip(listing["chunk_id"], listing["n_words"], listing["unit_kind"], strict=True)
            if cid not in done_ids and kind not in NON_PROSE_UNIT_KINDS
        ]
        self.words_of = dict(self.pending)
        if self.pending and not self.fresh:
            # Mentions of chunks not recorded as done are left over from a crashed batch.
            self.stage._delete_chunks(ctx, [cid for cid, _ in self.pending])
        # Each chunk goes through its document's language's pipeline (ingestion.routing), never another's.
        language_of = self.stage._chunk_languages(ctx, self.doc_of) if ctx.domain.detect_language else {}
        self.plan, self.plan_languages = plan_language_batches(
            self.pending, language_of, ctx.settings.ingestion.mentions_batch_words
        )
        self.batch_specs = [ctx.domain.routing.spec_for(language) for language in self.plan_languages]
        pending_languages = Counter(
            language_of.get(doc_chunks[0], "") or self.spec.language
            for doc_chunks in _chunks_by_doc(self.pending, self.doc_of)
        )
        warn_rules_only(ctx.domain.routing, pending_languages)
        self.total_words = sum(n for _, n in self.pending)

    def choose_engine(self, stack: ExitStack) -> None:
        """NER in this process, in processes the driver starts, or on Spark's workers; what is not needed is
        stopped, what is started is closed with ``stack``."""
        ctx = self.ctx
        # A few thousand words (a chapter added): NER in this process, as soon as the driver has the pipeline, rather
        # than after the JVM and the workers' daemon have started — the same function over the same rows.
        self.in_driver = self.total_words <= ctx.settings.ingestion.driver_max_ner_words
        # More on a local master: processes the driver starts (ingestion.ner_pool), not Spark's workers.
        self.processes = 0 if self.in_driver or not self.plan else driver_processes(ctx)
        if self.in_driver or self.processes:  # the workers the run's start began are not needed: their job is not made
            ctx.workers_not_needed.set()
        self.ner_pool = ctx.ner_pool if self.processes else None
        if self.processes and self.ner_pool is None:
            self.ner_pool = NerPool(self.processes, list({s.key: s for s in self.batch_specs}.values()))
        if ctx.ner_pool is not None and self.ner_pool is None:  # begun at the run's start, and not needed after all
            ctx.ner_pool.close()
            ctx.ner_pool = None
        if self.ner_pool is not None and ctx.keeps_processes:
            ctx.ner_pool = self.ner_pool  # the later stages' per-row Python runs in it; the run closes it
        elif self.ner_pool is not None:
            stack.callback(self.ner_pool.close)
        elif self.plan and not self.in_driver:
            # When this stage is the run's first Python work, its workers' daemon starts (and preloads the pipeline)
            # while the driver plans the first batch, not after it.
            stack.callback(self.stage._start_workers(ctx).join)

    def run_ner(self, number: int, rows: pa.Table) -> _Batch:
        """NER over one batch, its mentions brought to the driver (the cores' work; committing is not)."""
        began = time.perf_counter()
        spec = self.batch_specs[number]
        if self.ner_pool is not None:
            found = self.ner_pool.mentions(rows, spec, NER_COLUMNS)
        elif self.in_driver:
            found = pd.concat(list(ner_batches([rows.to_pandas()], spec=spec)))
        else:
            spark = self.ctx.spark
            parallelism = max(spark.sparkContext.defaultParallelism, 1)  # asked here: it waits for Spark
            source = spread(spark, rows, task_count(rows, parallelism))
            # A batch's mentions are few (about one per 25 words) and bounded by ingestion.mentions_batch_words.
            transform = functools.partial(ner_batches, spec=spec)
            mentions = source.mapInPandas(transform, MENTION_SCHEMA).toArrow().cast(MENTION_ARROW)
            logger.debug("mentions: batch %d NER done in %.2fs", number, time.perf_counter() - began)
            return _Batch(number, self.plan[number], mentions)
        found = pd.concat([found, MENTION_ARROW.empty_table().to_pandas()])
        mentions = pa.Table.from_pandas(found, schema=MENTION_ARROW, preserve_index=False)
        logger.debug("mentions: batch %d NER done in %.2fs", number, time.perf_counter() - began)
        return _Batch(number, self.plan[number], mentions)

    def commit(self, item: _Batch) -> None:
        """Mentions first, then the batch's chunks as done (the resume point); in-process, no core taken."""
        began = time.perf_counter()
        lake = self.ctx.lakehouse
        lake.write_arrow(item.mentions, self.name, overwrite=self.fresh and item.number == 0)
        counted = pc.value_counts(item.mentions.column("chunk_id")).to_pylist()
        per_chunk = {entry["values"]: entry["counts"] for entry in counted}
        done = pa.table(
            {
                "chunk_id": item.chunk_ids,
                "doc_id": [self.doc_of[cid] for cid in item.chunk_ids],
                "n_mentions": [per_chunk.get(cid, 0) for cid in item.chunk_ids],
                "n_words": [self.words_of[cid] for cid in item.chunk_ids],
            },
            schema=DONE_ARROW,
        )
        lake.write_arrow(done, PROGRESS_TABLE)
        logger.debug("mentions: batch %d committed in %.2fs", item.number, time.perf_counter() - began)
        self.ctx.progress.advance(self.name, sum(self.words_of[cid] for cid in item.chunk_ids))

    def pipeline(self) -> None:
        """NER of the batches, two in flight, each committed in order as soon as it is done."""
        texts = batch_rows(self.snapshot, self.plan)
        committer = _Committer(self.commit)
        # Two batches' jobs in flight: the next batch's tasks take each core as soon as the current batch's last task
        # leaves it, instead of after the whole batch (and its read of the chunks) is done.
        with ThreadPoolExecutor(max_workers=BATCHES_IN_FLIGHT, thread_name_prefix="mentions-ner") as pool:
            running: list[Any] = []
            try:
                # A batch's texts are read when it is submitted: the driver holds those of the batches in flight.
                running = [
                    pool.submit(self.run_ner, n, next(texts)) for n in range(min(BATCHES_IN_FLIGHT, len(self.plan)))
                ]
                for number in range(len(self.plan)):
                    item = running.pop(0).result()
                    following = number + BATCHES_IN_FLIGHT
                    if following < len(self.plan):
                        running.append(pool.submit(self.run_ner, following, next(texts)))
                    committer.submit(item)
            except BaseException:
                for future in running:
                    future.cancel()
                raise
            finally:
                # Every batch whose NER finished in order is committed before an error goes up: work a rerun keeps.
                committer.close()

    def output(self, elapsed: float) -> StageOutput:
        """The stage's counts and details (the pipelines used, where NER ran, its speed)."""
        texts = self.ctx.lakehouse.columns(self.name, ["text"]).column("text")
        spec, plan = self.spec, self.plan
        counts: dict[str, Any] = {
            "mentions": len(texts),
            "surface_forms": len(pc.unique(texts)),
            "chunks_processed": len(self.pending),
            "words_processed": self.total_words,
        }
        used = {self.plan_languages[n] or spec.language: self.batch_specs[n] for n in range(len(plan))}
        where = "driver" if self.in_driver else "processes" if self.processes else "workers"
        details = {
            "words_per_second": round(self.total_words / elapsed, 1) if self.pending and elapsed else None,
            "batches": len(plan),
            "ner_in": where if plan else None,
            "ner_processes": self.processes or None,
            "model": spec.model or f"blank:{spec.language}",
            "language": spec.language,
            "models": {lang: s.model or f"blank:{s.language}" for lang, s in sorted(used.items())},
            "patterns": len(spec.patterns),
            "labels": list(spec.labels),
        }
        return StageOutput(counts=counts, output_fingerprint=self.stage.derived_fingerprint(self.ctx), details=details)
