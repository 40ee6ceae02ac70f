"""Stage 5, ``entities``: canonical entities from the mentions, and each mention's entity.

The mentions are aggregated into distinct (surface text, label) forms with counts — a few thousand rows even for a
long novel — and the driver resolves them (``ingestion.resolution``: the domain's alias table first, then
normalisation and alias merging). The resolved mapping is joined back onto the mentions. Entity ids hash the
canonical key, so a rerun or an unrelated new document leaves existing ids as they are; and an entity whose canonical
name a new document changes keeps the id it had in the previous table (``ingestion.entity_ids``). In corpus scope
always recomputed whole: a new mention can change how names merge. In document scope (``ingestion.entity_scope``) a
document's entities depend on it alone — its forms, and the casing evidence of its own text (sentence openers,
article usage, words written in lowercase) — so an incremental run resolves only the documents that are new and
deletes the removed ones' rows, and records which in its marker for the cooccurrences stage. The rows the quotes stage
adds to ``mention_entities`` (pronouns, descriptions) are kept when the names are rewritten: that stage finds the
documents whose names changed and replaces theirs.

The joins and tallies are SQL (``keyed_mentions``, ``written_aliases``, ``attach_sql``, ``prose_sql``,
``entity_table_sql``; the surface forms' ``ingestion.evidence.form_tally_sql`` and the casing pass's
``ingestion.casing.casing_sql``), run by the engine ``compute`` picks once (``ingestion.relational``): a few documents
(``LakehouseTables.small_increment``: a novel, or an increment's new ones) in process by DuckDB over Arrow rows, both
tables committed with delta-rs, no Spark job; more by Spark SQL.

With ``ner.gold_list`` set, the stage scores the ``entities`` table it wrote against that gold list (pairwise
precision/recall, ``ingestion.resolution_eval``), logs one line and reports the score as ``details["gold"]`` of its
marker and of the run's stage report. The gold list is part of the stage's *config* fingerprint, so changing it
reruns this (cheap) stage and the report is never stale; it is not part of the *output* fingerprint, because it
changes no table: the stages downstream stay up to date.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from graph.tables import ENTITIES, MENTION_ENTITIES, NON_PROSE_UNIT_KINDS
from ingestion.carrying import Carrier, carriable_aliases, one_word_aliases, sentence_of
from ingestion.casing import Casing, casing_evidence
from ingestion.entity_ids import carry_over_ids
from ingestion.evidence import CorpusEvidence, code_key, form_tallies
from ingestion.markers import fingerprint
from ingestion.relational import Engine, columns, engine_for, map_batches, query, query_rows
from ingestion.resolution import (
    AliasTable,
    ResolvedEntity,
    SurfaceForm,
    article_candidates,
    check_rules,
    opener_candidates,
    resolve_entities,
)
from ingestion.resolution_eval import score_details
from ingestion.schema import conform
from ingestion.stage import Stage, StageOutput
from ingestion.stages.references import REFERENCE_KINDS

if TYPE_CHECKING:
    from ingestion.context import RunContext
    from ingestion.lakehouse import LakehouseTables

logger = logging.getLogger(__name__)


INFLECTED_SQL = """SELECT DISTINCT doc_id, text, ent_id, label FROM mentions
WHERE coalesce(ent_id, '') <> '' AND ent_id <> text"""


def keyed_mentions(mentions: Any) -> Any:
    """Mentions (Arrow rows, or a DataFrame) with ``text`` replaced by their ``ent_id`` where they have one: the
    EntityRuler pattern's canonical name, or the base form the NER pipeline gave an inflected name ("Dobónak" →
    "Dobó"), so entities are keyed and named by the nominative; the text as written is kept in ``written``. Offsets
    are untouched."""
    kept = ", ".join(f'"{name}"' for name in columns(mentions) if name != "text")
    keyed = "CASE WHEN coalesce(ent_id, '') <> '' THEN ent_id ELSE text END AS text"
    return query(f"SELECT {kept}, {keyed}, text AS written FROM mentions", {"mentions": mentions})


def written_aliases(
    mentions: Any, mapping: dict[tuple[str, str, str], str], by_document: bool = False
) -> dict[str, list[str]]:
    """entity id → the texts as written ("Dobónak") of mentions (as written, not keyed) keyed by another form, so
    aliases keep them.

    ``mapping``: (scope, keyed text, label) → entity id, the scope being the document id when ``by_document``.
    """
    rows = query_rows(INFLECTED_SQL, {"mentions": mentions})
    return _inflected(((r["doc_id"], r["text"], r["ent_id"], r["label"]) for r in rows), mapping, by_document)


def _inflected(
    rows: Iterable[tuple[str, str, str, str]], mapping: dict[tuple[str, str, str], str], by_document: bool
) -> dict[str, list[str]]:
    """entity id → the sorted texts as written of the (doc_id, text, ent_id, label) mentions keyed by ``ent_id``."""
    out: dict[str, set[str]] = {}
    for doc_id, text, ent_id, label in rows:
        entity_id = mapping.get((doc_id if by_document else "", ent_id, label))
        if entity_id is not None:
            out.setdefault(entity_id, set()).add(text)
    return {entity_id: sorted(texts) for entity_id, texts in out.items()}


def _with(aliases: list[str], more: Iterable[str]) -> list[str]:
    seen = set(aliases)
    return aliases + [text for text in more if text not in seen]


def surface_forms(mentions: Any, chunks: Any = None) -> list[SurfaceForm]:
    """Distinct (text, label) forms with their mention counts and first offsets, collected to the driver.

    With ``chunks``, also the "he" and "she" pronouns in the ``PRONOUN_WINDOW`` characters after each mention (up to
    its sentence's end, ``PRONOUN_CLAUSE``),
    summed per form: the resolver's evidence of a name's sex where no title gives it (``ingestion.names``); the
    units (chapters) its mentions stand in, with their counts (``resolution.NEAR``); and how many of its mentions
    stand where a place does or beside a speech verb (``names.said_somewhere``) or in an oath (``names.invoked``).
    """
    return surface_forms_by(mentions, chunks, by_document=False)[""]


COUNTED_SQL = """SELECT {scope} AS scope, text, label, count(*) AS n, min(start) AS first FROM mentions
GROUP BY {scope}, text, label"""


def surface_forms_by(mentions: Any, chunks: Any = None, *, by_document: bool) -> dict[str, list[SurfaceForm]]:
    """``surface_forms`` per resolution scope: per document id when ``by_document``, else all under ``""``; the keyed
    mentions and chunks as Arrow rows or DataFrames (``evidence.form_tallies``)."""
    out: dict[str, list[SurfaceForm]] = {} if by_document else {"": []}
    if chunks is not None:
        out.update((scope, tally.surface_forms())
                   for scope, tally in form_tallies(mentions, chunks, by_document=by_document).items())
        return out
    sql = COUNTED_SQL.format(scope="doc_id" if by_document else "''")
    for r in query_rows(sql, {"mentions": mentions}):
        out.setdefault(r["scope"], []).append(
            SurfaceForm(text=r["text"], label=r["label"], count=int(r["n"]), first_pos=int(r["first"]))
        )
    return out


def carry_batches(
    batches: Iterable[pd.DataFrame], *, aliases: dict[str, dict[str, str]], by_document: bool
) -> Iterator[pd.DataFrame]:
    """``mapInPandas`` transform: chunks with their NER spans → the carried mentions (``ingestion.carrying``).

    ``aliases``: per resolution scope (the document id, or ``""`` for the corpus), the carriable aliases. Input
    rows: doc_id, chunk_id, start, text, spans (each NER mention's [start, end, sentence index], document offsets).
    """
    carriers: dict[str, Carrier] = {}
    for batch in batches:
        rows = []
        for doc_id, chunk_id, chunk_start, text, spans in zip(
            batch["doc_id"], batch["chunk_id"], batch["start"], batch["text"], batch["spans"], strict=True
        ):
            scope = doc_id if by_document else ""
            if scope not in carriers:
                carriers[scope] = Carrier(aliases.get(scope, {}))
            ner = () if spans is None else spans  # a chunk without NER mentions has none (the left join's null)
            local = [(int(m[0]) - chunk_start, int(m[1]) - chunk_start, int(m[2])) for m in ner]
            for found in carriers[scope].find(text, [(s, e) for s, e, _ in local]):
                sentence = sentence_of(text, found.start, found.end, local)
                rows.append((
                    found.entity_id, f"{chunk_id}:p{found.start}", doc_id, chunk_id,
                    f"{chunk_id}:s{sentence}" if sentence is not None else f"{chunk_id}:p{found.start}",
                    chunk_start + found.start, chunk_start + found.end, found.text, "name",
                ))
        yield pd.DataFrame(rows, columns=list(MENTION_ENTITIES.names))


def carried_mentions(chunks: Any, mentions: Any, aliases: dict[str, dict[str, str]], by_document: bool) -> Any:
    """``mention_entities`` rows of the carried mentions: every prose chunk with its NER spans (``prose_sql``) scanned
    once by ``carry_batches`` — in process, or in Spark's Python workers."""
    prose = query(prose_sql(), {"chunks": chunks, "mentions": mentions})
    transform = functools.partial(carry_batches, aliases=aliases, by_document=by_document)
    return map_batches(prose, transform, MENTION_ENTITIES)


def prose_sql() -> str:
    """The query of the prose chunks (doc_id, chunk_id, start, text) of the table ``chunks`` with the [start, end,
    sentence index] of their NER mentions (table ``mentions``) as ``spans``, sorted; null for a chunk without one. A
    chunk of no kind is left out with the non-prose ones."""
    kinds = ", ".join(f"'{kind}'" for kind in sorted(NON_PROSE_UNIT_KINDS))
    return f"""SELECT c.doc_id, c.chunk_id, c.start, c.text, s.spans
FROM chunks AS c LEFT JOIN (
  SELECT chunk_id, list_sort(list([start, "end", CAST(sentence_index AS BIGINT)])) AS spans
  FROM mentions GROUP BY chunk_id
) AS s ON c.chunk_id = s.chunk_id
WHERE c.unit_kind NOT IN ({kinds})"""


def attach_sql(by_document: bool) -> str:
    """The query of ``mention_entities``' rows: every keyed mention (table ``keyed``, ``keyed_mentions``) whose form
    is in the table ``forms`` (text, label, entity_id; and doc_id when ``by_document``), with its entity and its
    text as written."""
    same_document = " AND m.doc_id = f.doc_id" if by_document else ""
    return f"""SELECT f.entity_id, m.mention_id, m.doc_id, m.chunk_id, m.sentence_id, m.start, m."end",
       m.written AS text, 'name' AS kind
FROM keyed AS m JOIN forms AS f ON m.text = f.text AND m.label = f.label{same_document}"""


def attach_entities(keyed: Any, mapping: dict[tuple[str, str, str], str], by_document: bool) -> Any:
    """``mention_entities``: every keyed mention whose form was resolved, with its entity (``attach_sql``);
    ``mapping``: (scope, keyed text, label) → entity id, the scope being the document id when ``by_document``."""
    forms = _mapping_table(mapping, by_document)
    return conform(query(attach_sql(by_document), {"keyed": keyed, "forms": forms}), MENTION_ENTITIES)


# A mention's place, in order: (document, chunk index, chunk, unit), a null before any value.
_PLACE = ("doc_id", "chunk_index", "chunk_id", "unit_id")


def entity_table_sql(min_mentions: int) -> str:
    """The query of the ``entities`` rows: each entity of the table ``entities`` with its mentions (table
    ``mention_entities``) in the table ``chunks`` — their count, documents, and the chunk and unit of the first and
    the last — if it has at least ``min_mentions``. A mention of no chunk given counts for nobody."""
    first = ", ".join(f"{column} NULLS FIRST" for column in _PLACE)
    last = ", ".join(f"{column} DESC NULLS LAST" for column in _PLACE)
    ends = ",\n         ".join(
        f"max(CASE WHEN {rank} = 1 THEN {column}_id END) AS {end}_{column}_id"
        for column in ("chunk", "unit") for end, rank in (("first", "up"), ("last", "down"))
    )
    return f"""WITH located AS (
  SELECT m.entity_id, m.doc_id, c.chunk_index, c.chunk_id, c.unit_id
  FROM mention_entities AS m JOIN chunks AS c ON m.chunk_id = c.chunk_id
), ranked AS (
  SELECT *, row_number() OVER (PARTITION BY entity_id ORDER BY {first}) AS up,
         row_number() OVER (PARTITION BY entity_id ORDER BY {last}) AS down
  FROM located
), stats AS (
  SELECT entity_id, count(*) AS mention_count, count(DISTINCT doc_id) AS doc_count,
         {ends}
  FROM ranked GROUP BY entity_id
)
SELECT e.*, s.mention_count, s.doc_count, s.first_chunk_id, s.last_chunk_id, s.first_unit_id, s.last_unit_id
FROM entities AS e JOIN stats AS s ON e.entity_id = s.entity_id
WHERE s.mention_count >= {int(min_mentions)}"""


def entity_table(entities: Any, mention_entities: Any, chunks: Any, min_mentions: int) -> Any:
    """``entities`` (entity_id, canonical_name, label, aliases) with counts and first/last appearance
    (``entity_table_sql``), keeping those with at least ``min_mentions`` mentions."""
    tables = {"entities": entities, "mention_entities": mention_entities, "chunks": chunks}
    return conform(query(entity_table_sql(min_mentions), tables), ENTITIES)


UNION_SQL = "SELECT * FROM attached UNION ALL SELECT * FROM carried"
REFERENCES_KEPT_SQL = "SELECT * FROM names UNION ALL SELECT * FROM kept_references"
_REFERENCE_KINDS = ", ".join(f"'{kind}'" for kind in REFERENCE_KINDS)
KEPT_SQL = "SELECT * FROM mention_entities WHERE entity_id IN (SELECT entity_id FROM entities)"
MENTION_COLUMNS = ["mention_id", "doc_id", "chunk_id", "sentence_index", "sentence_id", "start", "end", "text", "label",
                   "ent_id"]
CHUNK_COLUMNS = ["chunk_id", "doc_id", "chunk_index", "unit_id", "unit_kind", "start", "text"]


def _references(lake: LakehouseTables, engine: Engine) -> Any:
    """The quotes stage's rows of ``mention_entities`` (pronouns, descriptions) as the table holds them, cached by
    the engine (the table is about to be overwritten); None when there is no such table or it has no kinds yet."""
    if not lake.exists(MENTION_ENTITIES.name) or "kind" not in lake.snapshot(MENTION_ENTITIES.name).schema.names:
        return None
    rows = engine.read(MENTION_ENTITIES.name, list(MENTION_ENTITIES.names), None)
    return engine.cache(query(f"SELECT * FROM rows WHERE kind IN ({_REFERENCE_KINDS})", {"rows": rows}))


def _mapping_table(mapping: dict[tuple[str, str, str], str], by_document: bool) -> pa.Table:
    """The resolved forms as Arrow: (doc_id,) text, label, entity_id — what ``attach_entities`` joins."""
    columns = {
        "doc_id": pa.array([scope for scope, _, _ in mapping], pa.string()),
        "text": pa.array([text for _, text, _ in mapping], pa.string()),
        "label": pa.array([label for _, _, label in mapping], pa.string()),
        "entity_id": pa.array(list(mapping.values()), pa.string()),
    }
    if not by_document:
        del columns["doc_id"]
    return pa.table(columns)


def _entities_rows(resolved: list[ResolvedEntity], inflected: dict[str, list[str]]) -> pa.Table:
    """The resolved entities as Arrow, their aliases with the inflected texts as written."""
    return pa.table({
        "entity_id": pa.array([e.entity_id for e in resolved], pa.string()),
        "canonical_name": pa.array([e.canonical_name for e in resolved], pa.string()),
        "label": pa.array([e.label for e in resolved], pa.string()),
        "aliases": pa.array(
            [_with(list(e.aliases), inflected.get(e.entity_id, ())) for e in resolved], pa.list_(pa.string())
        ),
    })


@dataclass(frozen=True)
class _Steps:
    """The transforms of the resolution (``EntitiesStage._resolve``), over Arrow rows or DataFrames alike: the
    stage's own (``STEPS``), or in process in corpus scope the kept corpus evidence's answers (``CorpusEvidence``)."""

    keyed: Callable[[Any], Any]
    surface_forms: Callable[..., dict[str, list[SurfaceForm]]]
    casing: Callable[..., Casing]
    written_aliases: Callable[[Any, dict[tuple[str, str, str], str], bool], dict[str, list[str]]]


STEPS = _Steps(keyed_mentions, surface_forms_by, casing_evidence, written_aliases)


@dataclass(frozen=True)
class ResolutionEvidence:
    """What the resolver is given, per scope: the keyed mentions (in the engine's form), the surface forms, the
    casing evidence and the sentence openers it gives."""

    mentions: Any
    scoped_forms: dict[str, list[SurfaceForm]]
    casing: Casing
    openers: dict[str, set[str]]

    def for_scope(self, scope: str) -> dict[str, Any]:
        """The resolver's evidence arguments for one scope (``resolve_entities``' ``sentence_openers`` and
        ``article_usage``)."""
        return {"sentence_openers": self.openers.get(scope, set()), "article_usage": self.casing.usage.get(scope, {})}


def resolution_evidence(steps: _Steps, written: Any, chunks: Any, language: str, *,
                        by_document: bool) -> ResolutionEvidence:
    """The surface forms of the written mentions and the corpus's casing evidence about them, by either engine's
    ``steps``: what the entities stage resolves, and what ``ingestion.explain`` resolves again."""
    mentions = steps.keyed(written)
    scoped_forms = steps.surface_forms(mentions, chunks, by_document=by_document)
    forms = [form for group in scoped_forms.values() for form in group]
    starters = opener_candidates(forms, language)
    # The carrying's question (which one-word names are also words, ``_carriable``) is asked here too, of every
    # one-word form: its names are among them, and one scan answers all three questions.
    casing = steps.casing(
        chunks, lowercase=starters | {f.text for f in forms if " " not in f.text}, capitalised=starters,
        articled=article_candidates(forms, language), by_document=by_document,
    )
    return ResolutionEvidence(mentions, scoped_forms, casing, casing.sentence_openers(starters))


@dataclass(frozen=True)
class _Resolution:
    """What ``EntitiesStage._resolve`` found: the keyed mentions (in the engine's form), the surface forms and casing
    evidence per scope, the entities (all, and per scope), (scope, text, label) → entity id, and per entity the
    inflected texts as written."""

    mentions: Any
    scoped_forms: dict[str, list[SurfaceForm]]
    casing: Casing
    openers: dict[str, set[str]]
    entities: list[ResolvedEntity]
    by_scope: dict[str, list[ResolvedEntity]]
    mapping: dict[tuple[str, str, str], str]
    inflected: dict[str, list[str]]

    @property
    def n_forms(self) -> int:
        """How many surface forms were resolved."""
        return sum(len(group) for group in self.scoped_forms.values())


class EntitiesStage(Stage):
    """Resolves mentions into entities; writes ``entities`` and ``mention_entities``."""

    name = "entities"
    # A new version redoes the stage; what each version changed: docs/decisions/0002-stage-versions.md
    version = 22
    tables = (ENTITIES.name, MENTION_ENTITIES.name)
    requires = ("mentions", "chunks")

    def config(self, ctx: RunContext) -> dict[str, Any]:
        """The alias table, the language and the minimum mention count; and the gold list, when one is configured."""
        config = self._table_config(ctx)
        if ctx.domain.gold is not None:
            # Only the report depends on it: a new gold list reruns this stage so the score is current.
            config["gold"] = {
                "path": ctx.domain.gold_path,
                "entities": [[e.canonical_name, e.label, list(e.aliases)] for e in ctx.domain.gold],
            }
        return config

    def _table_config(self, ctx: RunContext) -> dict[str, Any]:
        """The settings the tables depend on (the output fingerprint's part of the config)."""
        config = {
            "language": ctx.domain.language,
            "aliases": ctx.domain.alias_table,
            "min_mentions": ctx.settings.ingestion.min_entity_mentions,
        }
        if self.scope(ctx) == "document":  # absent for "corpus", the one scope there was before the setting
            config["entity_scope"] = "document"
        disabled = sorted(check_rules(ctx.settings.ingestion.disabled_resolution_rules))
        if disabled:  # absent when every rule is on, as before the setting
            config["disabled_rules"] = disabled
        return config

    @staticmethod
    def scope(ctx: RunContext) -> str:
        """``ingestion.entity_scope``, else the domain's default."""
        return ctx.settings.ingestion.entity_scope or ctx.domain.entity_scope

    def output_fingerprint(self, ctx: RunContext) -> str:
        """Inputs and the table settings, without the gold list: a new gold list does not redo later stages."""
        return fingerprint([self.input_fingerprint(ctx), self.versioned_fingerprint(self._table_config(ctx))])

    def compute(self, ctx: RunContext, incremental: bool) -> StageOutput:
        """Resolve in the driver, join back by the engine picked here, write both tables.

        Corpus scope: always everything, overwritten — a new mention anywhere can change how names merge. Document
        scope, incremental: only the documents that are new since the tables were written are resolved, and the
        removed ones are deleted (``_documents_to_redo``); a document's entities depend on that document alone.
        A few documents (``LakehouseTables.small_increment``: a novel, or the new ones of an incremental run) are
        read, joined and committed in process (DuckDB, delta-rs; a novel: ~1-3 s against ~11-14 s of Spark jobs),
        anything bigger by Spark: the same queries, the same tables.
        """
        lake = ctx.lakehouse
        by_document = self.scope(ctx) == "document"
        todo: list[str] | None = None  # None: every document
        removed: list[str] = []
        if by_document and incremental:
            todo, removed = self._documents_to_redo(ctx)
            if not todo:  # documents removed (or none): their rows go, nothing is resolved, no Spark job
                self._forget_entities(ctx, [], removed)
                lake.delete_docs(MENTION_ENTITIES.name, removed)
                return self._output(ctx, [], removed, carried=0, forms=0)
        scope_docs = todo if todo is not None else sorted(lake.doc_ids("mentions"))
        engine = engine_for(lake, lake.small_increment(scope_docs))
        # in process the documents with mentions, which the corpus evidence kept between runs is the sum of
        documents = scope_docs if engine.in_process else todo
        written = engine.read("mentions", MENTION_COLUMNS, documents)
        chunks = engine.read("chunks", CHUNK_COLUMNS, documents)
        steps, evidence, evidence_kept, key = STEPS, None, 0, None
        if engine.in_process and not by_document:
            # the corpus's forms and casing facts: those of the last run's documents kept, the new ones' added
            key = self._evidence_key(ctx)
            evidence, evidence_kept = self._corpus_evidence(ctx, key, written, chunks, scope_docs)
            steps = dataclasses.replace(steps, surface_forms=evidence.surface_forms, casing=evidence.casing_evidence)
        r = self._resolve(ctx, steps, written, chunks, todo)
        # Cached: the entities' statistics and the mention_entities write both read it, and each would otherwise
        # redo the read of mentions and its join to the forms.
        attached = engine.cache(attach_entities(r.mentions, r.mapping, by_document))
        carriable = self._carriable(ctx, r, steps, chunks)
        carried = engine.cache(carried_mentions(chunks, written, carriable, by_document)) if carriable else None
        mentions = attached if carried is None else query(UNION_SQL, {"attached": attached, "carried": carried})
        # Cached: its ids are the entities kept, which the mention_entities below are filtered by (reading the
        # table just written back would be one more scan and Delta snapshot)
        min_mentions = ctx.settings.ingestion.min_entity_mentions
        table = engine.cache(entity_table(_entities_rows(r.entities, r.inflected), mentions, chunks, min_mentions))
        kept = conform(query(KEPT_SQL, {"mention_entities": mentions, "entities": table}), MENTION_ENTITIES)
        references = self._write(ctx, engine, table, kept, todo, removed, [e.entity_id for e in r.entities])
        n_carried = engine.count(carried) if carried is not None else 0  # from the cache the writes filled
        engine.release(attached, carried, table)
        output = self._output(ctx, todo, removed, carried=n_carried, forms=r.n_forms, references=references)
        if evidence is not None and key is not None:
            # before the marker, so trusted only with it (``read_state``); a crash here costs the next run a recount
            lake.markers.write_state(self.name, run_id=ctx.run_id, state={"key": key, "evidence": evidence.to_json()})
            output.details["evidence"] = {
                "documents_kept": evidence_kept, "documents_counted": len(evidence.doc_ids) - evidence_kept,
            }
        return output

    def _write(
        self, ctx: RunContext, engine: Engine, table: Any, kept: Any, todo: list[str] | None, removed: list[str],
        new_ids: list[str],
    ) -> int:
        """Commit the ``entities`` rows (``table``) and the ``mention_entities`` names (``kept``): overwritten for
        every document (``todo`` None), the quotes stage's rows of that table kept as they are; else the rows of
        ``todo`` and ``removed`` replaced. Returns how many of the quotes stage's rows were kept in an overwrite."""
        if todo is None:
            # The quotes stage finds which documents' names changed and makes their rows again; the others' stand,
            # so a run that changes a few documents' names does not cost every document's quotations and pronouns.
            references = _references(ctx.lakehouse, engine)
            engine.write(table, ENTITIES.name, overwrite=True)
            names = kept if references is None else conform(
                query(REFERENCES_KEPT_SQL, {"names": kept, "kept_references": references}), MENTION_ENTITIES
            )
            engine.write(names, MENTION_ENTITIES.name, overwrite=True)
            count = 0 if references is None else engine.count(references)
            engine.release(references)
            return count
        self._forget_entities(ctx, new_ids, removed)
        engine.write(table, ENTITIES.name)
        # last: a document's rows here say it is resolved (``_documents_to_redo``), so a crash before this commit
        # has it resolved again, its entities above replaced rather than duplicated
        ctx.lakehouse.delete_docs(MENTION_ENTITIES.name, sorted({*todo, *removed}))
        engine.write(kept, MENTION_ENTITIES.name)
        return 0

    def _evidence_key(self, ctx: RunContext) -> str | None:
        """What the corpus evidence was counted from and with: the chunks' and mentions' settings (their markers'
        config fingerprints: a document's rows are the same under the same ones), this stage's version and the
        patterns (``ingestion.evidence.code_key``); None without those markers."""
        markers = [ctx.lakehouse.markers.read(stage) for stage in ("chunks", "mentions")]
        if any(marker is None for marker in markers):
            return None
        return fingerprint([code_key(), self.version, ctx.domain.language,
                            *[marker.config_fingerprint for marker in markers if marker is not None]])

    def _corpus_evidence(
        self, ctx: RunContext, key: str | None, written: pa.Table, chunks: pa.Table, documents: list[str]
    ) -> tuple[CorpusEvidence, int]:
        """The forms and casing facts of all ``documents`` (their mentions ``written``, their ``chunks``): the last
        run's kept in the stage's state under the same ``key`` (``_evidence_key``), the documents it did not count
        added (``ingestion.evidence``); or all counted here. Also how many documents were kept."""
        kept: CorpusEvidence | None = None
        state = None if ctx.force or key is None else ctx.lakehouse.markers.read_state(self.name, self.previous)
        if state is not None and state.get("key") == key:
            try:
                kept = CorpusEvidence.from_json(state["evidence"])
            except (KeyError, ValueError) as exc:  # only a lost speed-up
                logger.warning("entities: the kept corpus evidence is unreadable (%s); counting it again", exc)
        if kept is not None and not kept.doc_ids <= set(documents):
            logger.info("entities: %d documents of the kept corpus evidence are gone; counting it again",
                        len(kept.doc_ids - set(documents)))
            kept = None
        if kept is None:
            return CorpusEvidence.of(documents, keyed_mentions(written), chunks), 0
        new = sorted(set(documents) - kept.doc_ids)
        if new:
            ids = pa.array(new, pa.string())
            kept.add(CorpusEvidence.of(
                new, keyed_mentions(written.filter(pc.is_in(written.column("doc_id"), value_set=ids))),
                chunks.filter(pc.is_in(chunks.column("doc_id"), value_set=ids)),
            ))
        logger.info("entities: corpus evidence of %d documents kept, of %d counted", len(documents) - len(new),
                    len(new))
        return kept, len(documents) - len(new)

    def _resolve(
        self, ctx: RunContext, steps: _Steps, written: Any, chunks: Any, todo: list[str] | None
    ) -> _Resolution:
        """The documents' surface forms, their casing evidence and their entities, by either engine's ``steps``:
        one resolution per scope (a document, its ids salted with its id; or the whole corpus)."""
        by_document = self.scope(ctx) == "document"
        language = ctx.domain.language
        evidence = resolution_evidence(steps, written, chunks, language, by_document=by_document)
        scoped_forms = evidence.scoped_forms
        table = AliasTable.from_mapping(ctx.domain.alias_table) if ctx.domain.alias_table else None
        # the documents resolved incrementally have no resolved mentions yet, so no entities to keep ids from (a
        # crashed run's are rewritten with the same ids: they hash the document's own names)
        previous = self._previous(ctx, by_document) if todo is None else {}
        resolved: list[ResolvedEntity] = []
        by_scope: dict[str, list[ResolvedEntity]] = {}
        mapping: dict[tuple[str, str, str], str] = {}
        given: set[str] = set()  # an id is one entity's, whichever scope resolved it
        for scope, group in sorted(scoped_forms.items()):
            entities, forms_to_ids = resolve_entities(
                group, language=language, alias_table=table, scope=scope, **evidence.for_scope(scope),
                disabled_rules=ctx.settings.ingestion.disabled_resolution_rules,
            )
            entities, forms_to_ids = carry_over_ids(entities, forms_to_ids, previous.get(scope, []), given)
            given.update(entity.entity_id for entity in entities)
            resolved.extend(entities)
            by_scope[scope] = entities
            mapping.update({(scope, text, label): entity_id for (text, label), entity_id in forms_to_ids.items()})
        logger.info(
            "entities: %d surface forms resolved into %d entities%s", sum(map(len, scoped_forms.values())),
            len(resolved),
            f" ({len(scoped_forms)} documents resolved apart)" if by_document else "",
        )
        return _Resolution(
            mentions=evidence.mentions, scoped_forms=scoped_forms, casing=evidence.casing, openers=evidence.openers,
            entities=resolved,
            by_scope=by_scope, mapping=mapping, inflected=steps.written_aliases(written, mapping, by_document),
        )

    def _output(
        self, ctx: RunContext, todo: list[str] | None, removed: list[str], *, carried: int, forms: int,
        references: int = 0,
    ) -> StageOutput:
        """Counts and details of the tables as written: what the marker says (documents resolved and removed, for
        the cooccurrences stage; the documents resolved without an entity; the gold score)."""
        lake = ctx.lakehouse
        by_document = self.scope(ctx) == "document"
        counts = {
            "entities": lake.count(ENTITIES.name),
            "resolved_mentions": lake.count(MENTION_ENTITIES.name) - references,
            "carried_mentions": carried,
            "surface_forms": forms,
        }
        details: dict[str, Any] = {}
        if by_document:
            # documents resolved with no entity kept, which the next increment must not take for new ones
            details["without_entities"] = sorted(lake.doc_ids("mentions") - lake.doc_ids(MENTION_ENTITIES.name))
        if todo is not None:
            # what changed, for the cooccurrences stage to update its pairs of these documents only: the tables are
            # those of the run whose output fingerprint is ``extends`` with these documents resolved and removed
            details["documents"] = {
                "resolved": todo, "removed": removed,
                "extends": self.previous.output_fingerprint if self.previous is not None else None,
            }
        if ctx.domain.gold is not None:
            details["gold"] = self._score(ctx)
        return StageOutput(counts=counts, output_fingerprint=self.output_fingerprint(ctx), details=details)

    def _documents_to_redo(self, ctx: RunContext) -> tuple[list[str] | None, list[str]]:
        """Document scope: the documents to resolve (those with mentions but no resolved ones yet) and to remove
        (resolved ones whose mentions are gone); (None, []) when the tables are not there to update. Read in-process
        from the tables' snapshots (delta-rs), no Spark job."""
        lake = ctx.lakehouse
        if not (lake.exists(ENTITIES.name) and lake.exists(MENTION_ENTITIES.name)):
            return None, []
        current, present = lake.doc_ids("mentions"), lake.doc_ids(MENTION_ENTITIES.name)
        # resolved before without an entity kept (a page of front matter, a short notice): nothing in the table
        # says so, the last complete run's marker does
        marker = self.previous
        settled = set(marker.details.get("without_entities", ())) if marker is not None else set()
        todo, removed = sorted(current - present - settled), sorted(present - current)
        logger.info("entities: %d documents to resolve, %d removed, %d kept as they are", len(todo), len(removed),
                    len(current) - len(todo))
        return todo, removed

    @staticmethod
    def _forget_entities(ctx: RunContext, new_ids: list[str], removed: list[str]) -> None:
        """Delete, in one commit, the entities about to be written again (a crashed run's) and those of the removed
        documents (found through their resolved mentions, which are deleted after)."""
        lake = ctx.lakehouse
        stale = set(new_ids)
        if removed:
            homes = lake.columns(MENTION_ENTITIES.name, ["entity_id", "doc_id"]).to_pydict()
            gone = set(removed)
            stale.update(e for e, d in zip(homes["entity_id"], homes["doc_id"], strict=True) if d in gone)
        lake.delete_where(ENTITIES.name, "entity_id", sorted(stale))

    def _carriable(self, ctx: RunContext, r: _Resolution, steps: _Steps, chunks: Any) -> dict[str, dict[str, str]]:
        """Per scope, the aliases of kept people to carry to their names' unlabelled occurrences
        (``ingestion.carrying``); empty when none qualifies.

        Kept means as the ``entities`` table keeps them: at least ``min_entity_mentions`` NER mentions (their forms'
        counts). A one-word name the resolution's casing pass was not asked about gets a pass of its own over the
        documents' ``chunks``, by the run's engine (``steps``).
        """
        # each entity's NER mentions, as the join to the forms attaches them: its forms' counts (no job)
        form_counts = {(scope, f.text, f.label): f.count for scope, group in r.scoped_forms.items() for f in group}
        counts: dict[str, int] = {}
        for key, entity_id in r.mapping.items():
            counts[entity_id] = counts.get(entity_id, 0) + form_counts.get(key, 0)
        aliases = {
            scope: [(e, _with(list(e.aliases), r.inflected.get(e.entity_id, ()))) for e in entities]
            for scope, entities in r.by_scope.items()
        }
        minimum = ctx.settings.ingestion.min_entity_mentions
        kept: dict[str, list[tuple[str, str, list[str]]]] = {}
        others: dict[str, list[tuple[str, str]]] = {}
        for scope, entities in aliases.items():
            enough = {e.entity_id for e, _ in entities if counts.get(e.entity_id, 0) >= minimum}
            kept[scope] = [(e.entity_id, e.label, names) for e, names in entities if e.entity_id in enough]
            others[scope] = [(n, e.entity_id) for e, names in entities if e.entity_id not in enough for n in names]
        # One pass over the chunks for every scope's one-word names: a word written in lowercase (anywhere in the
        # corpus, or in the document for a document's own people) is common.
        words = {alias for group in kept.values() for alias in one_word_aliases(group)}
        common = r.casing.written_lowercase(words)
        if unasked := words - r.casing.asked_lowercase:  # a name no form is written as: its own (cheap) pass
            by_document = self.scope(ctx) == "document"
            for scope, more in steps.casing(chunks, lowercase=unasked, by_document=by_document).written_lowercase(
                unasked
            ).items():
                common.setdefault(scope, set()).update(more)
        carriable = {
            scope: found
            for scope in kept
            if (found := carriable_aliases(kept[scope], others[scope], r.openers.get(scope, set()),
                                           common.get(scope, set())))
        }
        if carriable:
            logger.info(
                "entities: carrying %d people's names to their unlabelled occurrences",
                sum(len(set(found.values())) for found in carriable.values()),
            )
        return carriable

    def _previous(self, ctx: RunContext, by_document: bool) -> dict[str, list[tuple[str, str, list[str]]]]:
        """(id, label, aliases) of the entities table as it stands, so that ids survive a renaming (entity_ids); per
        document (the one its mentions are in) when ``by_document``, else all under ``""``."""
        lake = ctx.lakehouse
        if not lake.exists(ENTITIES.name):
            return {}
        # read in-process (delta-rs): a Spark scan of the table cost seconds, its first Delta snapshot of the run
        rows = lake.columns(ENTITIES.name, ["entity_id", "label", "aliases"]).to_pydict()
        entities = {
            entity_id: (entity_id, label, list(aliases or ()))
            for entity_id, label, aliases in zip(rows["entity_id"], rows["label"], rows["aliases"], strict=True)
        }
        if not by_document:
            return {"": list(entities.values())}
        if not lake.exists(MENTION_ENTITIES.name):
            return {}
        homes = lake.columns(MENTION_ENTITIES.name, ["entity_id", "doc_id"]).group_by(["entity_id", "doc_id"])
        out: dict[str, list[tuple[str, str, list[str]]]] = {}
        pairs = homes.aggregate([]).to_pydict()
        for entity_id, doc_id in zip(pairs["entity_id"], pairs["doc_id"], strict=True):
            if entity_id in entities:
                out.setdefault(doc_id, []).append(entities[entity_id])
        return out

    def _score(self, ctx: RunContext) -> dict[str, Any]:
        """Precision/recall of the written ``entities`` table against the gold list, logged in one line."""
        assert ctx.domain.gold is not None
        columns = ENTITIES.pick("entity_id", "canonical_name", "label", "aliases")
        # read in-process (delta-rs): a Spark scan cost seconds for a few hundred rows
        rows = ctx.lakehouse.columns(ENTITIES.name, list(columns)).to_pylist()
        entities = [ResolvedEntity(r["entity_id"], r["canonical_name"], r["label"], tuple(r["aliases"] or ()))
                    for r in rows]
        score = score_details(entities, ctx.domain.gold)
        logger.info("entity resolution vs gold %s: %s", ctx.domain.gold_path, score.summary())
        return score.details(ctx.domain.gold_path)
