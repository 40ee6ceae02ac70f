"""Why an entity is what it is: which resolution rule joined which of its forms (``csillag entities explain``, and
``GET /entities/{name}/explain`` through the ingestion tool's ``explain_entity``).

The trace is not stored: it is recomputed from the lakehouse's ``mentions`` and ``chunks`` tables with the entities
stage's own driver steps (its surface forms, casing evidence, sentence openers and article usage) and the same
resolver, which is deterministic — so, under the settings the tables were written with (language, alias table,
scope, rules switched off), it is the trace of the entities the stage wrote.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from graph.lakehouse import Lakehouse
from ingestion.resolution import (
    AliasTable,
    ResolvedEntity,
    TraceStep,
    resolve_traced,
    trace_of,
)
from tools.ingestion import EntityExplanation, ResolutionStep


def explain_name(
    storage: Lakehouse,
    name: str,
    *,
    language: str,
    alias_table: Mapping[str, Any] | None = None,
    disabled_rules: Collection[str] = (),
    by_document: bool = False,
) -> list[EntityExplanation]:
    """The entities ``name`` names in the lakehouse (one per scope where it names one) with their traces, recomputed
    from its mentions (see the module's docstring); empty when it names none."""
    from deltalake import DeltaTable

    from ingestion.stages.entities import STEPS, resolution_evidence

    options = storage.storage_options
    written = DeltaTable(storage.delta_uri("mentions"), storage_options=options).to_pyarrow_table(
        columns=["doc_id", "chunk_id", "sentence_id", "start", "end", "text", "label", "ent_id"])
    chunks = DeltaTable(storage.delta_uri("chunks"), storage_options=options).to_pyarrow_table(
        columns=["chunk_id", "doc_id", "unit_id", "start", "text"])
    evidence = resolution_evidence(STEPS, written, chunks, language, by_document=by_document)
    table = AliasTable.from_mapping(dict(alias_table)) if alias_table else None
    out = []
    for scope, group in sorted(evidence.scoped_forms.items()):
        resolution = resolve_traced(
            group, language=language, alias_table=table, scope=scope, disabled_rules=disabled_rules,
            **evidence.for_scope(scope),
        )
        found = trace_of(name, resolution)
        if found is not None:
            out.append(explanation(scope, *found))
    return out


def explanation(scope: str, entity: ResolvedEntity, steps: tuple[TraceStep, ...]) -> EntityExplanation:
    """The entity and its trace as the contract's record."""
    return EntityExplanation(
        scope=scope, entity_id=entity.entity_id, name=entity.canonical_name, label=entity.label,
        aliases=list(entity.aliases),
        steps=[ResolutionStep(rule=step.rule, forms=list(step.forms), into=list(step.into)) for step in steps],
    )


def render_explanation(found: EntityExplanation) -> str:
    """The entity's name, label, id and forms, then one line per step: the rule, the forms it joined, and into what."""
    where = f" in document {found.scope}" if found.scope else ""
    lines = [f"{_one_line(found.name)} ({found.label}, {found.entity_id}){where}",
             f"  forms: {_listed(found.aliases)}"]
    for number, step in enumerate(found.steps, 1):
        into = f" -> {_listed(step.into)}" if step.into else ""
        lines.append(f"  {number}. {step.rule}: {_listed(step.forms)}{into}")
    if not found.steps:
        lines.append("  (one form, joined by no rule)")
    return "\n".join(lines)


def _one_line(text: str) -> str:
    """A form as written, its line breaks and runs of spaces made one space ("Fred\nKinney": "Fred Kinney")."""
    return " ".join(text.split())


def _listed(forms: list[str]) -> str:
    """The forms on one line, each once, in their order: two forms apart only by a line break read the same."""
    return ", ".join(dict.fromkeys(_one_line(form) for form in forms))
