"""The quotes stage's one pass per document (``ingestion.stages.quotes.quote_outputs``): the quotations and the
pronoun and description rows of a crafted document by both engines — the references as read from the text, the
quotations those of ``document_quotes`` — and the shared reading of a text only where it is the text's."""

from __future__ import annotations

import random
from typing import Any

import pytest

from graph.tables import MENTION_ENTITIES, QUOTES
from ingestion.coref import Reading, Speech, resolve_references
from ingestion.coref.references import _Memory, _Seen, _window
from ingestion.relations.sentences import PersonMention
from ingestion.stages.quotes import output_rows, quote_outputs
from tests.unit.ingestion.test_references_stage import TEXT, _arrow_inputs, _expected, _quotes


def _by_start(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda row: row["start"])


@pytest.mark.parametrize("engine", ["driver", "spark"])
def test_quote_outputs_are_the_quotations_and_the_references_read_from_the_text(spark: Any, engine: str) -> None:
    """The English document's quotation and its four pronouns; the Hungarian one's "He" and the pronoun row an
    earlier run left are not read."""
    tables = _arrow_inputs()[:4]
    if engine == "spark":
        tables = tuple(spark.createDataFrame(table.to_pandas()) for table in tables)
    outputs = quote_outputs(*tables)
    rows = {}
    for spec in (QUOTES, MENTION_ENTITIES):
        selected = output_rows(outputs, spec)
        rows[spec.name] = selected.to_pylist() if engine == "driver" else [r.asDict() for r in selected.collect()]
        assert all(list(row) == list(spec.names) for row in rows[spec.name])
    assert _by_start(rows[QUOTES.name]) == _quotes()
    assert [row["speaker_id"] for row in rows[QUOTES.name]] == ["natasha"]
    assert _by_start(rows[MENTION_ENTITIES.name]) == _expected()


def test_coref_a_reading_of_other_people_is_not_used() -> None:
    """A reading made of no names would link nothing: the resolver reads the text again for the names it is given,
    and the reading of those names gives the same links."""
    people = [PersonMention(0, 6, "pierre"), PersonMention(11, 18, "natasha")]
    speeches = [Speech(TEXT.index("“I am"), TEXT.index(" said"), "natasha")]
    links = [(TEXT[r.start : r.end], r.entity_id) for r in resolve_references(TEXT, people, speeches)]
    assert links == [("I", "natasha"), ("He", "pierre"), ("her", "natasha"), ("his", "pierre")]
    for reading in (Reading(TEXT, []), Reading(TEXT, people)):
        again = resolve_references(TEXT, people, speeches, reading=reading)
        assert [(TEXT[r.start : r.end], r.entity_id) for r in again] == links


def test_coref_window_by_bisection_is_the_walk_back_even_when_sentences_go_back() -> None:
    """The mentions of the last sentences a pronoun looks over, found by bisection, are those walking back finds,
    also after a mention whose sentence is before the previous one's (then found by walking back)."""
    rng = random.Random(7)
    for _ in range(200):
        memory, sentence = _Memory(), 0
        for start in range(rng.randint(0, 60)):
            sentence += rng.choice((0, 0, 1, 2, 15)) - (rng.random() < 0.03)
            memory.add(_Seen(start, f"e{rng.randint(0, 3)}", max(sentence, 0), 0, False))
            now = max(sentence, 0) + rng.randint(0, 12)
            assert memory.window(now) == _window(memory.mentions, now)
