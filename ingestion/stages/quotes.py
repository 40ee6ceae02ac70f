"""Stage ``quotes``: every quotation of every document, its speaker and addressees as entities.

After ``entities``: each document's text (``documents.text``) goes through ``ingestion.quotes`` (detection, then
attribution) with the document's resolved person mentions (``mention_entities`` rows of entities labelled as people)
as the names. A speaker or an addressee is an entity when a resolved mention has exactly its offsets; a speaker the
text gives only as a pronoun or a description no name was found for ("said the old man", "I said") keeps its
``attribution`` with a null ``speaker_id``. Quotations in text that is not the story (front matter, contents, back
matter: ``NON_PROSE_UNIT_KINDS``) are left out, as they are of NER.

Both engines run ``document_quotes`` on each document: the driver over Arrow tables read with delta-rs for a small
corpus (``LakehouseTables.small_increment``), Spark over one row per document (its text, chunks and people gathered in
arrays) in ``mapInPandas`` for a bigger one. The table is rewritten whole (a novel takes a few seconds of pure Python),
except after an entities run in document scope that only resolved new documents and removed others: a document's
quotations depend on that document alone, so only those documents' rows are deleted and made again. The markers
skip the stage when nothing upstream changed.
"""

from __future__ import annotations

import bisect
import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from graph.tables import CHUNKS, DOCUMENTS, ENTITIES, MENTION_ENTITIES, NON_PROSE_UNIT_KINDS, QUOTES
from ingestion.coref.speakers import pronoun_speakers
from ingestion.lakehouse import one_of
from ingestion.markers import fingerprint
from ingestion.quotes import attribute, find_quotations
from ingestion.relations.sentences import PersonMention
from ingestion.stage import Stage, StageOutput
from ingestion.stages.increments import documents_changed
from ingestion.stages.references import REFERENCE_KINDS, delete_references, reference_rows, references_frame

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame

    from ingestion.context import RunContext
    from ingestion.lakehouse import LakehouseTables

logger = logging.getLogger(__name__)

# The NER labels of people (ingestion.resolution groups them into one family).
PERSON_LABELS = ("PERSON", "PER")


def document_quotes(
    doc_id: str, text: str, chunks: Iterable[tuple[int, str]], people: Iterable[tuple[int, int, str]]
) -> list[dict[str, Any]]:
    """The ``quotes`` rows of one document.

    ``chunks``: (start, chunk_id) of the document's prose chunks; ``people``: (start, end, entity_id) of its resolved
    person mentions, offsets into ``text``. A quotation is in the chunk where it starts; one starting outside every
    prose chunk is left out. A speaker given as "he"/"she" is the entity the pronoun is linked to
    (``ingestion.coref.pronoun_speakers``) when it is linked.
    """
    ordered = sorted(chunks)
    starts = [start for start, _ in ordered]
    entity_at = {(start, end): entity_id for start, end, entity_id in people}
    found_all = attribute(text, find_quotations(text), sorted(entity_at))
    mentions = [PersonMention(start, end, entity_id) for (start, end), entity_id in sorted(entity_at.items())]
    by_pronoun = pronoun_speakers(text, found_all, mentions, entity_at)
    rows = []
    for index, found in enumerate(found_all):
        quote = found.quote
        at = bisect.bisect_right(starts, quote.start) - 1
        if at < 0:
            continue
        addressees = [entity_at[span] for span in found.addressees if span in entity_at]
        speaker = by_pronoun.get(index) or (entity_at.get(found.speaker) if found.speaker else None)
        rows.append(
            {
                "quote_id": f"{doc_id}:q{quote.start}",
                "doc_id": doc_id,
                "chunk_id": ordered[at][1],
                "start": quote.start,
                "end": quote.end,
                "text": text[quote.start : quote.end],
                "speaker_id": speaker,
                "addressee_ids": list(dict.fromkeys(addressees)),
                "attribution": found.kind,
            }
        )
    return rows


def quote_rows(documents: pa.Table, chunks: pa.Table, mention_entities: pa.Table, entities: pa.Table) -> pa.Table:
    """The ``quotes`` table of the driver's engine, from the columns ``quotes_frame`` reads: ``documents`` doc_id,
    text; ``chunks`` doc_id, chunk_id, start, unit_kind; ``mention_entities`` doc_id, entity_id, start, end;
    ``entities`` entity_id, label; a ``mention_entities`` with a ``kind`` column gives its names only."""
    import pyarrow.compute as pc

    non_prose = pc.is_in(chunks.column("unit_kind"), pa.array(sorted(NON_PROSE_UNIT_KINDS)))
    by_doc_chunks: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for row in chunks.filter(pc.invert(pc.fill_null(non_prose, False))).to_pylist():
        by_doc_chunks[row["doc_id"]].append((row["start"], row["chunk_id"]))
    people_ids = entities.filter(pc.is_in(entities.column("label"), pa.array(PERSON_LABELS))).column("entity_id")
    people = mention_entities.filter(pc.is_in(mention_entities.column("entity_id"), people_ids))
    if "kind" in people.column_names:  # a table of the entities stage's version 17 or later: names only
        people = people.filter(pc.equal(people.column("kind"), "name"))
    by_doc_people: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for row in people.to_pylist():
        by_doc_people[row["doc_id"]].append((row["start"], row["end"], row["entity_id"]))
    rows: list[dict[str, Any]] = []
    for doc_id, text in zip(documents.column("doc_id").to_pylist(), documents.column("text").to_pylist(), strict=True):
        rows.extend(document_quotes(doc_id, text, by_doc_chunks.get(doc_id, ()), by_doc_people.get(doc_id, ())))
    return pa.Table.from_pylist(rows, schema=QUOTES.arrow_schema())


def quotes_frame(
    documents: DataFrame, chunks: DataFrame, mention_entities: DataFrame, entities: DataFrame
) -> DataFrame:
    """The ``quotes`` table of the Spark engine: one row per document with its prose chunks and person mentions
    gathered, then ``document_quotes`` in ``mapInPandas``."""
    from pyspark.sql import functions as F

    people_ids = entities.where(F.col("label").isin(list(PERSON_LABELS))).select("entity_id")
    if "kind" in mention_entities.columns:  # a table of the entities stage's version 17 or later: names only
        mention_entities = mention_entities.where(F.col("kind") == "name")
    people = (
        mention_entities.join(people_ids, "entity_id")
        .groupBy("doc_id")
        .agg(F.collect_list(F.struct("start", "end", "entity_id")).alias("people"))
    )
    prose = (
        chunks.where(~F.col("unit_kind").isin(sorted(NON_PROSE_UNIT_KINDS)) | F.col("unit_kind").isNull())
        .groupBy("doc_id")
        .agg(F.collect_list(F.struct("start", "chunk_id")).alias("chunks"))
    )
    gathered = documents.select("doc_id", "text").join(prose, "doc_id").join(people, "doc_id", "left")
    return gathered.mapInPandas(_quote_batches, QUOTES.ddl())


def _quote_batches(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """``document_quotes`` over each document of each batch (``quotes_frame``'s worker side)."""
    import pandas as pd

    for batch in batches:
        rows: list[dict[str, Any]] = []
        for doc_id, text, chunks, people in zip(
            batch["doc_id"], batch["text"], batch["chunks"], batch["people"], strict=True
        ):
            parts = [(chunk["start"], chunk["chunk_id"]) for chunk in chunks]
            named = [(p["start"], p["end"], p["entity_id"]) for p in ([] if people is None else people)]
            rows.extend(document_quotes(doc_id, text, parts, named))
        yield pd.DataFrame(rows, columns=list(QUOTES.names))


class QuotesStage(Stage):
    """Writes ``quotes``, and the pronoun and description rows of ``mention_entities`` (``ingestion.stages.references``:
    they need the quotations' speakers)."""

    name = "quotes"
    version = 3
    tables = (QUOTES.name,)
    # entities' output stands for its inputs too (chunks, and so documents): as for the cooccurrences stage
    requires = ("entities",)

    def input_fingerprint(self, ctx: RunContext) -> str:
        """The entities stage's output, and the run that wrote it: every run of that stage rewrites
        ``mention_entities`` without the pronoun rows this stage adds there, so they are made again even when the
        names came out the same (a forced ``--stages entities``)."""
        marker = ctx.lakehouse.markers.read("entities")
        return fingerprint([super().input_fingerprint(ctx), marker.run_id if marker else None])

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Every document's quotations and references — or, when the entities stage only resolved and removed some
        documents in document scope since these rows were made (``documents_changed``), only those documents'."""
        lake = ctx.lakehouse
        changed = documents_changed(ctx, self.previous) if incremental else None
        if changed is None:
            todo = sorted(lake.doc_ids(DOCUMENTS.name))
            delete_references(lake, None)
            engine = self._write(ctx, todo, everything=True)
        else:
            todo, removed = changed
            lake.delete_where(QUOTES.name, "doc_id", sorted({*todo, *removed}))
            delete_references(lake, sorted({*todo, *removed}))
            engine = self._write(ctx, todo, everything=False)
            logger.info("quotes: quotations of %d documents found, of %d removed", len(todo), len(removed))
        counts = {
            "quotes": lake.count(QUOTES.name),
            "references": _count_references(lake),
            "documents_read": len(todo),
        }
        return StageOutput(counts=counts, output_fingerprint=self.derived_fingerprint(ctx), details={"engine": engine})

    def _write(self, ctx: RunContext, documents: list[str], *, everything: bool) -> str:
        """Write the quotations of ``documents`` (all of them, replacing the table, when ``everything``), then their
        references: in the driver when they are few (``LakehouseTables.small_increment``), else by Spark; returns
        which."""
        lake = ctx.lakehouse
        if lake.small_increment(documents):
            only = None if everything else one_of("doc_id", documents)
            rows = self._rows_in_driver(ctx, only)
            if everything or rows.num_rows:
                lake.write_arrow(rows, QUOTES.name, overwrite=everything)
            references = reference_rows(
                *self._driver_inputs(ctx, only, ["language"], ["sentence_id", "kind"]),
                lake.snapshot(QUOTES.name).to_table(
                    columns=["doc_id", "start", "end", "speaker_id", "addressee_ids"], filter=only
                ),
            )
            if references.num_rows:
                lake.write_arrow(references, MENTION_ENTITIES.name)
            return "driver"
        from pyspark.sql import functions as F

        def read(table: str) -> DataFrame:
            frame = lake.read(table)
            return frame if everything else frame.where(F.col("doc_id").isin(documents))

        inputs = (read(DOCUMENTS.name), read(CHUNKS.name), read(MENTION_ENTITIES.name), lake.read(ENTITIES.name))
        frame = quotes_frame(*inputs)
        if everything:
            lake.overwrite(frame, QUOTES.name)
        else:
            lake.append(frame, QUOTES.name)
        lake.append(references_frame(*inputs, read(QUOTES.name)), MENTION_ENTITIES.name)
        return "spark"

    def _rows_in_driver(self, ctx: RunContext, only: Any) -> pa.Table:
        """``quote_rows`` over the tables read with delta-rs, of the documents ``only`` keeps (all with None)."""
        return quote_rows(*self._driver_inputs(ctx, only, [], ["kind"]))

    def _driver_inputs(
        self, ctx: RunContext, only: Any, document_columns: list[str], mention_columns: list[str]
    ) -> tuple[pa.Table, pa.Table, pa.Table, pa.Table]:
        """documents, chunks, mention_entities and entities read with delta-rs, with the columns both readers need
        and the extra ones named."""
        lake = ctx.lakehouse
        return (
            lake.snapshot(DOCUMENTS.name).to_table(columns=["doc_id", "text", *document_columns], filter=only),
            lake.snapshot(CHUNKS.name).to_table(columns=["doc_id", "chunk_id", "start", "unit_kind"], filter=only),
            lake.snapshot(MENTION_ENTITIES.name).to_table(
                columns=["doc_id", "entity_id", "start", "end", *mention_columns], filter=only
            ),
            lake.snapshot(ENTITIES.name).to_table(columns=["entity_id", "label"]),
        )


def _count_references(lake: LakehouseTables) -> int:
    """The pronoun and description rows of ``mention_entities``."""
    import pyarrow.compute as pc

    kinds = lake.columns(MENTION_ENTITIES.name, ["kind"]).column("kind")
    return int(pc.sum(pc.is_in(kinds, pa.array(REFERENCE_KINDS))).as_py() or 0)
