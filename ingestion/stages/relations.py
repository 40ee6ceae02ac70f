"""Stage ``relations``: the typed relations between the people of the corpus ("src is the TYPE of dst").

After ``quotes``: each document's text (``documents.text``) goes through ``ingestion.relations`` with the document's
resolved person mentions (``mention_entities`` rows of entities labelled as people), its quotations with their
speakers and addressees (``quotes``) and the pronouns the quotes stage linked to people (``mention_entities`` rows of
kind pronoun), gathered per document by ``statements_sql`` through the relational seam
(DuckDB in process, Spark SQL at scale). The per-document extractor is pure Python and runs by
``relational.map_batches``: in the driver for a small corpus (``LakehouseTables.small_increment``; in the run's NER
processes when it has some) or in Spark's Python workers for a bigger one; either way it gives *statements* (one row
per sentence that states a relation), few enough to be gathered in the driver (War and Peace: hundreds). There
they are summed per (src, type, dst) with their inverses (``ingestion.relations.aggregate``), completed with the
kinship they imply (``infer``) and written whole: a relation sums statements of every document, so one document's
change reaches rows of others. The statements are kept in the stage's state with each document's inputs'
fingerprint (``ingestion.stages.increments``): a run extracts again only those of the documents whose fingerprint
changed. The markers skip the stage when neither ``entities`` nor ``quotes`` changed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from graph.kinship import KINSHIP_WORDS
from graph.tables import DOCUMENTS, ENTITIES, MENTION_ENTITIES, QUOTES, RELATIONS, TableSpec
from ingestion.names import PERSON_LABELS
from ingestion.relational import collected_table, engine_for, map_batches, query
from ingestion.relations import PersonMention, RelationMention, SpokenQuote, aggregate, infer, relation_mentions
from ingestion.stage import Stage, StageOutput
from ingestion.stages.increments import input_fingerprints

if TYPE_CHECKING:
    import pandas as pd

    from ingestion.context import RunContext

logger = logging.getLogger(__name__)

#: One row per statement of a relation (``ingestion.relations.RelationMention``) with its document: what the
#: engines hand the driver, never a table of the lakehouse.
STATEMENTS = TableSpec(
    "relation_statements",
    (
        ("doc_id", "string"),
        ("src_id", "string"),
        ("type", "string"),
        ("dst_id", "string"),
        ("start", "long"),
        ("end", "long"),
        ("chunk_id", "string"),
        ("pattern", "string"),
        ("confidence", "double"),
    ),
)


#: What the extractor reads of each quotation (table ``quotes``): where it is, who says it, to whom.
QUOTE_COLUMNS = ["doc_id", "start", "end", "speaker_id", "addressee_ids", "attribution"]
#: What it reads of each pronoun the quotes stage linked to a person (``mention_entities`` rows of kind pronoun).
PRONOUN_COLUMNS = ["doc_id", "start", "entity_id"]


def document_statements(
    doc_id: str,
    text: str,
    language: str | None,
    people: Iterable[tuple[int, int, str, str]],
    quotes: Iterable[Mapping[str, Any]] = (),
    pronouns: Iterable[tuple[int, str]] = (),
) -> list[dict[str, Any]]:
    """The statements of relations in one document; ``people``: (start, end, entity_id, chunk_id) of its resolved
    person mentions; ``quotes``: its ``quotes`` rows (``QUOTE_COLUMNS`` but doc_id); ``pronouns``: (start,
    entity_id) of its linked pronouns. A document in a language without kinship words (``graph.kinship``) states
    none."""
    if language not in KINSHIP_WORDS:
        return []
    mentions = [PersonMention(start, end, entity_id, chunk_id) for start, end, entity_id, chunk_id in people]
    spoken = [
        SpokenQuote(
            q["start"],
            q["end"],
            q["speaker_id"],
            tuple(() if q["addressee_ids"] is None else q["addressee_ids"]),
            q["attribution"] or "",
        )
        for q in quotes
    ]
    return [
        {"doc_id": doc_id, **{key: getattr(row, key) for key in STATEMENTS.names[1:]}}
        for row in relation_mentions(text, mentions, language or "", dict(pronouns), spoken)
    ]


def relation_table(statements: pa.Table) -> pa.Table:
    """The ``relations`` table from every document's statements: summed with their inverses, the kinship they imply
    added (``aggregate``, ``infer``), sorted by (src, type, dst). The statements are taken in one order whatever
    order they come in (a confidence is a product over them, rounded)."""
    statements = statements.sort_by([(name, "ascending") for name in STATEMENTS.names])
    mentions = [
        RelationMention(
            row["src_id"],
            row["type"],
            row["dst_id"],
            row["start"],
            row["end"],
            row["chunk_id"],
            row["pattern"],
            row["confidence"],
        )
        for row in statements.to_pylist()
    ]
    rows = [
        {
            "src_id": row.src_id,
            "type": row.type,
            "dst_id": row.dst_id,
            "chunk_ids": list(row.chunk_ids),
            "count": row.count,
            "confidence": row.confidence,
        }
        for row in infer(aggregate(mentions))
    ]
    return pa.Table.from_pylist(rows, schema=RELATIONS.arrow_schema())


def _gathered(table: str, columns: Sequence[str]) -> str:
    """A join of the rows of ``table`` gathered per document as a sorted list of ``columns``, named as the table."""
    fields = ", ".join(f"'{column}': \"{column}\"" for column in columns)
    return f"""
LEFT JOIN (SELECT doc_id, list_sort(list({{{fields}}})) AS {table} FROM {table} GROUP BY doc_id) AS {table}_of
  ON d.doc_id = {table}_of.doc_id"""


def statements_sql(with_quotes: bool, with_pronouns: bool = False) -> str:
    """The query of one row per document (table ``documents``: doc_id, text, language) with resolved person names:
    its ``people``, the (start, end, entity_id, chunk_id) of its mentions (table ``mention_entities``) of entities
    labelled as people (table ``entities``), its ``quotes``, its quotations' ``QUOTE_COLUMNS`` but doc_id (table
    ``quotes``; null when it has none, or when ``with_quotes`` is false and there is no such table), and its
    ``pronouns``, the (start, entity_id) of its linked pronouns (table ``pronouns``; null likewise) — all sorted."""
    labels = ", ".join(f"'{label}'" for label in sorted(PERSON_LABELS))
    lists = (("quotes", QUOTE_COLUMNS[1:], with_quotes), ("pronouns", PRONOUN_COLUMNS[1:], with_pronouns))
    selected = ", ".join(f"{name}_of.{name}" if wanted else f"NULL AS {name}" for name, _, wanted in lists)
    joins = "".join(_gathered(name, columns) for name, columns, wanted in lists if wanted)
    return f"""SELECT d.doc_id, d.text, d.language, p.people, {selected}
FROM documents AS d JOIN (
  SELECT m.doc_id,
         list_sort(list({{'start': m.start, 'end': m."end", 'entity_id': m.entity_id, 'chunk_id': m.chunk_id}}))
           AS people
  FROM mention_entities AS m JOIN entities AS e ON m.entity_id = e.entity_id
  WHERE e.label IN ({labels})
  GROUP BY m.doc_id
) AS p ON d.doc_id = p.doc_id{joins}"""


def statements(
    documents: Any, mention_entities: Any, entities: Any, quotes: Any = None, pronouns: Any = None
) -> pa.Table:
    """The statements of relations of ``documents`` (doc_id, text, language) by the engine of the tables (Arrow
    rows: in process; DataFrames: Spark), gathered to the driver: each document with its people (``mention_entities``
    doc_id, chunk_id, entity_id, start, end; ``entities`` entity_id, label), quotations (``quotes``
    ``QUOTE_COLUMNS``; none: no quotations read) and linked pronouns (``pronouns`` ``PRONOUN_COLUMNS``; none: no
    pronoun read beyond its sentence) by ``statements_sql``, then ``document_statements``."""
    tables = {"documents": documents, "mention_entities": mention_entities, "entities": entities}
    if quotes is not None:
        tables["quotes"] = quotes
    if pronouns is not None:
        tables["pronouns"] = pronouns
    sql = statements_sql(quotes is not None, pronouns is not None)
    return collected_table(map_batches(query(sql, tables), _statement_batches, STATEMENTS), STATEMENTS)


def _statement_batches(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """``document_statements`` over each document of each batch (``statements``' per-document Python)."""
    import pandas as pd

    for batch in batches:
        rows: list[dict[str, Any]] = []
        columns = ("doc_id", "text", "language", "people", "quotes", "pronouns")
        for doc_id, text, language, people, quotes, pronouns in zip(*(batch[c] for c in columns), strict=True):
            named = [(p["start"], p["end"], p["entity_id"], p["chunk_id"]) for p in people]
            linked = [(p["start"], p["entity_id"]) for p in ([] if pronouns is None else pronouns)]
            rows.extend(document_statements(doc_id, text, language, named, [] if quotes is None else quotes, linked))
        yield pd.DataFrame(rows, columns=list(STATEMENTS.names))


class RelationsStage(Stage):
    """Writes ``relations``."""

    name = "relations"
    version = 6
    tables = (RELATIONS.name,)
    # entities' output stands for its inputs too (documents), as for the quotes and cooccurrences stages; the
    # quotations' speakers and addressees give the kinship vocatives
    requires = ("entities", "quotes")

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """The statements of the documents whose inputs changed since the last run (``input_fingerprints``; every
        document's the first time), with the others' as that run recorded them, summed and written whole. The people
        are the names of ``mention_entities``; the quotes stage's pronoun rows only confirm a pronoun's one fitting
        person in the sentence before (alone, a third of the statements they make are wrong: docs/decisions/0025,
        0034), and its quotations say who calls whom "Mamma" and whom "your" is said to — both made from the inputs
        the fingerprint covers."""
        lake = ctx.lakehouse
        documents = sorted(lake.doc_ids(DOCUMENTS.name))
        current = input_fingerprints(engine_for(lake, lake.small_increment(documents)), None)
        quotes = lake.markers.read("quotes")
        # a document's quotations come from the inputs its fingerprint covers, by the quotes stage's code and settings
        made_by = quotes.config_fingerprint if quotes is not None else None
        kept, kept_statements = self._kept(ctx, current, made_by) if incremental else (set(), [])
        todo = sorted(set(documents) - kept)
        found, engine = self._statements(ctx, todo, everything=not kept)
        statements = pa.concat_tables([pa.Table.from_pylist(kept_statements, schema=STATEMENTS.arrow_schema()), found])
        lake.write_arrow(relation_table(statements), RELATIONS.name, overwrite=True)
        # hundreds of statements for a novel: kept whole for the next run
        lake.markers.write_state(
            self.name,
            run_id=ctx.run_id,
            state={
                "documents": dict(sorted(current.items())),
                "quotes_config": made_by,
                "statements": statements.to_pylist(),
            },
        )
        counts = {
            "relations": lake.count(RELATIONS.name),
            "statements": statements.num_rows,
            "documents_read": len(todo),
            "documents_kept": len(kept),
        }
        return StageOutput(counts=counts, output_fingerprint=self.derived_fingerprint(ctx), details={"engine": engine})

    def _kept(
        self, ctx: RunContext, current: dict[str, str], quotes_config: str | None
    ) -> tuple[set[str], list[dict[str, Any]]]:
        """The documents whose inputs' fingerprint is the one the last complete run recorded, and their statements
        as it found them; none when it left no state to trust, or its quotations were made with other settings or
        another version of the quotes stage (``quotes_config``)."""
        state = ctx.lakehouse.markers.read_state(self.name, self.previous) or {}
        recorded, statements = state.get("documents"), state.get("statements")
        if not isinstance(recorded, dict) or not isinstance(statements, list):
            return set(), []
        if quotes_config is None or state.get("quotes_config") != quotes_config:
            return set(), []
        kept = {doc_id for doc_id, inputs in recorded.items() if current.get(doc_id) == inputs}
        return kept, [row for row in statements if row.get("doc_id") in kept]

    @staticmethod
    def _statements(ctx: RunContext, documents: list[str], *, everything: bool) -> tuple[pa.Table, str]:
        """The statements of ``documents`` (all of them when ``everything``) by one engine: in the driver when their
        text is small (``LakehouseTables.small_increment``), else Spark's workers; and which."""
        lake = ctx.lakehouse
        engine = engine_for(lake, lake.small_increment(documents))
        scope = None if everything else documents
        texts = engine.read(DOCUMENTS.name, ["doc_id", "text", "language"], scope)
        names = engine.read(
            MENTION_ENTITIES.name, ["doc_id", "chunk_id", "entity_id", "start", "end"], scope, equal={"kind": "name"}
        )
        entities = engine.read(ENTITIES.name, ["entity_id", "label"], None)
        quotes = engine.read(QUOTES.name, QUOTE_COLUMNS, scope) if lake.exists(QUOTES.name) else None
        pronouns = engine.read(MENTION_ENTITIES.name, PRONOUN_COLUMNS, scope, equal={"kind": "pronoun"})
        return statements(texts, names, entities, quotes, pronouns), engine.name
