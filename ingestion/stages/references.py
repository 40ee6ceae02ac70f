"""The ``mention_entities`` rows of pronouns and descriptions of people (``kind`` pronoun / nominal), made by the quotes
stage after its quotations: "he", "her", "I" inside a quotation, "the count" linked to an entity through
``ingestion.coref`` over each document's text, its resolved person names and its quotations with their speakers.

Both engines run ``document_references`` on each document: the driver over Arrow tables (``reference_rows``), Spark
over one row per document with its prose chunks, people and quotations gathered (``references_frame``,
``mapInPandas``). A row's ``mention_id`` is ``<doc_id>:r<start>``; its ``sentence_id`` is the one of a name in the
same sentence when there is one (so the sentence window of co-occurrences meets them), else ``<chunk_id>:t<start of
the sentence>``. English documents only: the pronoun words are English.
"""

from __future__ import annotations

import bisect
import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from graph.tables import MENTION_ENTITIES, NON_PROSE_UNIT_KINDS
from ingestion.coref import Speech, resolve_references
from ingestion.relations.sentences import PersonMention, sentence_spans

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame

    from ingestion.lakehouse import LakehouseTables

logger = logging.getLogger(__name__)

__all__ = ["REFERENCE_KINDS", "delete_references", "document_references", "reference_rows", "references_frame"]

# The kinds of rows this module writes (``graph.tables.MENTION_KINDS`` less the entities stage's names).
REFERENCE_KINDS = ("pronoun", "nominal")
PERSON_LABELS = ("PERSON", "PER")  # as the quotes stage reads them
LANGUAGES = ("en",)


def document_references(
    doc_id: str,
    text: str,
    chunks: Iterable[tuple[int, str]],
    people: Iterable[tuple[int, int, str, str]],
    quotes: Iterable[tuple[int, int, str | None, Sequence[str]]],
) -> list[dict[str, Any]]:
    """The pronoun and description rows of one document.

    ``chunks``: (start, chunk_id) of its prose chunks; ``people``: (start, end, entity_id, sentence_id) of its
    resolved person names; ``quotes``: (start, end, speaker_id, addressee_ids) of its quotations. A reference before
    every prose chunk is left out.
    """
    ordered = sorted(chunks)
    starts = [start for start, _ in ordered]
    names = sorted(people)
    speeches = [Speech(s, e, speaker, tuple(addressees or ())) for s, e, speaker, addressees in quotes]
    found = resolve_references(text, [PersonMention(s, e, entity) for s, e, entity, _ in names], speeches)
    sentences = [start for start, _ in sentence_spans(text)] or [0]
    named_sentence: dict[int, str] = {}
    for start, _, _, sentence_id in names:
        named_sentence.setdefault(bisect.bisect_right(sentences, start) - 1, sentence_id)
    rows = []
    for reference in found:
        at = bisect.bisect_right(starts, reference.start) - 1
        if at < 0:
            continue
        chunk_id = ordered[at][1]
        sentence = bisect.bisect_right(sentences, reference.start) - 1
        rows.append({
            "entity_id": reference.entity_id,
            "mention_id": f"{doc_id}:r{reference.start}",
            "doc_id": doc_id,
            "chunk_id": chunk_id,
            "sentence_id": named_sentence.get(sentence) or f"{chunk_id}:t{sentences[sentence]}",
            "start": reference.start,
            "end": reference.end,
            "text": text[reference.start : reference.end],
            "kind": reference.kind,
        })
    return rows


def reference_rows(
    documents: pa.Table, chunks: pa.Table, mention_entities: pa.Table, entities: pa.Table, quotes: pa.Table
) -> pa.Table:
    """The rows of the driver's engine, from the columns ``references_frame`` reads: ``documents`` doc_id, text,
    language; ``chunks`` doc_id, chunk_id, start, unit_kind; ``mention_entities`` doc_id, entity_id, start, end,
    sentence_id, kind; ``entities`` entity_id, label; ``quotes`` doc_id, start, end, speaker_id, addressee_ids."""
    non_prose = pc.is_in(chunks.column("unit_kind"), pa.array(sorted(NON_PROSE_UNIT_KINDS)))
    by_doc_chunks: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for row in chunks.filter(pc.invert(pc.fill_null(non_prose, False))).to_pylist():
        by_doc_chunks[row["doc_id"]].append((row["start"], row["chunk_id"]))
    people_ids = entities.filter(pc.is_in(entities.column("label"), pa.array(PERSON_LABELS))).column("entity_id")
    names = mention_entities.filter(pc.and_(pc.is_in(mention_entities.column("entity_id"), people_ids),
                                            pc.equal(mention_entities.column("kind"), "name")))
    by_doc_people: dict[str, list[tuple[int, int, str, str]]] = defaultdict(list)
    for row in names.to_pylist():
        by_doc_people[row["doc_id"]].append((row["start"], row["end"], row["entity_id"], row["sentence_id"]))
    by_doc_quotes: dict[str, list[tuple[int, int, str | None, Sequence[str]]]] = defaultdict(list)
    for row in quotes.to_pylist():
        by_doc_quotes[row["doc_id"]].append((row["start"], row["end"], row["speaker_id"], row["addressee_ids"]))
    rows: list[dict[str, Any]] = []
    for doc in documents.filter(pc.is_in(documents.column("language"), pa.array(LANGUAGES))).to_pylist():
        doc_id = doc["doc_id"]
        rows.extend(document_references(doc_id, doc["text"], by_doc_chunks.get(doc_id, ()),
                                        by_doc_people.get(doc_id, ()), by_doc_quotes.get(doc_id, ())))
    return pa.Table.from_pylist(rows, schema=MENTION_ENTITIES.arrow_schema())


def references_frame(
    documents: DataFrame, chunks: DataFrame, mention_entities: DataFrame, entities: DataFrame, quotes: DataFrame
) -> DataFrame:
    """The rows of the Spark engine: one row per English document with its prose chunks, person names and
    quotations gathered, then ``document_references`` in ``mapInPandas``."""
    from pyspark.sql import functions as F

    people_ids = entities.where(F.col("label").isin(list(PERSON_LABELS))).select("entity_id")
    people = (
        mention_entities.where(F.col("kind") == "name").join(people_ids, "entity_id")
        .groupBy("doc_id")
        .agg(F.collect_list(F.struct("start", "end", "entity_id", "sentence_id")).alias("people"))
    )
    prose = (
        chunks.where(~F.col("unit_kind").isin(sorted(NON_PROSE_UNIT_KINDS)) | F.col("unit_kind").isNull())
        .groupBy("doc_id")
        .agg(F.collect_list(F.struct("start", "chunk_id")).alias("chunks"))
    )
    spoken = quotes.groupBy("doc_id").agg(
        F.collect_list(F.struct("start", "end", "speaker_id", "addressee_ids")).alias("quotes")
    )
    gathered = (
        documents.where(F.col("language").isin(list(LANGUAGES))).select("doc_id", "text")
        .join(prose, "doc_id").join(people, "doc_id").join(spoken, "doc_id", "left")
    )
    return gathered.mapInPandas(_reference_batches, MENTION_ENTITIES.ddl())


def _reference_batches(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """``document_references`` over each document of each batch (``references_frame``'s worker side)."""
    import pandas as pd

    for batch in batches:
        rows: list[dict[str, Any]] = []
        for doc_id, text, chunks, people, quotes in zip(
            batch["doc_id"], batch["text"], batch["chunks"], batch["people"], batch["quotes"], strict=True
        ):
            rows.extend(document_references(
                doc_id,
                text,
                [(c["start"], c["chunk_id"]) for c in chunks],
                [(p["start"], p["end"], p["entity_id"], p["sentence_id"]) for p in people],
                [(q["start"], q["end"], q["speaker_id"], [] if q["addressee_ids"] is None else list(q["addressee_ids"]))
                 for q in ([] if quotes is None else quotes)],
            ))
        yield pd.DataFrame(rows, columns=list(MENTION_ENTITIES.names))


def delete_references(lake: LakehouseTables, doc_ids: list[str] | None) -> None:
    """Delete the pronoun and description rows of ``mention_entities`` (of ``doc_ids``, or all with None), in one
    Delta commit: what makes the quotes stage's rerun after a crash give the same rows, not twice as many."""
    table = MENTION_ENTITIES.name
    if (doc_ids is not None and not doc_ids) or not lake.exists(table):
        return
    kinds = ", ".join(f"'{kind}'" for kind in REFERENCE_KINDS)
    if lake.in_process_size(table):
        predicate = f"kind IN ({kinds})"
        if doc_ids is not None:
            quoted = ", ".join("'" + doc_id.replace("'", "''") + "'" for doc_id in doc_ids)
            predicate += f" AND doc_id IN ({quoted})"
        lake.delta_table(table).delete(predicate)
        return
    from pyspark.sql import functions as F

    condition = F.col("kind").isin(list(REFERENCE_KINDS))
    lake.delete_matching(table, condition if doc_ids is None else condition & F.col("doc_id").isin(doc_ids))
