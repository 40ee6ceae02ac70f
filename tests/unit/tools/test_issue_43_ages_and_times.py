"""How old, how long and when: the span a sentence offers is an age, a length of time or the most exact time it
says. Questions and sentences are written for the test; the expected spans were decided before the code ran."""

from __future__ import annotations

import pytest

from tools.analysis.lexicon import EntityLexicon
from tools.analysis.question import Kind, analyse


@pytest.mark.parametrize(("question", "answer_type"), [
    ("How old was Philip when his mother died?", "age"),
    ("At what age did Ernest receive the money?", "age"),
    ("How long was Clifford in prison?", "duration"),
    ("When did the light at Penhallow fail?", "time"),
    ("In what year does the story begin?", "time"),
    ("How many guests came to the wedding?", "number"),
])
def test_issue_43_how_old_and_how_long_ask_for_an_age_and_a_duration(question, answer_type):
    read = analyse(question)
    assert read.answer_type == answer_type
    assert read.asks_for_span
    assert read.kind in (Kind.TIME, Kind.COUNT)


@pytest.mark.parametrize(("text", "answer_type", "span"), [
    # a season said first is no age nor a length of time
    ("That winter Tomas Keller, then sixty years old, watched the mill burn.", "age", "sixty years old"),
    ("She was aged twenty when the war began, one summer evening.", "age", "aged twenty"),
    ("In the spring of 1831, more than five years after Theobald came, he married.", "age", ""),
    ("Every spring for forty years he had ground corn there.", "duration", "forty years"),
    ("He spent thirty\nyears in the prison, winter after winter.", "duration", "thirty years"),  # one line
    ("He would be twenty-four years old when he left prison.", "age", "twenty-four years old"),
])
def test_issue_43_an_age_or_a_duration_is_the_span(text, answer_type, span):
    assert EntityLexicon().answer_span(text, answer_type, set()) == span


@pytest.mark.parametrize(("text", "span"), [
    ("In the spring of 1848 a stranger came to the village.", "1848"),
    ("One evening in October the wedding took place.", "October"),
    ("Late that night, at Christmas, the bells rang.", "Christmas"),
    ("They rode for three days, from morning to night.", "three days"),
    ("The house was built in the eighteenth century.", "eighteenth century"),
    ("It had stood there a century, every night dark.", "night"),  # "a century" is no time
    ("Nobody knew his trade.", ""),
])
def test_issue_43_when_is_answered_by_the_most_exact_time(text, span):
    assert EntityLexicon().answer_span(text, "time", set()) == span


HARBOUR = {
    "c0": ("CHAPTER I", "Mara Lind kept the lighthouse at Penhallow. That winter Mara Lind, then sixty years old, "
                        "watched the lamp fail. The storm came one night in March 1851."),
    "c1": ("CHAPTER II", "Every spring for forty years Tobias Crane had mended the nets at the harbour. He was a "
                         "quiet man in the evening."),
}
PEOPLE = {"mara": ("Mara Lind", ["c0"]), "tobias": ("Tobias Crane", ["c1"])}


@pytest.fixture(scope="module")
def harbour():
    """A two-chapter book with its graph and index, served by the chat platform the CLI uses."""
    from graph.embedded import EmbeddedGraphStore
    from graph.model import ChunkNode, DocumentNode, EntityNode, GraphData, UnitNode
    from tools.analysis.domain import DomainSettings
    from tools.domains.egri_csillagok import TOOLS
    from tools.platform import ChatPlatform
    from tools.plugins import ToolRegistry
    from tools.retrieval.chunks import Chunk, ChunkRetriever
    from tools.retrieval.units import UnitCatalog

    chunks = [Chunk(c, "doc", n, f"u{n}", n + 1, "chapter", title, "", n * 1000, n * 1000 + len(text), text,
                    "Harbour") for n, (c, (title, text)) in enumerate(HARBOUR.items())]
    ids = list(HARBOUR)
    graph = EmbeddedGraphStore.from_graph(GraphData(
        entities=[EntityNode(entity_id=i, canonical_name=name, label="PERSON", aliases=[], mention_count=len(seen),
                             first_chunk_id=seen[0], last_chunk_id=seen[-1], first_unit_id=f"u{ids.index(seen[0])}",
                             last_unit_id=f"u{ids.index(seen[-1])}") for i, (name, seen) in PEOPLE.items()],
        relations=[], mentions=[],
        documents=[DocumentNode(doc_id="doc", title="Harbour")],
        units=[UnitNode(unit_id=f"u{n}", doc_id="doc", unit_index=n + 1, unit_kind="chapter", unit_title=title)
               for n, (title, _) in enumerate(HARBOUR.values())],
        chunks=[ChunkNode(chunk_id=c.chunk_id, doc_id="doc", chunk_index=c.chunk_index, unit_id=c.unit_id,
                          start=c.start, end=c.end, text=c.text) for c in chunks],
    ))
    by_chunk = {c: [i for i, (_, seen) in PEOPLE.items() if c in seen] for c in HARBOUR}
    registry = ToolRegistry(entry_point_group=None)
    for cls in TOOLS:
        registry.register(cls)
    services = [DomainSettings(name="harbour", title="Harbour", language="en"), graph,
                ChunkRetriever.from_chunks(chunks, "en"), UnitCatalog(chunks, by_chunk)]
    return ChatPlatform(registry, services=services).start()


@pytest.mark.parametrize(("question", "answer_line_starts"), [
    ("How old was Mara Lind when the lamp failed?", "sixty years old — “That winter Mara Lind, then sixty years old,"),
    ("How long had Tobias Crane mended the nets?", "forty years — “Every spring for forty years Tobias Crane"),
    ("When did the storm come?", "1851 — “The storm came one night in March 1851.”"),
])
def test_issue_43_the_answer_line_gives_the_age_the_duration_or_the_exact_time(harbour, question, answer_line_starts):
    import asyncio

    from tools.request import ChatRequest

    response = asyncio.run(harbour.handle(ChatRequest(question, domain="harbour", user_lang="en")))
    assert response.content.splitlines()[0].startswith(answer_line_starts), response.content
    assert "Harbour › CHAPTER" in response.content  # still cited evidence


@pytest.mark.parametrize(("text", "span"), [
    ("Annak az évnek a májusában élsz te mostan.", "májusában"),  # a Hungarian month takes case endings
    ("Vedd elő gondolatban az 1533-ikit, annak az évnek a májusában.", "1533"),
    ("Marching in the morning, they sang.", "morning"),  # "march" only as a whole word
])
def test_issue_43_months_are_found_as_written(text, span):
    assert EntityLexicon().answer_span(text, "time", set()) == span
