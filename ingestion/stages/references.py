"""The ``mention_entities`` rows of pronouns and descriptions of people (``kind`` pronoun / nominal), made by the quotes
stage after its quotations: "he", "her", "I" inside a quotation, "the count" linked to an entity through
``ingestion.coref`` over each document's text, its resolved person names and its quotations with their speakers.

The quotes stage makes them with its quotations, document by document (``ingestion.stages.quotes.document_outputs``
calls ``document_references``). This module also holds the queries of each document's prose chunks and names of
people that pass reads, and the deletion and count of these rows that make a rerun give the same rows. A row's
``mention_id`` is ``<doc_id>:r<start>``; its ``sentence_id`` is the one of a name in the same sentence when there is
one (so the sentence window of co-occurrences meets them), else ``<chunk_id>:t<start of the sentence>``. English
documents only: the pronoun words are English.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from graph.tables import MENTION_ENTITIES, NON_PROSE_UNIT_KINDS
from ingestion.coref import Reading, Resolution, Speech, resolve
from ingestion.names import PERSON_LABELS
from ingestion.relational import query_rows
from ingestion.relations.sentences import PersonMention, sentence_spans

if TYPE_CHECKING:
    from ingestion.lakehouse import LakehouseTables
    from ingestion.relational import Engine

logger = logging.getLogger(__name__)

__all__ = [
    "LANGUAGES",
    "NAMES_SQL",
    "PEOPLE_SQL",
    "PROSE_CHUNKS_SQL",
    "REFERENCE_KINDS",
    "delete_references",
    "document_references",
    "reference_counts",
]

# The kinds of rows this module writes (``graph.tables.MENTION_KINDS`` less the entities stage's names).
REFERENCE_KINDS = ("pronoun", "nominal")
LANGUAGES = ("en",)


def document_references(
    doc_id: str,
    text: str,
    chunks: Iterable[tuple[int, str]],
    people: Iterable[tuple[int, int, str, str]],
    quotes: Iterable[tuple[int, int, str | None, Sequence[str]]],
    reading: Reading | None = None,
    after: Resolution | None = None,
) -> list[dict[str, Any]]:
    """The pronoun and description rows of one document.

    ``chunks``: (start, chunk_id) of its prose chunks; ``people``: (start, end, entity_id, sentence_id) of its
    resolved person names; ``quotes``: (start, end, speaker_id, addressee_ids) of its quotations; ``reading``: the
    text's ``ingestion.coref.Reading`` of these names when made already; ``after``: a resolution of that reading with
    other speakers (``ingestion.coref.resolve``). A reference before every prose chunk is left out.
    """
    ordered = sorted(chunks)
    starts = [start for start, _ in ordered]
    names = sorted(people)
    speeches = [Speech(s, e, speaker, tuple(addressees or ())) for s, e, speaker, addressees in quotes]
    mentions = [PersonMention(s, e, entity) for s, e, entity, _ in names]
    found = resolve(text, mentions, speeches, reading=reading, after=after).references
    known = reading is not None and reading.text == text
    sentences = (reading.sentence_starts if reading is not None and known else _sentence_starts(text)) or [0]
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


def _sentence_starts(text: str) -> list[int]:
    return [start for start, _ in sentence_spans(text)]


def _prose_chunks_sql() -> str:
    kinds = ", ".join(f"'{kind}'" for kind in sorted(NON_PROSE_UNIT_KINDS))
    return f"""SELECT doc_id, list_sort(list({{'start': start, 'chunk_id': chunk_id}})) AS chunks
  FROM chunks WHERE unit_kind IS NULL OR unit_kind NOT IN ({kinds})
  GROUP BY doc_id"""


# Each document's prose chunks (table ``chunks``), sorted; a chunk of no kind is prose.
PROSE_CHUNKS_SQL = _prose_chunks_sql()
# The condition on a ``mention_entities`` row of an entity labelled as a person (table ``entities``).
PEOPLE_SQL = "entity_id IN (SELECT entity_id FROM entities WHERE label IN ({}))".format(
    ", ".join(f"'{label}'" for label in sorted(PERSON_LABELS))
)


# Each document's names of people (table ``mention_entities``, kind ``name``; ``PEOPLE_SQL``) with their sentences,
# sorted.
NAMES_SQL = f"""SELECT doc_id,
         list_sort(list({{'start': start, 'end': "end", 'entity_id': entity_id, 'sentence_id': sentence_id}})) AS people
  FROM mention_entities WHERE kind = 'name' AND {PEOPLE_SQL}
  GROUP BY doc_id"""


def delete_references(lake: LakehouseTables, doc_ids: list[str] | None) -> None:
    """Delete the pronoun and description rows of ``mention_entities`` (of ``doc_ids``, or all with None), in one
    Delta commit: what makes the quotes stage's rerun after a crash give the same rows, not twice as many."""
    where: dict[str, Sequence[str]] = {"kind": REFERENCE_KINDS}
    if doc_ids is not None:
        where["doc_id"] = doc_ids
    lake.delete_in(MENTION_ENTITIES.name, where)


def reference_counts(engine: Engine) -> dict[str, int]:
    """doc_id → how many pronoun and description rows ``mention_entities`` holds of the document (none: absent)."""
    kinds = ", ".join(f"'{kind}'" for kind in REFERENCE_KINDS)
    rows = query_rows(
        f"SELECT doc_id, count(*) AS n FROM mention_entities WHERE kind IN ({kinds}) GROUP BY doc_id",
        {"mention_entities": engine.read(MENTION_ENTITIES.name, ["doc_id", "kind"], None)},
    )
    return {row["doc_id"]: int(row["n"]) for row in rows}
