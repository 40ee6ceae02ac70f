"""The resolver's pipeline (``ingestion.resolution.pipeline``): the registry of rules, switching rules off (also as
the entities stage's setting), and the trace of which rule joined which forms."""

from __future__ import annotations

import dataclasses

import pytest

from ingestion.resolution import (
    RULE_NAMES,
    RULES,
    SurfaceForm,
    TraceStep,
    UnknownRuleError,
    resolve_entities,
    resolve_traced,
    trace_of,
)
from ingestion.stages.entities import EntitiesStage
from tests.unit.ingestion.test_issue_12_stage_basics import fixed_context

from .crafted import people

KUTUZOV = people(("Kutuzov", 500), ("Prince Kutuzov", 40), ("Count Kutuzov", 1), ("Michael Ilarionovich Kutuzov", 30))


def test_every_rule_has_one_name_a_kind_and_a_docstring_with_its_evidence() -> None:
    assert len(RULE_NAMES) == len(RULES) == 51
    for rule in RULES:
        kinds = {"form", "label", "group", "join", "partial_names step", "keep apart", "evidence"}
        assert rule.kind in kinds, rule.name
        doc = rule.unit.__doc__ or ""
        assert len(rule.doc) > 60 and "Evidence" in doc and '"' in doc, rule.name  # what, its evidence, an example


def test_an_unknown_rule_is_refused_by_its_name() -> None:
    with pytest.raises(UnknownRuleError, match="unknown resolution rule 'partial_name'; valid rules: alias_table"):
        resolve_entities(KUTUZOV, language="en", disabled_rules=["partial_name"])


def test_resolve_entities_is_the_traced_resolution_without_its_trace() -> None:
    entities, mapping = resolve_entities(KUTUZOV, language="en")
    traced = resolve_traced(KUTUZOV, language="en")
    assert (entities, mapping) == (traced.entities, traced.mapping)


def test_the_trace_says_which_rule_joined_which_forms_in_order() -> None:
    # one name under two men's titles joins the more specific, more mentioned title first ("Prince Kutuzov", 40),
    # then that surname joins the one full name holding it, a man's by his given name ("Michael")
    resolution = resolve_traced(KUTUZOV, language="en")
    assert [entity.canonical_name for entity in resolution.entities] == ["Michael Ilarionovich Kutuzov"]
    assert resolution.traces[resolution.entities[0].entity_id] == (
        TraceStep("same_name_titles", ("Kutuzov",), ("Prince Kutuzov",)),
        TraceStep("same_name_titles", ("Count Kutuzov",), ("Prince Kutuzov",)),
        TraceStep("partial_names", ("Count Kutuzov", "Kutuzov", "Prince Kutuzov"), ("Michael Ilarionovich Kutuzov",)),
    )
    # found by any of its forms or its name, whatever the case; a name of no entity has none
    by_alias, by_name = trace_of("count KUTUZOV", resolution), trace_of("Michael Ilarionovich Kutuzov", resolution)
    assert by_alias == by_name and by_alias is not None and by_alias[0] == resolution.entities[0]
    assert trace_of("Bagration", resolution) is None
    # a form alone is joined by no rule; a name key's forms by "name_key"
    alone = resolve_traced([SurfaceForm("Denisov", "PERSON", 3), SurfaceForm("Denisov's", "PERSON", 2),
                            SurfaceForm("Pierre", "PERSON", 2)], language="en")
    pierre, denisov = trace_of("Pierre", alone), trace_of("Denisov", alone)
    assert pierre is not None and pierre[0].canonical_name == "Pierre" and pierre[1] == ()
    assert denisov is not None and denisov[1] == (TraceStep("name_key", ("Denisov", "Denisov's")),)


def test_a_rule_switched_off_in_the_settings_changes_the_stages_fingerprint_and_reaches_the_resolver() -> None:
    ctx = fixed_context()
    stage = EntitiesStage()
    default = stage.config_fingerprint(ctx)
    off = dataclasses.replace(ctx, settings=ctx.settings.model_copy(update={
        "ingestion": ctx.settings.ingestion.model_copy(update={"disabled_resolution_rules": ["elsewhere"]})}))
    assert stage.config(off)["disabled_rules"] == ["elsewhere"] and "disabled_rules" not in stage.config(ctx)
    assert stage.config_fingerprint(off) != default
    assert stage.output_fingerprint(off) != stage.output_fingerprint(ctx)
    wrong = dataclasses.replace(ctx, settings=ctx.settings.model_copy(update={
        "ingestion": ctx.settings.ingestion.model_copy(update={"disabled_resolution_rules": ["nowhere"]})}))
    with pytest.raises(UnknownRuleError, match="'nowhere'"):
        stage.config(wrong)
