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

The counting is one query (``cooccurrence_sql``, ``cooccurrence_pairs``), run by the engine the stage picks
(``ingestion.relational.engine_for``): in process by DuckDB for a small corpus or increment
(``LakehouseTables.small_increment``), by Spark SQL for a bigger one.

Recomputed whole, except after an entities run in document scope that only resolved new documents and removed
others (its marker's ``details["documents"]``): a pair's entities are then one document's, so only those documents'
pairs are deleted and counted again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from graph.tables import COOCCURRENCES
from ingestion.markers import fingerprint
from ingestion.relational import Engine, columns, engine_for, query
from ingestion.schema import conform
from ingestion.stage import Stage, StageOutput
from ingestion.stages.increments import documents_changed

if TYPE_CHECKING:

    from ingestion.context import RunContext

logger = logging.getLogger(__name__)

WINDOWS = ("sentence", "paragraph", "turns", "chunk")
# A blank line (maybe with spaces) ends a paragraph; the chunker splits on the same thing (ingestion.chunking).
PARAGRAPH_BREAK = r"\n[ \t\r]*\n"
TURNS_REACH = 1  # how many paragraphs away a "turns" window reaches: the reply to a line of dialogue


def cooccurrence_sql(window: str, offsets_in_mentions: bool = False) -> str:
    """The query (DuckDB's dialect) of one row per unordered entity pair over the tables ``mention_entities``,
    ``chunks``, ``entities`` (their mention counts: a pair of an entity not there is dropped) and, when
    ``offsets_in_mentions`` (a ``mention_entities`` table written before the entities stage's version 6, without the
    mentions' offsets), ``mentions``.

    A pair's passages are the chunks of its first mentions (the lesser entity's in a sentence or chunk window, the
    earlier paragraph's in a paragraph window), its units the units of those chunks.
    """
    if window not in WINDOWS:
        raise ValueError(f"unknown co-occurrence window {window!r}; valid: {', '.join(WINDOWS)}")
    if window in ("sentence", "chunk"):
        windows = _shared_keys(window)
    else:
        windows = _shared_paragraphs(window, offsets_in_mentions)
    return f"""WITH {windows}, grouped AS (
  SELECT w.src_id, w.dst_id, count(DISTINCT w.window_id) AS "count",
         array_sort(array_agg(DISTINCT w.chunk_id) FILTER (WHERE w.chunk_id IS NOT NULL)) AS chunk_ids,
         array_sort(array_agg(DISTINCT c.unit_id) FILTER (WHERE c.unit_id IS NOT NULL)) AS unit_ids
  FROM windows AS w JOIN chunks AS c ON w.chunk_id = c.chunk_id
  GROUP BY w.src_id, w.dst_id
)
SELECT g.src_id, g.dst_id, g."count", g."count" / sqrt(s.mention_count * d.mention_count) AS weight,
       g.chunk_ids, g.unit_ids, '{window}' AS "window"
FROM grouped AS g JOIN entities AS s ON g.src_id = s.entity_id JOIN entities AS d ON g.dst_id = d.entity_id"""


def _shared_keys(window: str) -> str:
    """``windows`` (window_id, chunk_id, src_id, dst_id): the pairs of entities mentioned in one sentence or chunk."""
    key = "sentence_id" if window == "sentence" else "chunk_id"
    return f"""occurrences AS (
  SELECT DISTINCT {key} AS window_id, chunk_id, entity_id FROM mention_entities
), windows AS (
  SELECT a.window_id, a.chunk_id, a.entity_id AS src_id, b.entity_id AS dst_id
  FROM occurrences AS a JOIN occurrences AS b ON a.window_id = b.window_id AND a.entity_id < b.entity_id
)"""


def _shared_paragraphs(window: str, offsets_in_mentions: bool) -> str:
    """``windows`` (window_id, chunk_id, src_id, dst_id) of the paragraph windows.

    A mention's paragraph is the number of paragraph breaks before it in its chunk's text, after the paragraphs of
    the document's earlier chunks, so neighbouring paragraphs differ by one across a chunk boundary too. The join is
    an equi-join on (unit, paragraph): b stands at each paragraph it reaches, so the work grows with the mentions of
    neighbouring paragraphs, never with the size of a unit (a book without headings is one unit).
    """
    reach = 0 if window == "paragraph" else TURNS_REACH
    shifts = ", ".join(f"({shift})" for shift in range(-reach, reach + 1))
    offsets = (
        "SELECT e.entity_id, m.chunk_id, m.start FROM mention_entities AS e JOIN mentions AS m"
        " ON e.mention_id = m.mention_id"
        if offsets_in_mentions
        else "SELECT entity_id, chunk_id, start FROM mention_entities"
    )
    return f"""offsets AS ({offsets}), numbered AS (
  SELECT chunk_id, unit_id, start AS chunk_start, text, coalesce(sum(array_length(string_split_regex(text,
           '{PARAGRAPH_BREAK}'))) OVER (PARTITION BY doc_id ORDER BY chunk_index
           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS first_paragraph
  FROM chunks
), paragraphs AS (
  SELECT DISTINCT o.chunk_id, o.entity_id, c.unit_id, CAST(c.first_paragraph + array_length(string_split_regex(
           substring(c.text, 1, greatest(o.start - c.chunk_start, 0)), '{PARAGRAPH_BREAK}')) - 1 AS BIGINT) AS paragraph
  FROM offsets AS o JOIN numbered AS c ON o.chunk_id = c.chunk_id
), reached AS (
  SELECT p.*, p.paragraph + s.shift AS near FROM paragraphs AS p CROSS JOIN (VALUES {shifts}) AS s(shift)
), windows AS (
  SELECT concat_ws(':', a.unit_id, CAST(least(a.paragraph, b.paragraph) AS VARCHAR),
                   CAST(greatest(a.paragraph, b.paragraph) AS VARCHAR)) AS window_id,
         CASE WHEN a.paragraph <= b.paragraph THEN a.chunk_id ELSE b.chunk_id END AS chunk_id,
         least(a.entity_id, b.entity_id) AS src_id, greatest(a.entity_id, b.entity_id) AS dst_id
  FROM paragraphs AS a JOIN reached AS b
    ON a.unit_id = b.unit_id AND a.paragraph = b.near AND a.entity_id <> b.entity_id
)"""


def cooccurrence_pairs(
    mention_entities: Any, chunks: Any, entities: Any, window: str, mentions: Any | None = None
) -> Any:
    """``cooccurrence_sql`` run by the engine of the tables (DataFrames: Spark SQL; Arrow rows: DuckDB):
    (mention_entities, chunks, entities[, mentions]) → one row per pair.

    ``mentions`` (their offsets) is needed by the paragraph windows only, and only for a ``mention_entities``
    table written before the entities stage's version 6 (which holds the offsets itself).
    """
    in_mentions = window in ("paragraph", "turns") and "start" not in columns(mention_entities)
    tables = {"mention_entities": mention_entities, "chunks": chunks, "entities": entities}
    if in_mentions:
        if mentions is None:
            raise ValueError(f"the {window!r} window needs the mentions table (their offsets)")
        tables["mentions"] = mentions
    return conform(query(cooccurrence_sql(window, in_mentions), tables), COOCCURRENCES)


def cooccurrence_rows(
    mention_entities: pa.Table, chunks: pa.Table, mention_counts: Mapping[str, int], window: str
) -> pa.Table:
    """``cooccurrence_pairs`` in process, over Arrow rows, sorted by pair, the entities given as their mention counts.

    ``mention_entities``: entity_id, chunk_id, sentence_id and (paragraph windows) start; ``chunks``: chunk_id, doc_id,
    chunk_index, unit_id, start and (paragraph windows) text; ``mention_counts``: the ``entities`` table's
    mention_count by entity id.
    """
    entities = pa.table(
        {"entity_id": list(mention_counts), "mention_count": list(mention_counts.values())},
        schema=pa.schema([("entity_id", pa.string()), ("mention_count", pa.int64())]),
    )
    pairs = cooccurrence_pairs(mention_entities, chunks, entities, window)
    return pairs.sort_by([("src_id", "ascending"), ("dst_id", "ascending")])


class CooccurrencesStage(Stage):
    """Writes ``cooccurrences``."""

    name = "cooccurrences"
    version = 2
    tables = (COOCCURRENCES.name,)
    requires = ("entities",)

    def config(self, ctx: RunContext) -> dict[str, Any]:
        """The window, and whether pronouns and descriptions count."""
        return {
            "window": ctx.settings.ingestion.cooccurrence_window,
            "references": ctx.settings.ingestion.cooccurrence_references,
        }

    def input_fingerprint(self, ctx: RunContext) -> str:
        """The entities stage's output; with pronouns and descriptions counted, the quotes stage's too (it writes
        them), and then a changed document recounts every pair."""
        upstream = super().input_fingerprint(ctx)
        if not ctx.settings.ingestion.cooccurrence_references:
            return upstream
        marker = ctx.lakehouse.markers.read("quotes")
        return fingerprint([upstream, marker.output_fingerprint if marker else None])

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Recompute the pairs from the resolved mentions — or, when the entities stage only resolved and removed
        some documents in document scope since these pairs were counted, only those documents' pairs. A few
        documents (``LakehouseTables.small_increment``) are counted and committed in process, more by Spark."""
        from pyspark.sql import functions as F

        lake = ctx.lakehouse
        changed = self._changed_documents(ctx) if incremental else None
        if changed is None:
            everything = sorted(lake.doc_ids("mention_entities"))
            engine = engine_for(lake, lake.small_increment(everything))
            # in process only the documents with resolved mentions are read; Spark reads the tables whole
            pairs = self._pairs(ctx, engine, everything if engine.in_process else None)
            engine.write(pairs, self.name, overwrite=True)
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
        if resolved:
            # only these documents' rows are read: a few of them are counted in process, without a scan of the whole
            # tables' files or a Spark job
            engine = engine_for(lake, lake.small_increment(resolved))
            engine.write(self._pairs(ctx, engine, resolved), self.name)
        logger.info("cooccurrences: pairs of %d documents counted, of %d removed", len(resolved), len(removed))
        return StageOutput(counts={"pairs": lake.count(self.name)}, output_fingerprint=self.derived_fingerprint(ctx))

    def _pairs(self, ctx: RunContext, engine: Engine, documents: list[str] | None) -> Any:
        """The pairs of these documents (None: all), their rows read by the ``engine`` (``cooccurrence_pairs``)."""
        window = ctx.settings.ingestion.cooccurrence_window
        paragraphs = window in ("paragraph", "turns")
        # a mention_entities table written before the entities stage's version 6 holds no offsets: the mentions do
        in_mentions = paragraphs and "start" not in ctx.lakehouse.snapshot("mention_entities").schema.names
        offsets = ["start"] if paragraphs and not in_mentions else ["mention_id"] if in_mentions else []
        # pronouns and descriptions of people (kind pronoun | nominal) count only when the setting says so
        names_only = None if ctx.settings.ingestion.cooccurrence_references else {"kind": "name"}
        mention_entities = engine.read("mention_entities", ["entity_id", "chunk_id", "sentence_id", *offsets],
                                       documents, names_only)
        chunks = engine.read("chunks", ["chunk_id", "doc_id", "chunk_index", "unit_id", "start",
                                        *(["text"] if paragraphs else [])], documents)
        entities = engine.read("entities", ["entity_id", "mention_count"], None)
        mentions = engine.read("mentions", ["mention_id", "start"], documents) if in_mentions else None
        return cooccurrence_pairs(mention_entities, chunks, entities, window, mentions)

    def _changed_documents(self, ctx: RunContext) -> tuple[list[str], list[str]] | None:
        """(resolved, removed) documents when the pairs on disk need only those updated, else None (recount all):
        ``documents_changed``."""
        return documents_changed(ctx, self.previous)
