"""The benchmark's inputs: the upstream tables of the two measured pieces, read once from a lakehouse the current
pipeline wrote and kept as Parquet, and ``scale`` copies of them with every id (and every mention's text) made the
copy's own, as ``bench_scale`` varies the novel's names per copy so that each copy is its own people.

- ``chunks``, ``mention_entities``, ``entities`` (entity_id, mention_count): the co-occurrence stage's inputs;
- ``mentions``, ``mapping`` ((keyed text, label) → entity id, corpus scope), ``resolved`` (entity_id,
  canonical_name, label, aliases): the inputs of the entities stage's relational tail (keyed mentions → attach →
  entity table). The mapping is read back from the written tables: each NER mention's keyed text and label with the
  entity its ``mention_entities`` row names.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from deltalake import DeltaTable

# columns whose values start with the document id (doc_…:c0001, doc_…:u0044, doc_…:c0001:s3, …)
_ID_COLUMNS = ("doc_id", "chunk_id", "unit_id", "sentence_id", "mention_id")
_SUFFIXES = ["", "ov", "ski", "ina", "ev", "ek", "ard", "ton"]
TABLES = ("chunks", "mention_entities", "entities", "mentions", "mapping", "resolved")


def _read(lake: Path, name: str) -> pa.Table:
    return DeltaTable(str(lake / name)).to_pyarrow_table()


def _mapping(mentions: pa.Table, mention_entities: pa.Table) -> pa.Table:
    """(text, label, entity_id): each NER mention's keyed text (its ent_id when it has one) and the entity it got."""
    ent = pc.fill_null(mentions.column("ent_id"), "")
    keyed = pc.if_else(pc.not_equal(ent, ""), ent, mentions.column("text"))
    forms = pa.table({"mention_id": mentions.column("mention_id"), "text": keyed, "label": mentions.column("label")})
    joined = forms.join(mention_entities.select(["mention_id", "entity_id"]), "mention_id", join_type="inner")
    distinct = joined.group_by(["text", "label", "entity_id"]).aggregate([])
    keys = distinct.group_by(["text", "label"]).aggregate([])
    if keys.num_rows != distinct.num_rows:
        raise ValueError(f"{distinct.num_rows - keys.num_rows} (text, label) forms name two entities")
    return distinct.select(["text", "label", "entity_id"])


def _copy(table: pa.Table, copy: int) -> pa.Table:
    """The table's rows made copy ``copy``'s own: ids prefixed ``doc<copy>_``, entity ids and texts suffixed."""
    if copy == 0:
        return table
    for index, name in enumerate(table.column_names):
        column = table.column(name)
        if name in _ID_COLUMNS or name.endswith("_chunk_id") or name.endswith("_unit_id"):
            column = pc.replace_substring(column, "doc_", f"doc{copy}_", max_replacements=1)
        elif name == "entity_id":
            column = pc.binary_join_element_wise(column, pa.scalar(f"~{copy}"), "")
        elif name in ("text", "ent_id") and "label" in table.column_names:  # mentions and mapping: the names
            suffixed = pc.binary_join_element_wise(column, pa.scalar(_SUFFIXES[copy]), "")
            column = pc.if_else(pc.equal(column, ""), column, suffixed) if name == "ent_id" else suffixed
        table = table.set_column(index, name, column)
    return table


def extract(lake: Path, folder: Path, scale: int = 1) -> dict[str, Path]:
    """Write the six input tables of ``lake`` (``scale`` copies) as Parquet under ``folder``; their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {name: folder / f"{name}.parquet" for name in TABLES}
    if all(path.exists() for path in paths.values()):
        return paths
    mentions = _read(lake, "mentions").select(
        ["mention_id", "doc_id", "chunk_id", "sentence_id", "start", "end", "text", "label", "ent_id"]
    )
    mention_entities = _read(lake, "mention_entities")
    entities = _read(lake, "entities")
    base = {
        "chunks": _read(lake, "chunks"),
        "mention_entities": mention_entities,
        "entities": entities.select(["entity_id", "mention_count"]),
        "mentions": mentions,
        "mapping": _mapping(mentions, mention_entities),
        "resolved": entities.select(["entity_id", "canonical_name", "label", "aliases"]),
    }
    for name, table in base.items():
        copies = [_copy(table, copy) for copy in range(scale)]
        pq.write_table(pa.concat_tables(copies).combine_chunks(), paths[name])
    return paths
