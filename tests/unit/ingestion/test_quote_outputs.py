"""The quotes stage's one pass per document (``ingestion.stages.quotes.quote_outputs``): the quotations and the
pronoun and description rows of a crafted document by both engines — the references as read from the text, the
quotations those of ``document_quotes`` —, the query that gathers each document (``outputs_sql``) by DuckDB and by
Spark SQL, and the shared reading of a text only where it is the text's."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pytest

from graph.tables import MENTION_ENTITIES, QUOTES
from ingestion.coref import Reading, Speech, references, resolve, resolve_references
from ingestion.coref.references import _Memory, _Seen, _window
from ingestion.relational import query_rows
from ingestion.relations.sentences import PersonMention
from ingestion.stages.quotes import output_rows, outputs_sql, quote_outputs
from tests.unit.ingestion.test_references_stage import TEXT, _arrow_inputs, _expected, _quotes


def _by_start(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda row: row["start"])


@pytest.mark.parametrize("engine", ["driver", "spark"])
def test_quote_outputs_are_the_quotations_and_the_references_read_from_the_text(spark: Any, engine: str) -> None:
    """The English document's quotation and its four pronouns; the Hungarian one's "He" and the pronoun row an
    earlier run left are not read."""
    tables = _arrow_inputs()
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


def _gather_tables() -> dict[str, pa.Table]:
    """Document "a": a front-matter chunk, a chapter, a chunk of no kind and back matter (listed out of order); a name
    of Pierre and of Natasha, a pronoun row for Pierre, a name of Moscow (a place). "b": a table of contents only.
    "c": a chapter that names Moscow alone. "h": a Hungarian chapter naming Pierre."""
    chunks = [("a", "a:c0", 0, "front_matter"), ("a", "a:c2", 20, None), ("a", "a:c9", 90, "back_matter"),
              ("a", "a:c1", 10, "chapter"), ("b", "b:c0", 0, "contents"), ("c", "c:c0", 0, "chapter"),
              ("h", "h:c0", 0, "chapter")]
    mentions = [("a", "natasha", 25, 32, "a:s1", "name"), ("a", "pierre", 12, 18, "a:s0", "name"),
                ("a", "pierre", 40, 42, "a:s2", "pronoun"), ("a", "moscow", 50, 56, "a:s3", "name"),
                ("c", "moscow", 3, 9, "c:s0", "name"), ("h", "pierre", 0, 6, "h:s0", "name")]
    return {
        "documents": pa.table({"doc_id": ["a", "b", "c", "h"], "text": ["text a", "text b", "text c", "text h"],
                               "language": ["en", "en", "en", "hu"]}),
        "chunks": pa.table({name: pa.array([row[i] for row in chunks], pa.int64() if name == "start" else pa.string())
                            for i, name in enumerate(("doc_id", "chunk_id", "start", "unit_kind"))}),
        "mention_entities": pa.table({name: [row[i] for row in mentions] for i, name in enumerate(
            ("doc_id", "entity_id", "start", "end", "sentence_id", "kind"))}),
        "entities": pa.table({"entity_id": ["pierre", "natasha", "moscow"], "label": ["PERSON", "PER", "GPE"]}),
    }


def test_quote_outputs_gather_query_gives_the_same_lists_on_both_engines(spark: Any) -> None:
    """``outputs_sql`` per document, by DuckDB and by Spark SQL: its prose chunks (a chunk of no kind is prose; front
    matter, back matter and contents are not) and its person names with their sentences (not the pronoun row, not
    the place), each list sorted; a document with no prose chunk has no row, one with no person a null list, one in
    another language its row (its quotations are read; ``document_outputs`` reads its references only in English)."""
    tables = _gather_tables()
    frames = {name: spark.createDataFrame(table) for name, table in tables.items()}
    expected = [
        {"doc_id": "a", "text": "text a", "language": "en",
         "chunks": [{"start": 10, "chunk_id": "a:c1"}, {"start": 20, "chunk_id": "a:c2"}],
         "people": [{"start": 12, "end": 18, "entity_id": "pierre", "sentence_id": "a:s0"},
                    {"start": 25, "end": 32, "entity_id": "natasha", "sentence_id": "a:s1"}]},
        {"doc_id": "c", "text": "text c", "language": "en", "chunks": [{"start": 0, "chunk_id": "c:c0"}],
         "people": None},
        {"doc_id": "h", "text": "text h", "language": "hu", "chunks": [{"start": 0, "chunk_id": "h:c0"}],
         "people": [{"start": 0, "end": 6, "entity_id": "pierre", "sentence_id": "h:s0"}]},
    ]
    for engine in (tables, frames):
        assert sorted(query_rows(outputs_sql(), engine), key=lambda row: row["doc_id"]) == expected


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


Story = tuple[str, list[PersonMention], list[tuple[int, int]]]
NARRATED = (" ", " ", "\n\n")


def _written(
    rng: random.Random,
    sentences: int,
    names_at: Callable[[int], dict[str, str]],
    narration: Sequence[str],
    speech: Sequence[str],
    quoted_share: float,
) -> Story:
    """A text of ``sentences`` sentences, each a template of ``speech`` (a ``quoted_share`` of them) or of
    ``narration`` filled with two of the names ``names_at(number)`` gives (name -> entity): the text, its name
    mentions in order and the spans of its quotations."""
    text, people, quotes = "", [], []
    for number in range(sentences):
        names = names_at(number)
        quoted = rng.random() < quoted_share
        template = rng.choice(speech if quoted else narration)
        start = len(text)
        chosen = rng.sample(sorted(names), 2)
        sentence = template.format(n=chosen[0], m=chosen[1])
        for name in names:
            for found in re.finditer(re.escape(name), sentence):
                people.append(PersonMention(start + found.start(), start + found.end(), names[name]))
        if quoted:
            quotes.append((start, start + sentence.index("”") + 1))
        text += sentence + rng.choice(NARRATED)
    return text, sorted(people, key=lambda m: m.start), quotes


def _story(rng: random.Random, sentences: int) -> Story:
    """A text of ``sentences`` sentences about four people, in narration and in quotations."""
    names = {"Pierre": "pierre", "Natasha": "natasha", "Count Rostov": "rostov", "Sonya": "sonya"}
    narration = ("{n} walked in.", "He looked at her.", "She gave him her hand.", "The count smiled at {n}.",
                 "{n} and {m} sat down; he spoke to his sister.", "Her brother left.", "He said nothing to {n}.")
    speech = ("“I am here, {n},” said {m}.", "“You are late,” he said.", "“Where is your father?” she asked {n}.",
              "“He told me so,” said {n}.")
    return _written(rng, sentences, lambda _: names, narration, speech, 0.4)


@dataclass
class _Calls:
    """How many pronouns ``references._Context.pronoun`` resolved under each label; ``now``: the current one."""

    now: str = ""
    counts: Counter[str] = field(default_factory=Counter)


@pytest.fixture
def pronoun_calls(monkeypatch: pytest.MonkeyPatch) -> _Calls:
    """Counts the pronouns resolved, under the label the test sets in ``now``."""
    calls = _Calls()
    pronoun = references._Context.pronoun

    def counted(self: Any, *args: Any) -> Any:
        calls.counts[calls.now] += 1
        return pronoun(self, *args)

    monkeypatch.setattr(references._Context, "pronoun", counted)
    return calls


def test_coref_a_resolution_that_follows_another_links_as_one_made_alone(pronoun_calls: _Calls) -> None:
    """Resolving with some speakers changed after a resolution with the first speakers gives exactly the links of a
    resolution made alone, on random stories where the changed speakers change links — and resolves fewer pronouns
    again than it would alone."""
    rng = random.Random(11)
    people_ids = ["pierre", "natasha", "rostov", "sonya"]
    entities: list[str | None] = [*people_ids, None]
    changed_links = 0
    for _ in range(30):
        text, people, spans = _story(rng, 120)
        first = [Speech(s, e, rng.choice(entities), tuple(rng.sample(people_ids, rng.randint(0, 1))))
                 for s, e in spans]
        second = [Speech(s.start, s.end, rng.choice(entities), s.addressee_ids) if rng.random() < 0.2 else s
                  for s in first]
        pronoun_calls.now = "before"
        before = resolve(text, people, first)
        pronoun_calls.now = "alone"
        alone = resolve(text, people, second).references
        pronoun_calls.now = "after"
        assert resolve(text, people, second, reading=before.reading, after=before).references == alone
        changed_links += alone != before.references
    assert changed_links > 20  # the speakers changed links: the second resolution had something to find again
    assert pronoun_calls.counts["after"] < pronoun_calls.counts["alone"] * 0.8


def _learning_story(rng: random.Random, sentences: int) -> Story:
    """A story whose titled people have a known sex, and two people whose names say none (no pronoun in the clause
    after them either) in one stretch of 60 sentences: a first reading's links teach their sexes. Sentences naming
    nobody leave some pronouns no one before them, to look ahead for."""
    known = {"Count Rostov": "rostov", "Princess Mary": "mary", "Mr. Bolkonsky": "andrew", "Mrs. Karagin": "julie"}
    unknown = {"Zorbel": "zorbel", "Quennick": "quennick"}
    narration = ("{n} walked in.", "{n} looked at {m}.", "He smiled.", "She smiled.", "His hand shook.",
                 "Her hand shook.", "He waited for {n}.", "The rain fell.", "The rain fell.", "The rain fell.")
    speech = ("“I am here, {n},” said {m}.", "“You are late,” he said.", "“Where is your father?” she asked {n}.")
    stretch = rng.randint(0, sentences - 60)
    everyone = {**known, **unknown}
    return _written(rng, sentences, lambda number: everyone if stretch <= number < stretch + 60 else known,
                    narration, speech, 0.3)


def test_coref_the_reading_with_learnt_sexes_follows_the_first_where_no_learnt_person_is_near(
    monkeypatch: pytest.MonkeyPatch, pronoun_calls: _Calls
) -> None:
    """The second reading of a text, with the sexes the first one's links taught, links every event as a reading that
    resolves every pronoun again, on random stories where it links otherwise than the first — and resolves fewer
    pronouns again."""
    learnt = references._Guide.learnt
    rng = random.Random(5)
    entities = ["rostov", "mary", "andrew", "julie", None]
    relinked = 0
    for _ in range(30):
        text, people, spans = _learning_story(rng, 600)
        speeches = [Speech(s, e, rng.choice(entities)) for s, e in spans]
        pronoun_calls.now = "guided"
        monkeypatch.setattr(references._Guide, "learnt", learnt)
        guided = resolve(text, people, speeches)
        pronoun_calls.now = "alone"
        monkeypatch.setattr(references._Guide, "learnt", classmethod(lambda cls, before, context: None))
        alone = resolve(text, people, speeches)
        assert [p.outputs for p in guided.passes] == [p.outputs for p in alone.passes]
        assert guided.references == alone.references
        relinked += len(alone.passes) == 2 and alone.passes[0].outputs != alone.passes[1].outputs
    assert relinked > 10  # the learnt sexes changed links: the second reading had something to find again
    assert pronoun_calls.counts["guided"] < pronoun_calls.counts["alone"] * 0.8
