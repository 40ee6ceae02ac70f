"""The analysis base classes and the domain tools on a hand-made graph: answers, clarification, contexts, language."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from graph.embedded import EmbeddedGraphStore
from graph.lakehouse import Lakehouse
from graph.model import ChunkNode, CoOccurrence, DocumentNode, EntityNode, GraphData, Mention, UnitNode
from graph.store import GraphReader, GraphWriter
from tools.analysis.common import ResolvedEntity, find_names
from tools.analysis.context_search import resolved_entities
from tools.analysis.domain import DomainSettings
from tools.analysis.entity import choose_option, detect_intent
from tools.analysis.page import choose_unit
from tools.documents import InternalContextDocument, PromptAndContext, ResultKind
from tools.domains.egri_csillagok import (
    TOOLS,
    EgriCsillagokCharacterTool,
    EgriCsillagokContextSearchTool,
    EgriCsillagokRAGTool,
)
from tools.errors import ConfigError, ToolError
from tools.platform import ChatPlatform
from tools.plugins import ToolRegistry
from tools.request import ChatRequest
from tools.retrieval.analyzer import Analyzer
from tools.retrieval.chunks import Chunk, ChunkRetriever
from tools.retrieval.units import UnitCatalog
from tools.streaming import CollectingCallback, OpenAIResponse, ResponseEmitter

# A tiny book: two books (parts) each with a "CHAPTER I"; a few people; and one place that meets Pierre most often.
TEXTS = {
    "c0": "Pierre met Nicholas at the club. Nicholas laughed. Pierre and Natasha talked. Moscow burned.",
    "c1": "Nicholas and Pierre rode out. Count Rostov stayed in Moscow with Pierre. Moscow was quiet.",
    "c2": "Natasha sang for Pierre. The storm broke over the lighthouse lamp at night.",
}
PEOPLE = {
    "ent_pierre": ("Pierre Bezukhov", "PERSON", ["Pierre"]),
    "ent_nicholas": ("Nicholas Rostov", "PERSON", ["Nicholas", "Rostov"]),
    "ent_ilya": ("Ilya Rostov", "PERSON", ["Count Rostov", "Rostov"]),
    "ent_natasha": ("Natasha Rostova", "PERSON", ["Natasha"]),
    "ent_moscow": ("Moscow", "GPE", ["Moscow"]),
}
UNITS = {"c0": ("u1", "CHAPTER I", "BOOK ONE"), "c1": ("u2", "CHAPTER I", "BOOK TWO"), "c2": ("u2", "CHAPTER I",
                                                                                           "BOOK TWO")}
# (a, b, count, weight): by count Pierre's closest PERSON is Nicholas (5); by weight it would be Natasha (0.9);
# Moscow (GPE) meets him most of all (9) but is not a companion.
EDGES = [("ent_nicholas", "ent_pierre", 5, 0.5), ("ent_natasha", "ent_pierre", 3, 0.9),
         ("ent_moscow", "ent_pierre", 9, 0.95), ("ent_ilya", "ent_moscow", 1, 0.3)]


def _mentions() -> list[Mention]:
    found = []
    offset = 0
    for chunk_id, text in TEXTS.items():
        for entity_id, (_, _, aliases) in PEOPLE.items():
            for alias in aliases:
                start = text.find(alias)
                if start >= 0 and not (alias == "Rostov" and "Count Rostov" in text):
                    found.append(Mention(mention_id=f"{chunk_id}:m{start}", entity_id=entity_id, chunk_id=chunk_id,
                                         doc_id="doc", start=offset + start, end=offset + start + len(alias),
                                         text=alias))
        offset += 1000
    return found


@pytest.fixture(scope="module")
def graph() -> EmbeddedGraphStore:
    mentions = _mentions()
    counts = Counter(m.entity_id for m in mentions)
    data = GraphData(
        entities=[EntityNode(entity_id=i, canonical_name=n, label=lab, aliases=al, mention_count=counts[i])
                  for i, (n, lab, al) in PEOPLE.items()],
        relations=[CoOccurrence(src_id=a, dst_id=b, count=c, weight=w, chunk_ids=["c0", "c1"], unit_ids=["u1", "u2"])
                   for a, b, c, w in EDGES],
        documents=[DocumentNode(doc_id="doc", title="Tiny")],
        units=[UnitNode(unit_id="u1", doc_id="doc", unit_index=1, unit_kind="chapter", unit_title="CHAPTER I",
                        part_title="BOOK ONE"),
               UnitNode(unit_id="u2", doc_id="doc", unit_index=2, unit_kind="chapter", unit_title="CHAPTER I",
                        part_title="BOOK TWO")],
        chunks=[ChunkNode(chunk_id=c, doc_id="doc", chunk_index=n, unit_id=UNITS[c][0], start=n * 1000,
                          end=n * 1000 + len(t), text=t) for n, (c, t) in enumerate(TEXTS.items())],
        mentions=mentions,
    )
    return EmbeddedGraphStore.from_graph(data)


def _services(graph: EmbeddedGraphStore, language: str) -> list[object]:
    chunks = [Chunk(c, "doc", n, UNITS[c][0], n + 1, "chapter", UNITS[c][1], UNITS[c][2], n * 1000,
                    n * 1000 + len(t), t, "Tiny") for n, (c, t) in enumerate(TEXTS.items())]
    by_chunk: dict[str, list[str]] = {}
    for m in _mentions():
        by_chunk.setdefault(m.chunk_id, []).append(m.entity_id)
    return [DomainSettings(name="tiny", title="Tiny", language=language), graph,
            ChunkRetriever.from_chunks(chunks, language), UnitCatalog(chunks, by_chunk)]


def _platform(graph: EmbeddedGraphStore, language: str = "en") -> ChatPlatform:
    registry = ToolRegistry(entry_point_group=None)
    for cls in TOOLS:
        registry.register(cls)
    return ChatPlatform(registry, services=_services(graph, language)).start()


def _ask(platform: ChatPlatform, prompt: str, lang: str = "en", **fields: Any) -> OpenAIResponse:
    return asyncio.run(platform.handle(ChatRequest(prompt, user_lang=lang, domain="tiny", **fields)))


@pytest.fixture(scope="module")
def platform(graph: EmbeddedGraphStore) -> ChatPlatform:
    return _platform(graph)


def test_closest_companion_is_the_person_met_most_often(platform: ChatPlatform) -> None:
    response = _ask(platform, "Who is Pierre's closest companion?")
    first = response.content.splitlines()[0]
    assert first.startswith("Pierre Bezukhov's closest companion is Nicholas Rostov")
    assert "together 5 times" in first
    assert "characters" in response.tools_run
    assert "Sources:" in response.content and "Tiny › BOOK ONE › CHAPTER I › chunk 0" in response.content


def test_connection_of_two_names_cites_the_passages(platform: ChatPlatform) -> None:
    response = _ask(platform, "How are Natasha and Nicholas connected?")
    assert "Natasha Rostova and Nicholas Rostov are connected through Natasha Rostova → Pierre Bezukhov → " \
           "Nicholas Rostov (2 steps)" in response.content
    assert "[1]" in response.content and "Sources:" in response.content


def test_ambiguous_name_asks_which_one_and_answers_after_the_choice(platform: ChatPlatform) -> None:
    question = _ask(platform, "Who is Rostov?", user_id="u1")
    assert question.finish_reason == "clarification"
    assert question.clarification is not None
    options = question.clarification["questions"][0]["options"]
    assert sorted(options) == ["Ilya Rostov", "Nicholas Rostov"]
    answer = asyncio.run(platform.handle(ChatRequest("Ilya", user_id="u1", domain="tiny", user_lang="en",
                                                     session_id=question.clarification["session_id"],
                                                     answer="Ilya")))
    assert answer.content.startswith("Ilya Rostov (PERSON) is mentioned 1 times")


def test_chapter_in_several_books_asks_which_book(platform: ChatPlatform) -> None:
    question = _ask(platform, "What happens in chapter 1?", user_id="u2")
    assert question.finish_reason == "clarification"
    assert question.clarification["questions"][0]["options"] == ["BOOK ONE › CHAPTER I", "BOOK TWO › CHAPTER I"]
    answer = asyncio.run(platform.handle(ChatRequest("book two", user_id="u2", domain="tiny",
                                                     session_id=question.clarification["session_id"],
                                                     answer="book two")))
    assert answer.content.startswith("BOOK TWO › CHAPTER I: 2 passages.")
    # in chunks c1, c2: Pierre 2, Nicholas 1, Natasha 1, Moscow 1 (c1 has Moscow twice but find() takes the first)
    assert "Pierre Bezukhov (2)" in answer.content


def test_chapter_with_book_needs_no_question(platform: ChatPlatform) -> None:
    response = _ask(platform, "What happens in chapter I of book one?")
    assert response.finish_reason == "stop"
    assert response.content.startswith("BOOK ONE › CHAPTER I: 1 passages.")


def test_unknown_chapter_says_so(platform: ChatPlatform) -> None:
    assert _ask(platform, "What happens in chapter 99?").content == "I found no chapter 99."


def test_question_without_names_is_answered_from_the_passages_with_a_citation(platform: ChatPlatform) -> None:
    response = _ask(platform, "What broke over the lighthouse lamp?")
    assert "question_answering" in response.tools_run
    assert response.content.startswith("“The storm broke over the lighthouse lamp at night.” [1]")
    assert any("Tiny › BOOK TWO › CHAPTER I › chunk 2" in s for s in response.sources)


def test_summary_lists_the_most_mentioned_people(platform: ChatPlatform) -> None:
    response = _ask(platform, "Give me a summary of the book")
    # mentions by hand: Pierre 5 (c0 ×1 … first occurrence per chunk: c0, c1, c2 → 3), Nicholas 2, Natasha 2
    assert response.content.startswith("Tiny: 2 units, 5 entities. Main characters: Pierre Bezukhov (3)")


def test_hungarian_question_inflected_name_answered_in_hungarian(graph: EmbeddedGraphStore) -> None:
    platform = _platform(graph, "hu")
    response = _ask(platform, "Ki Pierre legközelebbi társa?", lang="hu")
    assert response.content.startswith("Pierre Bezukhov legközelebbi társa Nicholas Rostov: 5 alkalommal")
    assert "Források:" in response.content
    inflected = _ask(platform, "Mit tudsz Natashának a kapcsolatairól?", lang="hu")
    assert inflected.content.startswith("Natasha Rostova legközelebbi társa Pierre Bezukhov")
    question = _ask(platform, "Ki az a Rostov?", lang="hu")
    assert question.content.startswith("Több „Rostov” is van. Melyikre gondolsz?")


def test_r_int_1_entity_tool_passes_the_resolved_entity_as_internal_document(platform: ChatPlatform) -> None:
    tool = platform.container.get("characters")
    result = tool.execute_with_result([], "Who is Natasha?", "en", [], ResponseEmitter(), CollectingCallback())
    assert result.kind is ResultKind.DIRECT_ANSWER
    internal = [d for d in result.documents if isinstance(d, InternalContextDocument)]
    assert [d.to_model(ResolvedEntity).entity_id for d in internal] == ["ent_natasha"]
    assert "ent_natasha" not in (result.answer or "")  # R-INT-2: ids and JSON never reach the user


def test_r_cc_context_search_reads_resolved_entities_from_the_snapshot(platform: ChatPlatform) -> None:
    doc = InternalContextDocument.from_model(
        ResolvedEntity(query="N", entity_id="ent_natasha", canonical_name="Natasha Rostova", label="PERSON"),
        source="resolved_entity")
    snapshot = {"1:characters": (PromptAndContext("q", (doc,), "characters"),)}
    assert [e.canonical_name for e in resolved_entities(snapshot)] == ["Natasha Rostova"]
    assert resolved_entities({}) == []  # R-CC-4: a missing key is normal
    tool = platform.container.get("context_search")
    assert isinstance(tool, EgriCsillagokContextSearchTool)
    result = tool.execute_with_prior_context([], "Who sang?", "en", [], snapshot, ResponseEmitter(),
                                             CollectingCallback())
    assert result.kind is ResultKind.OPTIONAL_CONTEXT
    assert any(d.text.startswith("Natasha sang for Pierre.") for d in result.documents)


def test_r_plug_1_tools_build_without_arguments_and_fail_clearly_before_init() -> None:
    tool = EgriCsillagokCharacterTool()
    with pytest.raises(ToolError, match="set_graph_store"):
        tool.execute_with_result([], "Who is Pierre?", "en", [], ResponseEmitter(), CollectingCallback())
    assert EgriCsillagokRAGTool().get_priority() == 2147483647
    assert EgriCsillagokCharacterTool().get_priority() == 0


def test_r_plug_2_init_wires_every_injected_collaborator(platform: ChatPlatform, graph: EmbeddedGraphStore) -> None:
    tool = platform.container.get("characters")
    assert tool.graph is graph
    assert tool.get_domain() == "tiny"
    assert tool.ner_ingestion_tool is None and tool.assistant is None  # optional, none provided


def _ingestion_tools_wired(graph: EmbeddedGraphStore, domain: DomainSettings) -> dict[str, Any]:
    """Each chat tool's wired ingestion tool, in a platform holding both shipped ingestion tools (as the entry
    points register them)."""
    from ingestion.domains.egri_ingestion import EgriCsillagokNERIngestionTool
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import load_settings

    registry = ToolRegistry(entry_point_group=None)
    for cls in [*TOOLS, GenericNERIngestionTool, EgriCsillagokNERIngestionTool]:
        registry.register(cls)
    services = [domain, *_services(graph, domain.language)[1:], load_settings()]
    platform = ChatPlatform(registry, services=services).start()
    names = [cls.name for cls in TOOLS if cls.name != "book_orchestrator"]
    return {name: platform.container.get(name).ner_ingestion_tool for name in names}


def test_r_plug_2_war_and_peace_configuration_wires_the_generic_ingestion_tool(graph: EmbeddedGraphStore) -> None:
    from ingestion.domains.generic import GenericNERIngestionTool
    from settings.config import PROJECT_ROOT, load_settings

    settings = load_settings(PROJECT_ROOT / "conf" / "domains" / "war_and_peace.toml")
    domain = DomainSettings.from_settings(settings, "war_and_peace")
    assert domain.ingestion_tool == settings.ingestion.tool == "ner_ingestion"
    wired = _ingestion_tools_wired(graph, domain)
    assert all(isinstance(tool, GenericNERIngestionTool) for tool in wired.values()), wired
    assert {tool.get_domain() for tool in wired.values()} <= {None, "war_and_peace"}


def test_r_plug_2_egri_csillagok_keeps_its_own_ingestion_tool(graph: EmbeddedGraphStore) -> None:
    from ingestion.domains.egri_ingestion import EgriCsillagokNERIngestionTool
    from settings.config import load_settings

    domain = DomainSettings.from_settings(load_settings(), "egri_csillagok")
    assert domain.ingestion_tool == "egri_csillagok_ner_ingestion"
    wired = _ingestion_tools_wired(graph, domain)
    assert all(isinstance(tool, EgriCsillagokNERIngestionTool) for tool in wired.values()), wired
    assert {tool.get_domain() for tool in wired.values()} == {"egri_csillagok"}


def test_r_plug_2_ingestion_tool_of_another_domain_is_a_config_error(graph: EmbeddedGraphStore) -> None:
    wrong = DomainSettings.for_domain("war_and_peace", lakehouse=Lakehouse.for_root("lakehouse"),
                                      ingestion_tool="egri_csillagok_ner_ingestion")
    with pytest.raises(ConfigError, match="'egri_csillagok_ner_ingestion' serves domain 'egri_csillagok'"):
        _ingestion_tools_wired(graph, wrong)
    not_ingestion = DomainSettings.for_domain("war_and_peace", lakehouse=Lakehouse.for_root("lakehouse"),
                                                  ingestion_tool="summary")
    with pytest.raises(ConfigError, match="'summary' of domain 'war_and_peace' is not an ingestion tool"):
        _ingestion_tools_wired(graph, not_ingestion)


def test_r_plug_2_unregistered_ingestion_tool_leaves_none_wired(graph: EmbeddedGraphStore,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    domain = DomainSettings.for_domain("war_and_peace", lakehouse=Lakehouse.for_root("lakehouse"),
                                                  ingestion_tool="no_such_tool")
    assert set(_ingestion_tools_wired(graph, domain).values()) == {None}
    assert "'no_such_tool' of domain war_and_peace is not registered" in caplog.text


def test_find_names_skips_question_words_and_splits_runs(graph: EmbeddedGraphStore) -> None:
    names = find_names(graph, "Show Natasha and Pierre Bezukhov")
    assert [n.match.best.entity_id for n in names] == ["ent_natasha", "ent_pierre"]
    assert find_names(graph, "Who wrote this?") == []


def test_detect_intent() -> None:
    assert detect_intent("How are A and B connected?", 2) == "path"
    assert detect_intent("Who is A's closest companion?", 1) == "relations"
    assert detect_intent("Ki A legközelebbi társa?", 1) == "relations"
    assert detect_intent("A chapter by chapter", 1) == "timeline"
    assert detect_intent("Who is A?", 1) == "profile"


def test_choose_option_by_number_name_or_words() -> None:
    options = [["e1", "Nicholas Rostov"], ["e2", "Ilya Rostov"]]
    assert choose_option("2", options) == "e2"
    assert choose_option("Nicholas Rostov", options) == "e1"
    assert choose_option("ilya", options) == "e2"
    assert choose_option("Rostov", options) is None
    assert choose_option("7", options) is None


def test_choose_unit_by_part_number_words_or_position() -> None:
    class U:
        def __init__(self, part: str) -> None:
            self.part_title, self.label = part, f"{part} › CHAPTER I"

    units = [U("BOOK ONE: 1805"), U("BOOK TWO: 1805")]
    assert choose_unit("2", units) is units[1]
    assert choose_unit("I mean book two", units) is units[1]
    assert choose_unit("book one", units) is units[0]
    assert choose_unit("whatever", units) is None


def test_find_names_trusts_a_prefix_only_when_it_covers_most_of_the_name(graph: EmbeddedGraphStore) -> None:
    assert [n.match.best.entity_id for n in find_names(graph, "And Natash?")] == ["ent_natasha"]  # 6 of 7 letters
    assert find_names(graph, "And Nat?") == []  # 3 of 7: too little of the name to be sure
    assert find_names(graph, "Miről szól a könyv?", Analyzer("hu")) == []  # a question word, stemmed to "mi"


def test_openai_compatible_endpoint_writes_the_answer_from_the_question_answering_passages(
    graph: EmbeddedGraphStore,
) -> None:
    from settings.chat import LlmSettings
    from tests.unit.tools.llm_test_server import FakeLlm

    def reply(body: dict[str, Any]) -> str:
        system = body["messages"][0]["content"]
        return "[]" if "route" in system else "A storm broke over the lamp [1]."

    registry = ToolRegistry(entry_point_group=None)
    for cls in TOOLS:
        registry.register(cls)
    with FakeLlm(reply) as llm:
        platform = ChatPlatform(registry, llm_settings=LlmSettings(base_url=llm.base_url, max_retries=0),
                                services=_services(graph, "en")).start()
        emitter = ResponseEmitter()
        response = asyncio.run(platform.handle(ChatRequest("What broke over the lighthouse lamp?", domain="tiny"),
                                               emitter))
        composed = [r for r in llm.requests if "route" not in r["messages"][0]["content"]]
    assert response.content == "A storm broke over the lamp [1]."
    assert emitter.text == response.content  # streamed
    assert "The storm broke over the lighthouse lamp at night." in composed[0]["messages"][1]["content"]
    assert "question_answering" in response.tools_run


def test_domain_tools_without_services_stay_inactive_and_the_platform_still_answers() -> None:
    registry = ToolRegistry(entry_point_group=None)
    for cls in TOOLS:
        registry.register(cls)
    platform = ChatPlatform(registry).start()  # no DomainServices provided
    assert platform.container.disabled == {}
    assert all(getattr(t, "inactive", False) for t in platform.container.tools())
    response = _ask(platform, "Who is Pierre's closest companion?")
    assert response.content == "I found no information about this in the knowledge base."


class _ReaderOnly:
    """A store seen through ``graph.store.GraphReader`` alone: a writer method is not there at all."""

    READER = frozenset(n for n, v in vars(GraphReader).items() if callable(v) and not n.startswith("_"))

    def __init__(self, store: EmbeddedGraphStore) -> None:
        self._store = store
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        if name not in self.READER:
            raise AttributeError(f"{name} is not part of GraphReader")
        self.calls.append(name)
        return getattr(self._store, name)


def test_issue_12_the_chat_side_needs_only_a_graph_reader(graph: EmbeddedGraphStore, platform: ChatPlatform) -> None:
    reader = _ReaderOnly(graph)
    assert isinstance(reader, GraphReader) and not isinstance(reader, GraphWriter)
    registry = ToolRegistry(entry_point_group=None)
    for cls in TOOLS:
        registry.register(cls)
    services = [reader if s is graph else s for s in _services(graph, "en")]
    reading = ChatPlatform(registry, services=services).start()
    for question in ("Who is Pierre's closest companion?", "How are Natasha and Nicholas connected?"):
        assert _ask(reading, question).content == _ask(platform, question).content
    assert {"find_entity", "neighbours", "shortest_path"} <= set(reader.calls)


def test_evidence_excerpt_shows_where_both_companions_are_named() -> None:
    from tools.analysis.common import excerpt

    filler = "The tide came in and went out again while the gulls argued over the quay. " * 6
    text = filler + "At noon Anna Berg met Carl Dahl at the harbour steps. They talked of ships. " + filler
    head = excerpt(text, 160)
    assert "Anna" not in head and head.startswith("The tide")
    focused = excerpt(text, 160, names=[["Anna Berg", "Anna"], ["Carl Dahl", "Carl"]])
    assert focused.startswith("… At noon Anna Berg met Carl Dahl") and focused.endswith(" …")
    assert len(focused) <= 160 + 4
    # Only one of the two named: the window starts at its sentence; neither named: the text's head, as before.
    assert excerpt(text, 160, names=[["Carl"], ["Zoltan"]]).startswith("… At noon Anna Berg met Carl Dahl")
    assert excerpt(text, 160, names=[["Zoltan"]]) == head
    # Whole words only: "Ann" is not found inside "Anna"; a short text is returned whole.
    assert excerpt(text, 160, names=[["Ann"]]) == head
    assert excerpt("Anna met Carl.", 160, names=[["Carl"]]) == "Anna met Carl."


def test_issue_14_a_lone_name_is_answered_with_the_longer_names_that_hold_it() -> None:
    # "Nicholas", a name the entities stage could give to neither Nicholas Rostov nor Nicholas Bolkonski (War and
    # Peace): the answer about it says whom else the book calls so, most mentioned first; a full name gets no such line
    people = {"ent_lone": ("Nicholas", ["Nicholas"], 4), "ent_nr": ("Nicholas Rostov", ["Nicholas Rostov"], 2),
              "ent_nb": ("Nicholas Bolkonski", ["Nicholas Bolkonski"], 3),
              "ent_pierre": ("Pierre Bezukhov", ["Pierre"], 5)}
    text = TEXTS["c0"]
    mentions = [Mention(mention_id=f"m{n}", entity_id=i, chunk_id="c0", doc_id="doc", start=0, end=len(text[:8]),
                        text=aliases[0]) for n, (i, (_, aliases, _)) in enumerate(people.items())]
    data = GraphData(
        entities=[EntityNode(entity_id=i, canonical_name=name, label="PERSON", aliases=aliases, mention_count=n)
                  for i, (name, aliases, n) in people.items()],
        relations=[CoOccurrence(src_id="ent_lone", dst_id="ent_pierre", count=2, weight=0.5, chunk_ids=["c0"],
                                unit_ids=["u1"])],
        documents=[DocumentNode(doc_id="doc", title="Tiny")],
        units=[UnitNode(unit_id="u1", doc_id="doc", unit_index=1, unit_kind="chapter", unit_title="CHAPTER I",
                        part_title="BOOK ONE")],
        chunks=[ChunkNode(chunk_id="c0", doc_id="doc", chunk_index=0, unit_id="u1", start=0, end=len(text),
                          text=text)],
        mentions=mentions,
    )
    platform = _platform(EmbeddedGraphStore.from_graph(data))
    answer = _ask(platform, "Who is Nicholas?").content
    assert answer.startswith("Nicholas (PERSON) is mentioned 4 times"), answer
    assert "The name is also part of these names in the book: Nicholas Bolkonski, Nicholas Rostov." in answer
    assert "also part of" not in _ask(platform, "Who is Pierre Bezukhov?").content
    hungarian = _ask(platform, "Ki az a Nicholas?", lang="hu").content
    assert "A név a könyv ezen neveiben is szerepel: Nicholas Bolkonski, Nicholas Rostov." in hungarian


def test_a_sentence_starting_with_a_lowercase_particle_starts_with_a_capital() -> None:
    from tools.analysis.common import phrase

    line = phrase("en", "profile", name="de Langeron", label="PERSON", mentions=13, units=5, first="CHAPTER XI")
    assert line.startswith("De Langeron (PERSON) is mentioned 13 times")
    assert phrase("en", "closest", name="Pierre", other="de Langeron", count=2, weight=0.5).startswith(
        "Pierre's closest companion is de Langeron")  # inside a sentence the particle stays as the book writes it


def test_find_names_looks_up_no_particle_alone() -> None:
    # "Brom Van Brunt" is not a name the graph knows; its "Van" must not ask which of the Van Tassels is meant
    people = {"ent_brom": ("Brom Bones", ["Brom", "Bones"]), "ent_katrina": ("Katrina Van Tassel", ["Katrina"]),
              "ent_baltus": ("Baltus Van Tassel", ["Baltus"])}
    data = GraphData(entities=[EntityNode(entity_id=i, canonical_name=n, label="PERSON", aliases=al, mention_count=5)
                               for i, (n, al) in people.items()], relations=[], documents=[], units=[], chunks=[],
                     mentions=[])
    small = EmbeddedGraphStore.from_graph(data)
    assert [n.match.best.entity_id for n in find_names(small, "Who is Brom Van Brunt?")] == ["ent_brom"]
    assert [n.match.best.entity_id for n in find_names(small, "Who is Katrina Van Tassel?")] == ["ent_katrina"]
