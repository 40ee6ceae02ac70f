"""Stage 6, ``cooccurrences``: which entities occur together, how often, and where — the graph's edge list.

A pair co-occurs once per *window* in which both are mentioned; the window is the setting
``ingestion.cooccurrence_window``:

- ``sentence``: the same sentence (what NER sentence splitting gives);
- ``paragraph``: the same paragraph (text between blank lines) — where a scene's action and its speakers meet;
- ``turns`` (default): the same paragraph or two neighbouring paragraphs of one chapter (unit). A novel's dialogue
  gives each speaker's turn its own paragraph, so two people talking are rarely named in one sentence or paragraph
  but always in neighbouring ones; one window is one paragraph or one pair of neighbouring paragraphs;
- ``chunk``: the same chunk (paragraphs packed up to ``ingestion.chunk_max_chars``; arbitrary boundaries).

``count`` is the number of windows the pair shares — how often a reader sees the two together, the figure the
"closest companion" answer ranks by. ``weight`` normalises it by the two entities' mention counts
(count / sqrt(m_a · m_b), the cosine of their window vectors' binary approximation): near 1 when two names nearly
always come together whatever their frequency, so a minor character met only beside the hero gets a strong edge
and the hero does not get a strong edge to everyone. The measured choice of the default is in docs/quality.md.

A small corpus or increment (``LakehouseTables.small_increment``) is counted in the driver (``cooccurrence_rows``, the
same rows as Spark's ``cooccurrence_pairs``); a bigger one by Spark.

Recomputed whole, except after an entities run in document scope that only resolved new documents and removed
others (its marker's ``details["documents"]``): a pair's entities are then one document's, so only those documents'
pairs are deleted and counted again.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import itertools
import logging
import math
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from graph.tables import COOCCURRENCES
from ingestion.lakehouse import one_of
from ingestion.schema import conform
from ingestion.stage import Stage, StageOutput
from ingestion.stages.increments import documents_changed

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from ingestion.context import RunContext

logger = logging.getLogger(__name__)

WINDOWS = ("sentence", "paragraph", "turns", "chunk")
# A blank line (maybe with spaces) ends a paragraph; the chunker splits on the same thing (ingestion.chunking).
PARAGRAPH_BREAK = r"\n[ \t\r]*\n"
TURNS_REACH = 1  # how many paragraphs away a "turns" window reaches: the reply to a line of dialogue


def paragraph_numbers(mention_entities: DataFrame, mentions: DataFrame | None, chunks: DataFrame) -> DataFrame:
    """(chunk_id, entity_id, unit_id, paragraph): each resolved mention's paragraph, numbered through its document.

    A mention's paragraph in its chunk is the number of blank lines before it in the chunk's text; a chunk's first
    paragraph follows the paragraphs of all earlier chunks of the document. Two mentions are in neighbouring
    paragraphs when their numbers differ by one, across a chunk boundary too.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    per_chunk = chunks.select(
        "chunk_id", "doc_id", "chunk_index", "unit_id", F.col("start").alias("chunk_start"), "text",
        (F.expr(f"regexp_count(text, '{PARAGRAPH_BREAK}')") + 1).alias("n_paragraphs"),
    )
    before = Window.partitionBy("doc_id").orderBy("chunk_index").rowsBetween(Window.unboundedPreceding, -1)
    per_chunk = per_chunk.withColumn("first_paragraph", F.coalesce(F.sum("n_paragraphs").over(before), F.lit(0)))
    if "start" in mention_entities.columns:  # the entities stage's version 6 writes each mention's offsets
        offsets = mention_entities.select("entity_id", "chunk_id", "start")
    else:
        assert mentions is not None, "a mention_entities table without offsets needs the mentions table"
        offsets = mention_entities.select("mention_id", "entity_id").join(
            mentions.select("mention_id", "chunk_id", "start"), "mention_id"
        )
    located = offsets.join(per_chunk.drop("doc_id", "chunk_index"), "chunk_id")
    within = F.expr(f"regexp_count(substring(text, 1, greatest(start - chunk_start, 0)), '{PARAGRAPH_BREAK}')")
    return located.select(
        "chunk_id", "entity_id", "unit_id", (F.col("first_paragraph") + within).cast("long").alias("paragraph")
    )


def _windows(mention_entities: DataFrame, mentions: DataFrame | None, chunks: DataFrame, window: str) -> DataFrame:
    """(window_id, chunk_id, src_id, dst_id) for every window two different entities share."""
    from pyspark.sql import functions as F

    if window in ("sentence", "chunk"):
        key = "sentence_id" if window == "sentence" else "chunk_id"
        occurrences = mention_entities.select(F.col(key).alias("window_id"), "chunk_id", "entity_id").distinct()
        a, b = occurrences.alias("a"), occurrences.alias("b")
        condition = (F.col("a.window_id") == F.col("b.window_id")) & (F.col("a.entity_id") < F.col("b.entity_id"))
        return a.join(b, condition).select(
            F.col("a.window_id").alias("window_id"), F.col("a.chunk_id").alias("chunk_id"),
            F.col("a.entity_id").alias("src_id"), F.col("b.entity_id").alias("dst_id"),
        )
    paragraphs = paragraph_numbers(mention_entities, mentions, chunks).distinct()
    reach = 0 if window == "paragraph" else TURNS_REACH
    # An equi-join on (unit, paragraph): b stands at each paragraph it reaches, so the work grows with the mentions
    # of neighbouring paragraphs, never with the size of a unit (a book without headings is one unit).
    reached = paragraphs.withColumn(
        "near", F.explode(F.sequence(F.col("paragraph") - reach, F.col("paragraph") + reach))
    )
    a, b = paragraphs.alias("a"), reached.alias("b")
    condition = (
        (F.col("a.unit_id") == F.col("b.unit_id"))
        & (F.col("a.paragraph") == F.col("b.near"))
        & (F.col("a.entity_id") != F.col("b.entity_id"))
    )
    low = F.least(F.col("a.paragraph"), F.col("b.paragraph"))
    high = F.greatest(F.col("a.paragraph"), F.col("b.paragraph"))
    return a.join(b, condition).select(
        F.concat_ws(":", F.col("a.unit_id"), low.cast("string"), high.cast("string")).alias("window_id"),
        # the evidence passage: the chunk of the earlier paragraph
        F.when(F.col("a.paragraph") <= F.col("b.paragraph"), F.col("a.chunk_id"))
        .otherwise(F.col("b.chunk_id"))
        .alias("chunk_id"),
        F.least(F.col("a.entity_id"), F.col("b.entity_id")).alias("src_id"),
        F.greatest(F.col("a.entity_id"), F.col("b.entity_id")).alias("dst_id"),
    )


def cooccurrence_pairs(
    mention_entities: DataFrame, chunks: DataFrame, entities: DataFrame, window: str, mentions: DataFrame | None = None
) -> DataFrame:
    """Pure transform: (mention_entities, chunks, entities[, mentions]) → one row per unordered entity pair.

    ``mentions`` (their offsets) is needed by the paragraph windows only, and only for a ``mention_entities``
    table written before the entities stage's version 6 (which holds the offsets itself).
    """
    from pyspark.sql import functions as F

    if window not in WINDOWS:
        raise ValueError(f"unknown co-occurrence window {window!r}; valid: {', '.join(WINDOWS)}")
    if window in ("paragraph", "turns") and mentions is None and "start" not in mention_entities.columns:
        raise ValueError(f"the {window!r} window needs the mentions table (their offsets)")
    pairs = _windows(mention_entities, mentions, chunks, window)
    located = pairs.join(chunks.select("chunk_id", "unit_id"), "chunk_id")
    counts = entities.select("entity_id", "mention_count")
    grouped = located.groupBy("src_id", "dst_id").agg(
        F.countDistinct("window_id").alias("count"),
        F.array_sort(F.collect_set("chunk_id")).alias("chunk_ids"),
        F.array_sort(F.collect_set("unit_id")).alias("unit_ids"),
    )
    weighted = (
        grouped.join(
            counts.withColumnRenamed("entity_id", "src_id").withColumnRenamed("mention_count", "m_src"), "src_id"
        )
        .join(counts.withColumnRenamed("entity_id", "dst_id").withColumnRenamed("mention_count", "m_dst"), "dst_id")
        .withColumn("weight", F.col("count") / F.sqrt(F.col("m_src") * F.col("m_dst")))
        .withColumn("window", F.lit(window))
    )
    return conform(weighted, COOCCURRENCES)


def cooccurrence_rows(
    mention_entities: pa.Table, chunks: pa.Table, mention_counts: Mapping[str, int], window: str
) -> pa.Table:
    """``cooccurrence_pairs`` in the driver, over Arrow tables: the same rows, for the few documents of a
    ``small_increment`` (a novel's 21,000 resolved mentions take well under a second here, ~8 s as Spark jobs).

    ``mention_entities``: entity_id, chunk_id, sentence_id and (paragraph windows) start; ``chunks``: chunk_id, doc_id,
    chunk_index, unit_id, start and (paragraph windows) text; ``mention_counts``: the ``entities`` table's
    mention_count by entity id — a pair of an entity it lacks is dropped, as by the Spark join.
    """
    if window not in WINDOWS:
        raise ValueError(f"unknown co-occurrence window {window!r}; valid: {', '.join(WINDOWS)}")
    with _collector_paused():
        return _rows(mention_entities, chunks, mention_counts, window)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused: the pairs' hundreds of thousands of tuples and sets hold no cycles,
    yet every burst of allocations set it walking them all again: 8× War and Peace in corpus scope (100,004 pairs)
    took 5.5-7.2 s with it running, 3.7-5.2 s paused."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _rows(mention_entities: pa.Table, chunks: pa.Table, mention_counts: Mapping[str, int], window: str) -> pa.Table:
    """``cooccurrence_rows``'s work, the window known to be valid."""
    chunk_rows = chunks.to_pydict()
    unit_of = dict(zip(chunk_rows["chunk_id"], chunk_rows["unit_id"], strict=True))
    found = mention_entities.to_pydict()
    # per pair of different entities (src < dst): the windows they share, the passages (the chunk of the pair's first
    # mention: the lesser id's in a sentence or chunk, the earlier paragraph's in a paragraph window) and the units
    # those are in — gathered as they are found, each kept once by its set
    windows: dict[tuple[str, str], set[Any]] = defaultdict(set)
    passages: dict[tuple[str, str], set[str]] = defaultdict(set)
    units: dict[tuple[str, str], set[str]] = defaultdict(set)
    if window in ("sentence", "chunk"):
        key = "sentence_id" if window == "sentence" else "chunk_id"
        occurrences: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for window_id, chunk_id, entity_id in zip(found[key], found["chunk_id"], found["entity_id"], strict=True):
            if window_id is not None:  # a null key joins nothing in Spark
                occurrences[window_id].add((entity_id, chunk_id))
        for window_id, present in occurrences.items():
            if len(present) < 2:
                continue
            for (a, chunk_id), (b, _) in itertools.permutations(present, 2):
                if a < b and chunk_id in unit_of and a in mention_counts and b in mention_counts:
                    windows[a, b].add(window_id)
                    passages[a, b].add(chunk_id)
                    if unit_of[chunk_id] is not None:  # collect_set leaves nulls out
                        units[a, b].add(unit_of[chunk_id])
    else:
        reach = 0 if window == "paragraph" else TURNS_REACH
        # per unit: paragraph number → the (entity, chunk) pairs mentioned in it
        by_unit: dict[str, dict[int, set[tuple[str, str]]]] = defaultdict(lambda: defaultdict(set))
        numbered = _paragraph_starts(chunk_rows)
        for chunk_id, entity_id, start in zip(found["chunk_id"], found["entity_id"], found["start"], strict=True):
            if chunk_id not in numbered or unit_of[chunk_id] is None:
                continue  # no such chunk: the Spark join drops the mention too
            first, chunk_start, break_ends = numbered[chunk_id]
            paragraph = first + bisect.bisect_right(break_ends, max(start - chunk_start, 0))
            by_unit[unit_of[chunk_id]][paragraph].add((entity_id, chunk_id))
        for unit_id, paragraphs in by_unit.items():
            for low, here in paragraphs.items():
                for high in range(low, low + reach + 1):
                    there = paragraphs.get(high)
                    if not there:
                        continue
                    window_id = (unit_id, low, high)  # paragraphs low..high of the unit
                    for a, chunk_id in here:
                        if a not in mention_counts:
                            continue
                        for b, _ in there:
                            if a != b and b in mention_counts:
                                pair = (a, b) if a < b else (b, a)
                                windows[pair].add(window_id)
                                passages[pair].add(chunk_id)
                                units[pair].add(unit_id)
    pairs = sorted(windows)
    counts = [len(windows[pair]) for pair in pairs]
    return pa.Table.from_pydict(
        {
            "src_id": [src for src, _ in pairs],
            "dst_id": [dst for _, dst in pairs],
            "count": counts,
            "weight": [n / math.sqrt(mention_counts[src] * mention_counts[dst]) for n, (src, dst) in zip(
                counts, pairs, strict=True)],
            "chunk_ids": [sorted(passages[pair]) for pair in pairs],
            "unit_ids": [sorted(units[pair]) for pair in pairs],
            "window": [window] * len(pairs),
        },
        schema=COOCCURRENCES.arrow_schema(),
    )


def _paragraph_starts(chunk_rows: dict[str, list[Any]]) -> dict[str, tuple[int, int, list[int]]]:
    """chunk id → (the number of its first paragraph in its document, its start offset, the offsets in it where each
    paragraph break ends): ``paragraph_numbers``'s numbering, a mention's paragraph being the first plus the breaks
    ended by its start (a break never runs into a word, so those are the breaks its text before it holds)."""
    breaks = re.compile(PARAGRAPH_BREAK)
    by_document: dict[str, list[tuple[int, str, int, str]]] = defaultdict(list)
    for chunk_id, doc_id, index, start, text in zip(
        chunk_rows["chunk_id"], chunk_rows["doc_id"], chunk_rows["chunk_index"], chunk_rows["start"],
        chunk_rows["text"], strict=True,
    ):
        by_document[doc_id].append((index, chunk_id, start, text))
    out: dict[str, tuple[int, int, list[int]]] = {}
    for document in by_document.values():
        first = 0
        for _, chunk_id, start, text in sorted(document):
            ends = [match.end() for match in breaks.finditer(text)]
            out[chunk_id] = (first, start, ends)
            first += len(ends) + 1
    return out


class CooccurrencesStage(Stage):
    """Writes ``cooccurrences``."""

    name = "cooccurrences"
    version = 2
    tables = (COOCCURRENCES.name,)
    requires = ("entities",)

    def config(self, ctx: RunContext) -> dict[str, Any]:
        """The window."""
        return {"window": ctx.settings.ingestion.cooccurrence_window}

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Recompute the pairs from the resolved mentions — or, when the entities stage only resolved and removed
        some documents in document scope since these pairs were counted, only those documents' pairs."""
        from pyspark.sql import functions as F

        lake = ctx.lakehouse
        window = ctx.settings.ingestion.cooccurrence_window
        changed = self._changed_documents(ctx) if incremental else None
        if changed is None:
            everything = sorted(lake.doc_ids("mention_entities"))
            if lake.small_increment(everything):  # a small corpus: as for a few new documents below
                lake.write_arrow(self._pairs_in_driver(ctx, everything), self.name, overwrite=True)
            else:
                pairs = cooccurrence_pairs(
                    lake.read("mention_entities"), lake.read("chunks"), lake.read("entities"), window
                )
                lake.overwrite(pairs, self.name)
            return StageOutput(
                counts={"pairs": lake.count(self.name)}, output_fingerprint=self.derived_fingerprint(ctx)
            )
        resolved, removed = changed
        # In document scope a pair's entities, and so its chunks, are one document's: the chunk ids name it.
        redo = sorted({*resolved, *removed})
        if redo and lake.in_process_size(self.name):
            # and its entities are that document's alone (their ids are salted with it): the pairs to go are those
            # of the entities found here, deleted in the driver (delta-rs) without a Spark job
            pairs = lake.columns(self.name, ["src_id", "chunk_ids"])
            first = pc.list_element(pairs.column("chunk_ids"), 0)
            document = pc.replace_substring_regex(first, pattern=r":c[0-9]+$", replacement="")
            mine = pc.is_in(document, value_set=pa.array(redo, pa.string()))
            lake.delete_where(self.name, "src_id", sorted(set(pairs.column("src_id").filter(mine).to_pylist())))
        elif redo:
            document = F.regexp_extract(F.element_at("chunk_ids", 1), r"^(.*):c[0-9]+$", 1)
            lake.delete_matching(self.name, document.isin(redo))
        if resolved and lake.small_increment(resolved):
            # a few documents: their pairs counted and committed in the driver — no scan of the whole tables' files,
            # no Spark job
            pairs = self._pairs_in_driver(ctx, resolved)
            if pairs.num_rows:
                lake.write_arrow(pairs, self.name)
        elif resolved:
            mention_entities = lake.read("mention_entities").where(F.col("doc_id").isin(resolved))
            chunks = lake.read("chunks").where(F.col("doc_id").isin(resolved))
            lake.append(cooccurrence_pairs(mention_entities, chunks, lake.read("entities"), window), self.name)
        logger.info("cooccurrences: pairs of %d documents counted, of %d removed", len(resolved), len(removed))
        return StageOutput(counts={"pairs": lake.count(self.name)}, output_fingerprint=self.derived_fingerprint(ctx))

    def _pairs_in_driver(self, ctx: RunContext, documents: list[str]) -> pa.Table:
        """The pairs of these documents (``cooccurrence_rows``), their rows read with delta-rs."""
        lake, window = ctx.lakehouse, ctx.settings.ingestion.cooccurrence_window
        paragraphs = window in ("paragraph", "turns")
        mention_entities = lake.snapshot("mention_entities").to_table(
            columns=["entity_id", "chunk_id", "sentence_id", *(["start"] if paragraphs else [])],
            filter=one_of("doc_id", documents),
        )
        chunks = lake.snapshot("chunks").to_table(
            columns=["chunk_id", "doc_id", "chunk_index", "unit_id", "start", *(["text"] if paragraphs else [])],
            filter=one_of("doc_id", documents),
        )
        ids = sorted(set(mention_entities.column("entity_id").to_pylist()))
        counts = lake.snapshot("entities").to_table(
            columns=["entity_id", "mention_count"], filter=one_of("entity_id", ids)
        ).to_pydict()
        mention_counts = dict(zip(counts["entity_id"], counts["mention_count"], strict=True))
        return cooccurrence_rows(mention_entities, chunks, mention_counts, window)

    def _changed_documents(self, ctx: RunContext) -> tuple[list[str], list[str]] | None:
        """(resolved, removed) documents when the pairs on disk need only those updated, else None (recount all):
        ``documents_changed``."""
        return documents_changed(ctx, self.previous)
