"""The two pieces written once as Ibis expressions; ``run_*`` binds them to a backend (DuckDB or PySpark)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ibis
import pyarrow as pa

from graph.tables import COOCCURRENCES, ENTITIES, MENTION_ENTITIES
from ingestion.stages.cooccurrences import PARAGRAPH_BREAK, TURNS_REACH

WINDOW = "turns"
MIN_MENTIONS = 2


def _breaks(text: ibis.ir.StringValue) -> ibis.ir.IntegerValue:
    """How many paragraph breaks the text holds."""
    return text.re_split(PARAGRAPH_BREAK).length() - 1


def paragraph_numbers(mention_entities: ibis.Table, chunks: ibis.Table) -> ibis.Table:
    """(chunk_id, entity_id, unit_id, paragraph): each resolved mention's paragraph, numbered through its document."""
    per_chunk = chunks.select(
        "chunk_id", "doc_id", "chunk_index", "unit_id", "text", chunk_start=chunks.start, n=_breaks(chunks.text) + 1
    )
    upto = ibis.window(group_by="doc_id", order_by="chunk_index", rows=(None, 0))
    per_chunk = per_chunk.mutate(first=per_chunk.n.sum().over(upto) - per_chunk.n)
    located = mention_entities.select("entity_id", "chunk_id", "start").join(per_chunk, "chunk_id")
    within = _breaks(located.text.substr(0, ibis.greatest(located.start - located.chunk_start, 0)))
    return located.select(
        "chunk_id", "entity_id", "unit_id", paragraph=(located.first + within).cast("int64")
    ).distinct()


def turn_windows(mention_entities: ibis.Table, chunks: ibis.Table) -> ibis.Table:
    """(window_id, chunk_id, src_id, dst_id) for every paragraph, or pair of neighbouring ones, two entities share."""
    a = paragraph_numbers(mention_entities, chunks)
    b = ibis.union(*(a.mutate(near=a.paragraph + shift) for shift in range(-TURNS_REACH, TURNS_REACH + 1)))
    joined = a.join(b, [a.unit_id == b.unit_id, a.paragraph == b.near, a.entity_id != b.entity_id])
    low, high = ibis.least(a.paragraph, b.paragraph), ibis.greatest(a.paragraph, b.paragraph)
    return joined.select(
        window_id=a.unit_id.concat(":", low.cast("string"), ":", high.cast("string")),
        chunk_id=ibis.ifelse(a.paragraph <= b.paragraph, a.chunk_id, b.chunk_id),
        src_id=ibis.least(a.entity_id, b.entity_id),
        dst_id=ibis.greatest(a.entity_id, b.entity_id),
    )


def cooccurrences(mention_entities: ibis.Table, chunks: ibis.Table, entities: ibis.Table) -> ibis.Table:
    """One row per unordered entity pair: windows shared, passages, units, weight."""
    pairs = turn_windows(mention_entities, chunks).view().join(chunks.select("chunk_id", "unit_id"), "chunk_id")
    grouped = pairs.group_by("src_id", "dst_id").aggregate(
        count=pairs.window_id.nunique(),
        chunk_ids=pairs.chunk_id.collect(distinct=True).sort(),
        unit_ids=pairs.unit_id.collect(distinct=True).sort(),
    )
    src = entities.select(src_id="entity_id", m_src="mention_count")
    dst = entities.select(dst_id="entity_id", m_dst="mention_count")
    weighted = grouped.join(src, "src_id").join(dst, "dst_id")
    return weighted.select(
        "src_id", "dst_id", "count", weight=weighted["count"] / (weighted.m_src * weighted.m_dst).sqrt(),
        chunk_ids=weighted.chunk_ids, unit_ids=weighted.unit_ids, window=ibis.literal(WINDOW),
    )


def attach(mentions: ibis.Table, mapping: ibis.Table) -> ibis.Table:
    """``mention_entities``: each mention keyed by its ent_id (else its text) joined to its resolved form."""
    keyed = mentions.mutate(
        key=ibis.ifelse(mentions.ent_id.fill_null("") != "", mentions.ent_id, mentions.text)
    )
    joined = keyed.join(mapping, [keyed.key == mapping.text, keyed.label == mapping.label])
    return joined.select(
        mapping.entity_id, keyed.mention_id, keyed.doc_id, keyed.chunk_id, keyed.sentence_id, keyed.start,
        keyed.end, keyed.text,
    )


def entity_table(resolved: ibis.Table, mention_entities: ibis.Table, chunks: ibis.Table) -> ibis.Table:
    """``entities`` with counts and first/last appearance (by doc, chunk index, chunk, unit; a null first)."""
    located = mention_entities.select("entity_id", "doc_id", "chunk_id").join(
        chunks.select("chunk_id", "chunk_index", "unit_id"), "chunk_id"
    )
    order = ["doc_id", "chunk_index", "chunk_id", "unit_id"]
    ranked = located.mutate(
        up=ibis.row_number().over(group_by="entity_id", order_by=[ibis.asc(c, nulls_first=True) for c in order]),
        down=ibis.row_number().over(group_by="entity_id", order_by=[ibis.desc(c, nulls_first=False) for c in order]),
    )
    stats = ranked.group_by("entity_id").aggregate(
        mention_count=ranked.count(),
        doc_count=ranked.doc_id.nunique(),
        first_chunk_id=ranked.chunk_id.arbitrary(where=ranked.up == 0),
        last_chunk_id=ranked.chunk_id.arbitrary(where=ranked.down == 0),
        first_unit_id=ranked.unit_id.arbitrary(where=ranked.up == 0),
        last_unit_id=ranked.unit_id.arbitrary(where=ranked.down == 0),
    )
    kept = resolved.join(stats, "entity_id")
    return kept.filter(kept.mention_count >= MIN_MENTIONS)


def _tables(con: Any, paths: dict[str, Path]) -> dict[str, ibis.Table]:
    return {name: con.read_parquet(str(path), table_name=f"in_{name}") for name, path in paths.items()}


def run_cooc(con: Any, paths: dict[str, Path]) -> pa.Table:
    """The co-occurrence piece on ``con``'s engine."""
    t = _tables(con, paths)
    expr = cooccurrences(t["mention_entities"], t["chunks"], t["entities"])
    return con.to_pyarrow(expr).select(COOCCURRENCES.names).cast(COOCCURRENCES.arrow_schema())


def run_tail(con: Any, paths: dict[str, Path]) -> tuple[pa.Table, pa.Table]:
    """The entities tail on ``con``'s engine: (mention_entities, entities)."""
    t = _tables(con, paths)
    attached = attach(t["mentions"], t["mapping"])
    entities = entity_table(t["resolved"], attached, t["chunks"])
    return (
        con.to_pyarrow(attached).select(MENTION_ENTITIES.names).cast(MENTION_ENTITIES.arrow_schema()),
        con.to_pyarrow(entities).select(ENTITIES.names).cast(ENTITIES.arrow_schema()),
    )
