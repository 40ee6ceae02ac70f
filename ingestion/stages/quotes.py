"""Stage ``quotes``: every quotation of every document, its speaker and addressees as entities.

After ``entities``: each document's text (``documents.text``) goes through ``ingestion.quotes`` (detection, then
attribution) with the document's resolved person mentions (``mention_entities`` rows of entities labelled as people)
as the names. A speaker or an addressee is an entity when a resolved mention has exactly its offsets; a speaker the
text gives only as a pronoun or a description no name was found for ("said the old man", "I said") keeps its
``attribution`` with a null ``speaker_id``. Quotations in text that is not the story (front matter, contents, back
matter: ``NON_PROSE_UNIT_KINDS``) are left out, as they are of NER.

Each document is gathered into one row with its prose chunks and people (``outputs_sql``), then ``document_outputs``
runs on it (``relational.map_batches``) and gives its quotations and its references together — both resolutions of
its pronouns share one reading of the text — by one engine: in process (DuckDB, delta-rs) for a small corpus or
increment (``LakehouseTables.small_increment``), Spark for a bigger one. A document's quotations and references
depend on that document alone — its text, prose chunks and names of people — so a run makes again only the
documents whose inputs' fingerprint (``ingestion.stages.increments.input_fingerprints``) is not the one recorded
with their rows (the stage's state), or whose references are not all there; the others' rows stand (the entities
stage keeps the references when it rewrites the names). With nothing recorded, every document's. The markers skip
the stage when nothing upstream changed.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from graph.tables import CHUNKS, DOCUMENTS, ENTITIES, MENTION_ENTITIES, QUOTES, TableSpec
from ingestion.coref import Reading, Resolution
from ingestion.coref.speakers import speaker_links
from ingestion.quotes import Attribution, attribute, find_quotations
from ingestion.relational import Engine, beside, engine_for, map_batches, query
from ingestion.relations.sentences import PersonMention
from ingestion.stage import Stage, StageOutput
from ingestion.stages.increments import input_fingerprints
from ingestion.stages.references import (
    LANGUAGES,
    NAMES_SQL,
    PROSE_CHUNKS_SQL,
    delete_references,
    document_references,
    reference_counts,
)

if TYPE_CHECKING:
    import pandas as pd

    from ingestion.context import RunContext
    from ingestion.markers import Marker

logger = logging.getLogger(__name__)

__all__ = [
    "OUTPUTS",
    "QuotesStage",
    "document_outputs",
    "document_quotes",
    "output_rows",
    "outputs_sql",
    "quote_outputs",
]

#: What the stage's per-document Python gives (``document_outputs``): each document's ``quotes`` rows and its
#: ``mention_entities`` rows of pronouns and descriptions in one frame, ``output`` naming the table of each row;
#: never a table of the lakehouse.
OUTPUTS = TableSpec(
    "quote_outputs",
    (("output", "string"), *QUOTES.columns, *(c for c in MENTION_ENTITIES.columns if c[0] not in QUOTES.names)),
)


def document_quotes(
    doc_id: str, text: str, chunks: Iterable[tuple[int, str]], people: Iterable[tuple[int, int, str]]
) -> list[dict[str, Any]]:
    """The ``quotes`` rows of one document.

    ``chunks``: (start, chunk_id) of the document's prose chunks; ``people``: (start, end, entity_id) of its resolved
    person mentions, offsets into ``text``. A quotation is in the chunk where it starts; one starting outside every
    prose chunk is left out. A speaker given as "he"/"she" is the entity the pronoun is linked to
    (``ingestion.coref.pronoun_speakers``) when it is linked.
    """
    return _quotes(doc_id, text, chunks, people, None)[0]


def _attributions(text: str, names: list[tuple[int, int]]) -> list[Attribution]:
    """The quotations of ``text`` attributed among the person names at ``names`` (spans, in order)."""
    return attribute(text, find_quotations(text), names)


def _quotes(
    doc_id: str,
    text: str,
    chunks: Iterable[tuple[int, str]],
    people: Iterable[tuple[int, int, str]],
    reading: Reading | None,
    attributions: list[Attribution] | None = None,
) -> tuple[list[dict[str, Any]], Resolution | None]:
    """``document_quotes``, with the text's ``Reading`` of its people and its ``attributions`` (``_attributions``)
    when made already, and the resolution of its pronouns that named the speakers of "he said"
    (``ingestion.coref.speaker_links``)."""
    ordered = sorted(chunks)
    starts = [start for start, _ in ordered]
    entity_at = {(start, end): entity_id for start, end, entity_id in people}
    found_all = _attributions(text, sorted(entity_at)) if attributions is None else attributions
    by_pronoun, resolution = speaker_links(text, found_all, _person_mentions(entity_at), entity_at, reading)
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
    return rows, resolution


def _person_mentions(entity_at: dict[tuple[int, int], str]) -> list[PersonMention]:
    """The mentions of ``entity_at`` (span → entity) in text order."""
    return [PersonMention(start, end, entity_id) for (start, end), entity_id in sorted(entity_at.items())]


def document_outputs(
    doc_id: str,
    text: str,
    language: str | None,
    chunks: Iterable[tuple[int, str]],
    people: Iterable[tuple[int, int, str, str]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``quotes`` rows of one document (``document_quotes``) and, when it is English and names people, its
    pronoun and description rows over those quotations (``document_references``); ``people``: (start, end,
    entity_id, sentence_id) of its resolved person names.

    Its pronouns are resolved twice — once with the speakers the attribution found, to name the speaker of "he
    said"; once with the speakers so named, for the references. Both share one reading of the text
    (``ingestion.coref.Reading``: sexes, sentences, the events in order), and the second resolves again only the
    pronouns the changed speakers can reach (``ingestion.coref.resolve``'s ``after``). The reading and the
    quotations' attribution do not wait for each other: the attribution runs ``beside`` it (in a process of the
    run's pool when the document is alone in its batch)."""
    chunks, names = list(chunks), sorted(people)
    named = [(start, end, entity_id) for start, end, entity_id, _ in names]
    english = language in LANGUAGES and bool(names)
    attributions = beside(_attributions, text, sorted({(start, end) for start, end, _ in named}))
    reading = Reading(text, _person_mentions({(s, e): entity for s, e, entity in named})) if english else None
    quotes, resolution = _quotes(doc_id, text, chunks, named, reading, attributions.result())
    if not english:
        return quotes, []
    spoken = [(quote["start"], quote["end"], quote["speaker_id"], quote["addressee_ids"]) for quote in quotes]
    return quotes, document_references(doc_id, text, chunks, names, spoken, reading, resolution)


def outputs_sql() -> str:
    """The query of one row per document (table ``documents``: doc_id, text, language) that has prose chunks: its
    ``chunks`` (``PROSE_CHUNKS_SQL``) and its ``people`` (``NAMES_SQL``: null when none)."""
    return f"""SELECT d.doc_id, d.text, d.language, c.chunks, p.people
FROM documents AS d JOIN ({PROSE_CHUNKS_SQL}) AS c ON d.doc_id = c.doc_id
LEFT JOIN ({NAMES_SQL}) AS p ON d.doc_id = p.doc_id"""


def quote_outputs(documents: Any, chunks: Any, mention_entities: Any, entities: Any) -> Any:
    """The rows of ``OUTPUTS`` of ``documents`` (doc_id, text, language) by the engine of the tables (Arrow rows: in
    process; DataFrames: Spark): each document gathered by ``outputs_sql`` from ``chunks`` (doc_id, chunk_id, start,
    unit_kind), ``mention_entities`` (doc_id, entity_id, start, end, sentence_id, kind) and ``entities`` (entity_id,
    label), then ``document_outputs``. Read twice (``output_rows``): cache them."""
    tables = {"documents": documents, "chunks": chunks, "mention_entities": mention_entities, "entities": entities}
    return map_batches(query(outputs_sql(), tables), _output_batches, OUTPUTS)


def output_rows(outputs: Any, spec: TableSpec) -> Any:
    """The rows of ``quote_outputs`` for the table ``spec`` (``QUOTES`` or ``MENTION_ENTITIES``), its columns."""
    names = ", ".join(f'"{name}"' for name in spec.names)
    return query(f"SELECT {names} FROM outputs WHERE output = '{spec.name}'", {"outputs": outputs})


def _output_batches(batches: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """``document_outputs`` over each document of each batch."""
    import pandas as pd

    empty = dict.fromkeys(OUTPUTS.names)
    for batch in batches:
        rows: list[dict[str, Any]] = []
        for doc_id, text, language, chunks, people in zip(
            batch["doc_id"], batch["text"], batch["language"], batch["chunks"], batch["people"], strict=True
        ):
            quotes, references = document_outputs(
                doc_id, text, language, [(c["start"], c["chunk_id"]) for c in chunks],
                [(p["start"], p["end"], p["entity_id"], p["sentence_id"]) for p in ([] if people is None else people)],
            )
            rows.extend({**empty, **row, "output": QUOTES.name} for row in quotes)
            rows.extend({**empty, **row, "output": MENTION_ENTITIES.name} for row in references)
        yield pd.DataFrame(rows, columns=list(OUTPUTS.names))


class QuotesStage(Stage):
    """Writes ``quotes``, and the pronoun and description rows of ``mention_entities`` (``ingestion.stages.references``:
    they need the quotations' speakers)."""

    name = "quotes"
    version = 6
    tables = (QUOTES.name,)
    # entities' output stands for its inputs too (chunks, and so documents): as for the cooccurrences stage
    requires = ("entities",)

    def _done(self, ctx: RunContext, config_fp: str, input_fp: str) -> Marker | None:
        """Done as any stage is, and after the entities stage's last run: every run of that stage rewrites
        ``mention_entities``, so the rows this stage added there are checked again (``compute``) even when the
        names came out the same (a forced ``--stages entities``)."""
        previous = super()._done(ctx, config_fp, input_fp)
        entities = ctx.lakehouse.markers.read("entities")
        if previous is None or entities is None or previous.details.get("entities_run") == entities.run_id:
            return previous
        return None

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """The quotations and references of the documents whose inputs changed since these rows were made — their
        fingerprints (``input_fingerprints``) differ from those recorded with the rows, or their references are not
        all there — the rows of the others kept; every document's when nothing was recorded."""
        lake = ctx.lakehouse
        # the engine of the reads of every document's inputs (no text) and references
        every = engine_for(lake, lake.small_increment(sorted(lake.doc_ids(DOCUMENTS.name))))
        current = input_fingerprints(every, None)
        recorded = self._recorded(ctx) if incremental else {}
        kept = self._unchanged(every, current, recorded)
        todo = sorted(set(current) - kept)
        if not kept:
            delete_references(lake, None)
            engine = self._write(ctx, todo, everything=True)
        else:
            stale = sorted({*todo, *(set(recorded) - set(current))})
            lake.delete_where(QUOTES.name, "doc_id", stale)
            delete_references(lake, stale)
            engine = self._write(ctx, todo, everything=False)
            logger.info("quotes: quotations of %d documents found again, of %d kept", len(todo), len(kept))
        references = reference_counts(every)
        lake.markers.write_state(
            self.name,
            run_id=ctx.run_id,
            state={
                "documents": {
                    doc_id: [inputs, references.get(doc_id, 0)] for doc_id, inputs in sorted(current.items())
                },
            },
        )
        counts = {
            "quotes": lake.count(QUOTES.name),
            "references": sum(references.values()),
            "documents_read": len(todo),
            "documents_kept": len(kept),
        }
        entities = lake.markers.read("entities")
        details = {"engine": engine, "entities_run": entities.run_id if entities else None}
        return StageOutput(counts=counts, output_fingerprint=self.derived_fingerprint(ctx), details=details)

    def _recorded(self, ctx: RunContext) -> dict[str, list[Any]]:
        """doc_id → [input fingerprint, references] of the documents as the last complete run left them (its state);
        empty when there is none to trust."""
        state = ctx.lakehouse.markers.read_state(self.name, self.previous) or {}
        recorded = state.get("documents")
        return recorded if isinstance(recorded, dict) else {}

    @staticmethod
    def _unchanged(every: Engine, current: dict[str, str], recorded: dict[str, list[Any]]) -> set[str]:
        """The documents whose rows stand: their inputs' fingerprint as recorded and their references all there —
        an entities run in corpus scope keeps them (``EntitiesStage._write``), one in document scope deletes those
        of the documents it resolves again."""
        if not recorded:
            return set()
        present = reference_counts(every)
        return {
            doc_id
            for doc_id, (inputs, references) in recorded.items()
            if current.get(doc_id) == inputs and present.get(doc_id, 0) == references
        }

    def _write(self, ctx: RunContext, documents: list[str], *, everything: bool) -> str:
        """Write the quotations of ``documents`` (all of them, replacing the table, when ``everything``), then their
        references, by one engine: in process when they are few (``LakehouseTables.small_increment``), else Spark;
        returns which."""
        lake = ctx.lakehouse
        engine = engine_for(lake, lake.small_increment(documents))
        scope = None if everything else documents
        inputs = (
            engine.read(DOCUMENTS.name, ["doc_id", "text", "language"], scope),
            engine.read(CHUNKS.name, ["doc_id", "chunk_id", "start", "unit_kind"], scope),
            engine.read(MENTION_ENTITIES.name, ["doc_id", "entity_id", "start", "end", "sentence_id", "kind"], scope),
            engine.read(ENTITIES.name, ["entity_id", "label"], None),
        )
        outputs = engine.cache(quote_outputs(*inputs))
        engine.write(output_rows(outputs, QUOTES), QUOTES.name, overwrite=everything)
        engine.write(output_rows(outputs, MENTION_ENTITIES), MENTION_ENTITIES.name)
        engine.release(outputs)
        return engine.name
