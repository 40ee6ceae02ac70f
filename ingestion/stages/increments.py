"""What changed since a stage's last run, for the stages after ``entities`` that update their rows per document.

Two ways to tell. ``documents_changed``: the documents the entities stage's last run resolved and removed in document
scope, from its marker (free, but only for that run). ``input_fingerprints``: per document, a fingerprint of all a
document's rows of the quotes and relations stages are made from, to be compared with the one recorded with those
rows — what finds the few documents a corpus-scope entities run changed among thousands it left as they were.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from graph.tables import CHUNKS, DOCUMENTS, ENTITIES, MENTION_ENTITIES, TableSpec
from ingestion.markers import fingerprint
from ingestion.relational import collected, map_batches, query
from ingestion.stages.references import PEOPLE_SQL, PROSE_CHUNKS_SQL

if TYPE_CHECKING:
    import pandas as pd

    from ingestion.context import RunContext
    from ingestion.markers import Marker
    from ingestion.relational import Engine

logger = logging.getLogger(__name__)

__all__ = ["INPUTS_SQL", "documents_changed", "fingerprints_of", "input_fingerprints"]

# One row per document (table ``documents``: doc_id, language) with its prose chunks (``PROSE_CHUNKS_SQL``) and its
# names of people (table ``mention_entities`` of kind name, entities labelled as people in table ``entities``) with
# every column the quotes and relations stages read of them, each list sorted, null when none. With the doc_id (the
# hash of the text) that is everything those stages read of a document: the speaker, pronoun and relation code reads
# no entity's attributes, only which names are whose.
INPUTS_SQL = f"""SELECT d.doc_id, d.language, c.chunks, p.people
FROM documents AS d LEFT JOIN ({PROSE_CHUNKS_SQL}) AS c ON d.doc_id = c.doc_id
LEFT JOIN (
  SELECT doc_id, list_sort(list({{'start': start, 'end': "end", 'entity_id': entity_id, 'chunk_id': chunk_id,
                                  'sentence_id': sentence_id}})) AS people
  FROM mention_entities WHERE kind = 'name' AND {PEOPLE_SQL}
  GROUP BY doc_id
) AS p ON d.doc_id = p.doc_id"""

_FINGERPRINTS = TableSpec("input_fingerprints", (("doc_id", "string"), ("fingerprint", "string")))


def input_fingerprints(engine: Engine, documents: list[str] | None) -> dict[str, str]:
    """doc_id → the fingerprint of what the quotes and relations stages read of the document (``INPUTS_SQL``), for
    every document (``documents`` None) or these, computed by ``engine`` (in process, or by Spark's workers)."""
    return fingerprints_of(
        engine.read(DOCUMENTS.name, ["doc_id", "language"], documents),
        engine.read(CHUNKS.name, ["doc_id", "chunk_id", "start", "unit_kind"], documents),
        engine.read(
            MENTION_ENTITIES.name,
            ["doc_id", "entity_id", "start", "end", "chunk_id", "sentence_id", "kind"],
            documents,
        ),
        engine.read(ENTITIES.name, ["entity_id", "label"], None),
    )


def fingerprints_of(documents: Any, chunks: Any, mention_entities: Any, entities: Any) -> dict[str, str]:
    """``input_fingerprints`` of these tables' rows (Arrow rows: in process; DataFrames: Spark): ``documents``
    (doc_id, language), ``chunks`` (doc_id, chunk_id, start, unit_kind), ``mention_entities`` (doc_id, entity_id,
    start, end, chunk_id, sentence_id, kind), ``entities`` (entity_id, label)."""
    tables = {"documents": documents, "chunks": chunks, "mention_entities": mention_entities, "entities": entities}
    rows = collected(map_batches(query(INPUTS_SQL, tables), _fingerprint_batches, _FINGERPRINTS))
    return {row["doc_id"]: row["fingerprint"] for row in rows}


def _fingerprint_batches(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """``INPUTS_SQL``'s rows → (doc_id, fingerprint): the same values hash the same on either engine (each struct
    read by its fields' names, numbers as ints)."""
    import pandas as pd

    for batch in batches:
        rows = []
        for doc_id, language, chunks, people in zip(
            batch["doc_id"], batch["language"], batch["chunks"], batch["people"], strict=True
        ):
            value = [
                doc_id,
                language,
                [[int(c["start"]), c["chunk_id"]] for c in ([] if chunks is None else chunks)],
                [
                    [int(p["start"]), int(p["end"]), p["entity_id"], p["chunk_id"], p["sentence_id"]]
                    for p in ([] if people is None else people)
                ],
            ]
            digest = hashlib.sha256(json.dumps(value, separators=(",", ":")).encode("utf-8")).hexdigest()
            rows.append((doc_id, digest[:32]))
        yield pd.DataFrame(rows, columns=list(_FINGERPRINTS.names))


def documents_changed(ctx: RunContext, previous: Marker | None) -> tuple[list[str], list[str]] | None:
    """(resolved, removed) documents when a stage that reads only ``entities`` (``requires = ("entities",)``) may
    update the rows it wrote last time for those documents only, else None (redo everything).

    That is when the entities stage's last run resolved only some documents (document scope) on top of exactly the
    tables the stage's rows were made from: the entities marker names the output it extended
    (``details["documents"]["extends"]``), and the stage's previous marker (``previous``, its last complete run) the
    entities output it read.
    """
    marker = ctx.lakehouse.markers.read("entities")
    plan = marker.details.get("documents") if marker is not None else None
    if not plan or not plan.get("extends") or previous is None:
        return None
    if fingerprint({"entities": plan["extends"]}) != previous.input_fingerprint:
        return None
    return list(plan["resolved"]), list(plan["removed"])
