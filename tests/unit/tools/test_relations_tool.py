"""Kinship and speech questions answered from the typed relations and quotations of a crafted book (made by the
pipeline's own per-document code), with their evidence; questions the graph cannot answer take the usual path."""

from __future__ import annotations

import asyncio

import pytest

from graph.embedded import EmbeddedGraphStore
from graph.model import ChunkNode, DocumentNode, EntityNode, GraphData, TypedRelationEdge, UnitNode
from tests.unit.tools.relations_book import book_graph, services
from tools.analysis.relations import answers_from_the_graph, read_question
from tools.domains.egri_csillagok import TOOLS
from tools.platform import ChatPlatform
from tools.plugins import ToolRegistry
from tools.request import ChatRequest
from tools.streaming import OpenAIResponse


@pytest.fixture(scope="module")
def graph() -> EmbeddedGraphStore:
    return EmbeddedGraphStore.from_graph(book_graph())


@pytest.fixture(scope="module")
def platform(graph: EmbeddedGraphStore) -> ChatPlatform:
    registry = ToolRegistry(entry_point_group=None)
    for cls in TOOLS:
        registry.register(cls)
    return ChatPlatform(registry, services=services(graph)).start()


def ask(platform: ChatPlatform, prompt: str) -> OpenAIResponse:
    return asyncio.run(platform.handle(ChatRequest(prompt, user_lang="en", domain="crafted")))


def test_relations_tool_names_the_mother_with_the_sentence_that_says_so(platform: ChatPlatform) -> None:
    response = ask(platform, "Who is Natasha's mother?")
    first = response.content.splitlines()[0]
    assert first == "Natasha Rostova's mother: Countess Rostova [1]"
    assert (
        "> Pierre met Natasha at the gate. Natasha's mother, Countess Rostova, smiled at them. [1]" in response.content
    )
    assert "relations" in response.tools_run
    # the entity card and the passage search stepped aside: one answer, not three
    assert response.content.count("Sources:") == 1 and "[2]" not in response.content


def test_relations_tool_names_a_parent_when_the_book_does_not_say_father(platform: ChatPlatform) -> None:
    # "Ellen Pryor, his daughter": Mr. Hale is her parent; no word says "father" beside his name
    response = ask(platform, "Who is Ellen Pryor's father?")
    assert response.content.splitlines()[0] == (
        "The book names Ellen Pryor's parent: Mr. Hale [1] (it does not say which is the father)"
    )


def test_relations_tool_how_two_people_are_related_with_the_evidence(
    platform: ChatPlatform, graph: EmbeddedGraphStore
) -> None:
    response = ask(platform, "How are Helen and Pierre related?")
    assert (
        response.content.splitlines()[0] == "Helen Kuragina is Pierre Bezukhov's spouse — “Helen is Pierre's wife.” [1]"
    )
    assert "appear together" not in response.content
    child = read_question(graph, "What is Ellen Pryor to Mr. Hale?", "en")
    assert child is not None and child.lines[0].startswith("Ellen Pryor is Mr. Hale's daughter — “Mr. Hale came in")


def test_relations_tool_whom_someone_marries(graph: EmbeddedGraphStore) -> None:
    # "In the winter Nicholas married Princess Mary.": a spouse of either sex, the marriage sentence as evidence
    for question in ("Who does Nicholas marry?", "Whom did Nicholas marry in the end?", "Who is Nicholas married to?"):
        answer = read_question(graph, question, "en")
        assert answer is not None and answer.lines == ["Nicholas Rostov's spouse: Princess Mary [1]"], question
        assert [sentence for _, sentence in answer.passages] == ["In the winter Nicholas married Princess Mary."]


def test_relations_tool_who_said_a_quotation(platform: ChatPlatform) -> None:
    response = ask(platform, "Who said “are you cold”?")
    assert response.content.splitlines()[0] == (
        "Pierre Bezukhov says it to Natasha Rostova: “Are you cold, Natasha?” [1]"
    )
    assert "> “Are you cold, Natasha?” asked Pierre. [1]" in response.content


def test_relations_tool_what_one_says_to_another(platform: ChatPlatform) -> None:
    response = ask(platform, "What does Pierre say to Natasha?")
    assert response.content.splitlines()[:2] == [
        "What Pierre Bezukhov says to Natasha Rostova:",
        "- “Are you cold, Natasha?” [1]",
    ]


@pytest.mark.parametrize(
    "question",
    [
        "Who is Pierre's mother?",  # no such relation
        "How are Pierre and Natasha related?",  # they meet, but no sentence relates them
        "Who said “the lighthouse”?",  # narration, not a quotation
        "What does Natasha say to Pierre?",  # no quotation of hers to him
        "Who is Natasha's closest companion?",  # not a kinship word
        "Who is “cold, Natasha”?",  # quoted words, but no verb of saying: not a question about a quotation
    ],
)
def test_relations_tool_steps_aside_when_the_graph_has_no_answer(
    platform: ChatPlatform, graph: EmbeddedGraphStore, question: str
) -> None:
    assert read_question(graph, question, "en") is None and not answers_from_the_graph(graph, question, "en")
    answer = ask(platform, question).content
    assert answer  # the usual path answers (the entity card, the passages, or "not found")
    assert not any(mark in answer for mark in ("'s mother:", "says it", " says to ", "The book names"))


def test_relations_tool_reads_a_hungarian_kinship_question() -> None:
    # hand-made: one relation and the sentence that states it, in a Hungarian book
    text = "Éva, Gergely felesége, a várfalon állt."
    graph = EmbeddedGraphStore.from_graph(
        GraphData(
            entities=[
                EntityNode(entity_id="eva", canonical_name="Cecey Éva", label="PER", aliases=["Éva"]),
                EntityNode(entity_id="gergely", canonical_name="Bornemissza Gergely", label="PER", aliases=["Gergely"]),
            ],
            documents=[DocumentNode(doc_id="d")],
            units=[UnitNode(unit_id="u", doc_id="d", unit_index=0)],
            chunks=[ChunkNode(chunk_id="c", doc_id="d", chunk_index=0, unit_id="u", start=0, end=len(text), text=text)],
            typed_relations=[
                TypedRelationEdge(
                    src_id="eva", type="spouse", dst_id="gergely", chunk_ids=["c"], count=1, confidence=0.9
                )
            ],
        )
    )
    answer = read_question(graph, "Ki Gergely felesége?", "hu")
    assert answer is not None and answer.lines == ["Bornemissza Gergely felesége: Cecey Éva [1]"]
    assert [(p.chunk_id, sentence) for p, sentence in answer.passages] == [("c", text)]


def test_relations_tool_reads_the_sex_a_kinship_call_says() -> None:
    """A parent row read from Natasha's "Papa, …" (the relations stage's vocatives): the sentence names her, not him,
    beside the word; the word inside the quotation still says he is her father (not the "mother" of the narration),
    so he is no answer to "mother"."""
    text = "“Papa, what are you doing that for?” asked Natasha, in her mother's room. “Papa!” cried Natasha."
    graph = EmbeddedGraphStore.from_graph(
        GraphData(
            entities=[
                EntityNode(entity_id="natasha", canonical_name="Natasha Rostova", label="PERSON", aliases=["Natasha"]),
                EntityNode(entity_id="ilya", canonical_name="Ilya Rostov", label="PERSON", aliases=["Count Rostov"]),
            ],
            documents=[DocumentNode(doc_id="d")],
            units=[UnitNode(unit_id="u", doc_id="d", unit_index=0)],
            chunks=[ChunkNode(chunk_id="c", doc_id="d", chunk_index=0, unit_id="u", start=0, end=len(text), text=text)],
            typed_relations=[
                TypedRelationEdge(
                    src_id="ilya", type="parent", dst_id="natasha", chunk_ids=["c"], count=2, confidence=0.75
                ),
                TypedRelationEdge(
                    src_id="natasha", type="child", dst_id="ilya", chunk_ids=["c"], count=2, confidence=0.75
                ),
            ],
        )
    )
    assert read_question(graph, "Who is Natasha's mother?", "en") is None
    father = read_question(graph, "Who is Natasha's father?", "en")
    assert father is not None and father.lines == ["Natasha Rostova's father: Ilya Rostov [1]"]
