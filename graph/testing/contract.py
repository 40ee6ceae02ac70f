"""The graph store contract: one suite, mixin classes over a ``graph_store`` fixture (Haystack's style).

A store's test module subclasses ``GraphStoreContract`` and provides ``graph_store``: a store loaded with
``fixtures.small_graph()`` (function- or module-scoped; the writer tests put the small graph back when they are
done). A third store is checked the same way::

    from graph.testing.contract import GraphStoreContract
    from graph.testing.fixtures import small_graph

    @pytest.fixture
    def graph_store():
        store = MyGraphStore(...)
        store.load(small_graph())
        return store

    class TestMyGraphStore(GraphStoreContract):
        pass

Every expected value below is worked out by hand from the tables in ``fixtures.py``; the working is in the
comments. Ids are written short (``E1`` = ``ent_01``). This module imports pytest: import it from tests only.
"""

# ruff: noqa: D101, D102 - test classes and methods, named for what they check, as under tests/ (exempt there)
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from graph.errors import EntityNotFoundError, GraphStoreError
from graph.store import GraphReader, GraphStore, GraphWriter
from graph.testing.fixtures import CHUNK_IDS, ENTITIES, UNITS, changed_graph, small_graph


def comparable_answer(call: Callable[[], Any]) -> Any:
    """A query's answer in comparable form: the dumped models, or the error's type and message.

    How the integration tests compare the embedded store with Neo4j, query by query.
    """
    try:
        result = call()
    except GraphStoreError as exc:
        return (type(exc).__name__, str(exc))
    if isinstance(result, list):
        return [item.model_dump() for item in result]
    return None if result is None else result.model_dump()


def all_answers(store: GraphReader) -> dict[str, Any]:
    """The answer of every reader query over the small graph's ids and names (and a few unknown ones), by query.

    Two stores (or one store before and after something) hold the same graph when these are equal.
    """
    ids = [e[0] for e in ENTITIES] + ["ent_99"]
    names = [n for e in ENTITIES for n in [e[1], *e[3]]]
    variants = ["rostov", "ROSTOV", "Dobó", "dobo", "Kutusov", "Bolkonski", "Pier", "natasa", "Egri", "zzz", "",
                "Count", "Prince", "mosco", "Istvan", "katica dobo"]
    answers: dict[str, Any] = {}
    for name in names + variants:
        for label in (None, "PERSON", "GPE", "ORG"):
            answers[f"find {name!r} {label}"] = comparable_answer(partial(store.find_entity, name, label=label))
    for a in ids:
        answers[f"get {a}"] = comparable_answer(partial(store.get_entity, a))
        answers[f"neighbours {a}"] = comparable_answer(partial(store.neighbours, a, limit=50))
        answers[f"neighbours3 {a}"] = comparable_answer(partial(store.neighbours, a, limit=3))
        answers[f"mentions {a}"] = comparable_answer(partial(store.mentions, a, limit=50))
        answers[f"mentions2 {a}"] = comparable_answer(partial(store.mentions, a, limit=2))
        answers[f"timeline {a}"] = comparable_answer(partial(store.timeline, a))
        for b in ids:
            for hops in (1, 2, 4):
                answers[f"path {a} {b} {hops}"] = comparable_answer(partial(store.shortest_path, a, b, max_hops=hops))
    for limit in (1, 5, 25):
        for by in ("pagerank", "degree", "mentions"):
            for label in (None, "PERSON", "GPE", "ORG"):
                answers[f"top {by} {label} {limit}"] = comparable_answer(
                    partial(store.top_entities, by=by, label=label, limit=limit)
                )
    for a in ids:
        answers[f"relatives {a}"] = comparable_answer(partial(store.relatives, a))
        answers[f"parents {a}"] = comparable_answer(partial(store.relatives, a, types=["parent"], limit=1))
        answers[f"quotations by {a}"] = comparable_answer(partial(store.quotations, speaker_id=a))
        answers[f"quotations to {a}"] = comparable_answer(partial(store.quotations, addressee_id=a, limit=1))
        for b in ids:
            answers[f"between {a} {b}"] = comparable_answer(partial(store.relations_between, a, b))
    for text in ("moscow", "At last", "MOSCOW, at last!", "las", "", "Katica", "home"):
        answers[f"said {text!r}"] = comparable_answer(partial(store.find_quotations, text))
    answers["quotations"] = comparable_answer(store.quotations)
    answers["stats"] = comparable_answer(store.stats)
    return answers


def E(n: int) -> str:  # noqa: N802 - reads like the E1…E12 of the comments
    """The id of entity ``n`` of the small graph."""
    return f"ent_{n:02d}"


class FindEntityTests:
    def test_find_entity_exact_name(self, graph_store: GraphStore) -> None:
        match = graph_store.find_entity("Natasha Rostova")
        assert match.best is not None and match.best.entity_id == E(3)
        assert match.best.score == 1.0
        assert not match.ambiguous

    def test_find_entity_case_and_accent_insensitive(self, graph_store: GraphStore) -> None:
        # "DOBÓ ISTVÁN" and "dobo istvan" both fold to the key "dobo istvan" of E6; E7's key "dobo katica" shares
        # only "dobo" (no tier: "istvan" is neither a token nor a token prefix, fuzzy < 0.75) -> E6 alone.
        for query in ("DOBÓ ISTVÁN", "dobo istvan", "Dobó  István"):
            match = graph_store.find_entity(query)
            assert match.best is not None and match.best.entity_id == E(6), query
            assert [c.entity_id for c in match.candidates] == [E(6)]
            assert not match.ambiguous

    def test_find_entity_by_accented_alias(self, graph_store: GraphStore) -> None:
        # E4's alias "Bezúkhov" folds to "bezukhov".
        match = graph_store.find_entity("bezukhov")
        assert match.best is not None and match.best.entity_id == E(4)
        assert match.best.matched_key == "bezukhov"

    def test_find_entity_ambiguous_rostov(self, graph_store: GraphStore) -> None:
        # "rostov" is a whole token of E1 ("nikolai rostov"), E2 ("ilya rostov") and E11 ("rostov regiment"):
        # 0.8 + 0.1 * 1/2 = 0.85 each; E3 only has "rostova" starting with it: 0.6 + 0.1 * 1/2 = 0.65.
        # Ties by mention count desc: E1 (8), E2 (3), E11 (2); then E3.
        match = graph_store.find_entity("Rostov")
        assert [c.entity_id for c in match.candidates] == [E(1), E(2), E(11), E(3)]
        assert [c.score for c in match.candidates] == [0.85, 0.85, 0.85, 0.65]
        assert match.ambiguous
        assert match.best is not None and match.best.entity_id == E(1)

    def test_find_entity_label_filter(self, graph_store: GraphStore) -> None:
        match = graph_store.find_entity("Rostov", label="ORG")
        assert [c.entity_id for c in match.candidates] == [E(11)]
        assert not match.ambiguous

    def test_find_entity_limit_cuts_candidates(self, graph_store: GraphStore) -> None:
        match = graph_store.find_entity("Rostov", limit=2)
        assert [c.entity_id for c in match.candidates] == [E(1), E(2)]
        assert match.ambiguous

    def test_find_entity_ambiguous_dobo(self, graph_store: GraphStore) -> None:
        # "dobo" is a token of "dobo istvan" (E6) and "dobo katica" (E7): 0.85 each, 2 mentions each -> id order.
        match = graph_store.find_entity("Dobó")
        assert [c.entity_id for c in match.candidates] == [E(6), E(7)]
        assert match.ambiguous

    def test_find_entity_clear_winner_over_fuzzy_rivals(self, graph_store: GraphStore) -> None:
        # "rostova" is a token of E3's "natasha rostova" (0.85); E1/E2/E11 only reach it by fuzzy token ratio
        # ("rostova" vs "rostov": 12/13 = 0.923 -> 0.6 * 0.923 = 0.554), far below: not ambiguous.
        match = graph_store.find_entity("Rostova")
        assert match.best is not None and match.best.entity_id == E(3)
        assert not match.ambiguous
        assert match.candidates[1].score < 0.6

    def test_find_entity_typo(self, graph_store: GraphStore) -> None:
        # "kutusov" vs "kutuzov": difflib matches "kutu" + "ov" = 6 of 7+7 chars -> 12/14 = 0.857 -> 0.514.
        match = graph_store.find_entity("Kutusov")
        assert match.best is not None and match.best.entity_id == E(10)
        assert match.best.score == pytest.approx(0.6 * 12 / 14, abs=1e-6)

    def test_find_entity_unknown_raises_with_query(self, graph_store: GraphStore) -> None:
        with pytest.raises(EntityNotFoundError) as caught:
            graph_store.find_entity("Zxqwv")
        assert caught.value.query == "Zxqwv"
        assert "Zxqwv" in str(caught.value)


class EntityTests:
    def test_get_entity_returns_the_node(self, graph_store: GraphStore) -> None:
        entity = graph_store.get_entity(E(1))
        assert entity.canonical_name == "Nikolai Rostov"
        assert entity.aliases == ["Nikolai", "Nicholas Rostov"]
        # E1 meets E2, E3, E4, E5, E8, E10, E11: degree 7, weight .5+.4+.2+.1+.25+.4+.25 = 2.1
        assert (entity.degree, entity.mention_count, entity.community) == (7, 8, 0)
        assert entity.weighted_degree == pytest.approx(2.1)
        assert (entity.first_chunk_id, entity.last_chunk_id) == (CHUNK_IDS[0], CHUNK_IDS[7])

    def test_get_entity_unknown_id_raises(self, graph_store: GraphStore) -> None:
        with pytest.raises(EntityNotFoundError) as caught:
            graph_store.get_entity("ent_99")
        assert caught.value.query == "ent_99"

    def test_top_entities_by_pagerank(self, graph_store: GraphStore) -> None:
        # pagerank: E1 .20, E3 .11, E4 .10, E2 = E5 .09 (id order)
        top = graph_store.top_entities(by="pagerank", limit=5)
        assert [e.entity_id for e in top] == [E(1), E(3), E(4), E(2), E(5)]

    def test_top_entities_by_degree(self, graph_store: GraphStore) -> None:
        # degree: E1 7; then E2, E3, E4, E5, E8, E10 with 4 each (id order)
        top = graph_store.top_entities(by="degree", limit=4)
        assert [e.entity_id for e in top] == [E(1), E(2), E(3), E(4)]

    def test_top_entities_by_mentions_with_label(self, graph_store: GraphStore) -> None:
        # GPE: Moscow E8 (3), Eger E9 (2), Bogucharovo E12 (1)
        top = graph_store.top_entities(by="mentions", label="GPE")
        assert [e.entity_id for e in top] == [E(8), E(9), E(12)]

    def test_top_entities_unknown_metric_names_the_options(self, graph_store: GraphStore) -> None:
        with pytest.raises(GraphStoreError, match="pagerank, degree, mentions"):
            graph_store.top_entities(by="fame")  # type: ignore[arg-type]


class RelationTests:
    def test_neighbours_ranked_by_weight_then_count(self, graph_store: GraphStore) -> None:
        # E1: E2 .50; E3 .40 (count 3) before E10 .40 (count 2); E8 .25 (2) before E11 .25 (1); E4 .20; E5 .10
        relations = graph_store.neighbours(E(1))
        assert [r.target.entity_id for r in relations] == [E(2), E(3), E(10), E(8), E(11), E(4), E(5)]
        assert all(r.source.entity_id == E(1) for r in relations)
        first = relations[0]
        assert (first.count, first.weight) == (4, 0.5)
        assert first.chunk_ids == [CHUNK_IDS[0], CHUNK_IDS[1], CHUNK_IDS[4]]
        assert first.unit_ids == UNITS

    def test_neighbours_limit(self, graph_store: GraphStore) -> None:
        assert [r.target.entity_id for r in graph_store.neighbours(E(1), limit=3)] == [E(2), E(3), E(10)]

    def test_neighbours_of_isolated_entity_is_empty(self, graph_store: GraphStore) -> None:
        assert graph_store.neighbours(E(12)) == []

    def test_neighbours_seen_from_the_dst_side(self, graph_store: GraphStore) -> None:
        # E9's edges are stored as E6-E9, E7-E9, E9-E10: E6 .60, E7 .30, E10 .05
        relations = graph_store.neighbours(E(9))
        assert [(r.source.entity_id, r.target.entity_id) for r in relations] == [(E(9), E(6)), (E(9), E(7)),
                                                                                 (E(9), E(10))]
        assert relations[0].target.canonical_name == "Dobó István"

    def test_neighbours_unknown_id_raises(self, graph_store: GraphStore) -> None:
        with pytest.raises(EntityNotFoundError):
            graph_store.neighbours("ent_99")

    def test_limit_below_one_is_rejected(self, graph_store: GraphStore) -> None:
        with pytest.raises(GraphStoreError, match="at least 1"):
            graph_store.neighbours(E(1), limit=0)


class PathTests:
    def test_shortest_path_prefers_heavier_path(self, graph_store: GraphStore) -> None:
        # E2 -> E7 needs 4 hops: E2-E1-E10-E9-E7 (.50+.40+.05+.30 = 1.25) or E2-E8-E10-E9-E7 (.25+.10+.05+.30 = .70)
        path = graph_store.shortest_path(E(2), E(7))
        assert path is not None
        assert [e.entity_id for e in path.entities] == [E(2), E(1), E(10), E(9), E(7)]
        assert path.total_weight == pytest.approx(1.25)
        assert [(h.source_id, h.target_id) for h in path.hops] == [
            (E(2), E(1)), (E(1), E(10)), (E(10), E(9)), (E(9), E(7))
        ]

    def test_shortest_path_hops_carry_evidence(self, graph_store: GraphStore) -> None:
        path = graph_store.shortest_path(E(2), E(7))
        assert path is not None
        first = path.hops[0]
        assert first.chunk_ids == [CHUNK_IDS[0], CHUNK_IDS[1], CHUNK_IDS[4]]
        assert [p.chunk_id for p in first.passages] == first.chunk_ids
        assert first.passages[0].text.startswith("Nikolai Rostov rode to Moscow")
        assert first.passages[2].unit_title == "CHAPTER II"
        assert path.hops[2].passages[0].text.startswith("The Rostov Regiment and Kutuzov")

    def test_shortest_path_max_hops(self, graph_store: GraphStore) -> None:
        assert graph_store.shortest_path(E(2), E(7), max_hops=3) is None

    def test_shortest_path_equal_weights_lexical(self, graph_store: GraphStore) -> None:
        # E11 -> E8: E11-E1-E8 (.25+.25) and E11-E2-E8 (.25+.25) weigh the same: lexically smaller ids win
        path = graph_store.shortest_path(E(11), E(8))
        assert path is not None
        assert [e.entity_id for e in path.entities] == [E(11), E(1), E(8)]
        assert path.total_weight == 0.5

    def test_shortest_path_isolated_is_none(self, graph_store: GraphStore) -> None:
        assert graph_store.shortest_path(E(12), E(1)) is None

    def test_shortest_path_to_itself(self, graph_store: GraphStore) -> None:
        path = graph_store.shortest_path(E(3), E(3))
        assert path is not None
        assert [e.entity_id for e in path.entities] == [E(3)] and path.hops == []

    def test_shortest_path_unknown_id_raises(self, graph_store: GraphStore) -> None:
        with pytest.raises(EntityNotFoundError):
            graph_store.shortest_path(E(1), "ent_99")


class PassageTests:
    def test_mentions_in_book_order(self, graph_store: GraphStore) -> None:
        # E3 is mentioned in chunks 1, 2, 3, 5
        passages = graph_store.mentions(E(3))
        assert [p.chunk_id for p in passages] == [CHUNK_IDS[i] for i in (1, 2, 3, 5)]
        assert [[s.text for s in p.mentions] for p in passages] == [
            ["Natasha Rostova"], ["Natasha"], ["Natasha"], ["Natasha"]
        ]
        assert [p.unit_title for p in passages] == ["CHAPTER I"] * 3 + ["CHAPTER II"]

    def test_mentions_offsets_point_into_the_passage(self, graph_store: GraphStore) -> None:
        # chunk 0 mentions E1 twice: "Nikolai Rostov" at its start, then "Nikolai" after "Count Rostov. "
        first = graph_store.mentions(E(1), limit=1)
        assert len(first) == 1
        passage = first[0]
        assert [s.text for s in passage.mentions] == ["Nikolai Rostov", "Nikolai"]
        for span in passage.mentions:
            assert passage.text[span.start - passage.start : span.end - passage.start] == span.text
        assert passage.mentions[0].start == passage.start == 0

    def test_timeline_unit_by_unit(self, graph_store: GraphStore) -> None:
        # E3 mentioned in chunks 1, 2, 3 (unit 0) and 5 (unit 1).
        # unit 0 meetings: E4 in chunks 2, 3 -> 2; E1 in chunk 1 -> 1; E2 in chunk 1 -> 1
        # unit 1 meetings: E1, E4, E5 in chunk 5 -> 1 each
        timeline = graph_store.timeline(E(3))
        assert [(u.unit_id, u.mention_count) for u in timeline] == [(UNITS[0], 3), (UNITS[1], 1)]
        assert [(r.entity_id, r.count) for r in timeline[0].cooccurring] == [(E(4), 2), (E(1), 1), (E(2), 1)]
        assert [(r.entity_id, r.count) for r in timeline[1].cooccurring] == [(E(1), 1), (E(4), 1), (E(5), 1)]
        assert timeline[0].unit_title == "CHAPTER I"

    def test_timeline_of_isolated_entity(self, graph_store: GraphStore) -> None:
        timeline = graph_store.timeline(E(12))
        assert [(u.unit_id, u.mention_count, u.cooccurring) for u in timeline] == [(UNITS[1], 1, [])]


class TypedRelationTests:
    def test_relatives_surest_first(self, graph_store: GraphStore) -> None:
        # rows towards E3: E2 parent .84 (2), E4 spouse .70 (1), E5 engaged .70 (1), E1 sibling .50 (0, inferred);
        # the two at .70 and one statement each go by type: "engaged" before "spouse"
        kin = graph_store.relatives(E(3))
        assert [(k.source.entity_id, k.type) for k in kin] == [(E(2), "parent"), (E(5), "engaged"),
                                                                (E(4), "spouse"), (E(1), "sibling")]
        assert all(k.target.entity_id == E(3) for k in kin)
        assert (kin[0].count, kin[0].confidence, kin[0].chunk_ids) == (2, 0.84, [CHUNK_IDS[1]])
        assert kin[0].source.canonical_name == "Ilya Rostov"
        assert [p.chunk_id for p in kin[0].passages] == [CHUNK_IDS[1]]
        assert kin[0].passages[0].text.startswith("Natasha Rostova laughed")
        assert [k.type for k in graph_store.relatives(E(3), limit=2)] == ["parent", "engaged"]

    def test_relatives_of_some_types_only(self, graph_store: GraphStore) -> None:
        parents = graph_store.relatives(E(3), types=["parent"])
        assert [(k.source.entity_id, k.count) for k in parents] == [(E(2), 2)]
        # E7 is E6's child: E6's relatives are E7 as a child; the row of ent_99, no entity, was never loaded
        assert [(k.source.entity_id, k.type) for k in graph_store.relatives(E(6))] == [(E(7), "child")]
        assert graph_store.relatives(E(1), types=["friend"]) == []

    def test_relatives_unknown_type_names_the_valid_ones(self, graph_store: GraphStore) -> None:
        with pytest.raises(GraphStoreError, match="'aunt'.*grandparent"):
            graph_store.relatives(E(3), types=["aunt"])

    def test_relatives_unknown_id_raises(self, graph_store: GraphStore) -> None:
        with pytest.raises(EntityNotFoundError):
            graph_store.relatives("ent_99")

    def test_relations_between_reads_src_is_the_type_of_dst(self, graph_store: GraphStore) -> None:
        # E1 and E3 are siblings by inference only: no statement (count 0), the evidence of both rows it follows from
        (sibling,) = graph_store.relations_between(E(1), E(3))
        assert (sibling.type, sibling.count, sibling.confidence) == ("sibling", 0, 0.5)
        assert [p.chunk_id for p in sibling.passages] == [CHUNK_IDS[0], CHUNK_IDS[1]]
        assert [k.type for k in graph_store.relations_between(E(3), E(2))] == ["child"]
        assert [k.type for k in graph_store.relations_between(E(2), E(3))] == ["parent"]
        assert graph_store.relations_between(E(1), E(10)) == []


class QuotationTests:
    def test_quotations_by_a_speaker_in_book_order(self, graph_store: GraphStore) -> None:
        said = graph_store.quotations(speaker_id=E(1))
        assert [q.text for q in said] == ["“Moscow at last!”", "“You are laughing at me, Natasha.”"]
        assert [[a.entity_id for a in q.addressees] for q in said] == [[E(2)], [E(3)]]
        assert said[0].speaker is not None and said[0].speaker.canonical_name == "Nikolai Rostov"
        assert [(q.passage.chunk_id, q.attribution) for q in said] == [(CHUNK_IDS[0], "explicit"),
                                                                      (CHUNK_IDS[1], "implicit")]
        assert (said[0].start, said[0].end) == (10, 10 + len("“Moscow at last!”"))
        assert [q.start for q in graph_store.quotations(speaker_id=E(1), limit=1)] == [10]

    def test_quotations_to_an_addressee_keep_only_people_of_the_graph(self, graph_store: GraphStore) -> None:
        # at 130 Natasha to Pierre; at 200 ent_99 (no entity: no speaker) to Pierre and ent_99 (left out)
        heard = graph_store.quotations(addressee_id=E(4))
        assert [(q.start, q.speaker.entity_id if q.speaker else None) for q in heard] == [(130, E(3)), (200, None)]
        assert [a.entity_id for a in heard[1].addressees] == [E(4)]
        assert [q.start for q in graph_store.quotations(speaker_id=E(1), addressee_id=E(3))] == [80]

    def test_quotations_all_in_book_order(self, graph_store: GraphStore) -> None:
        assert [q.start for q in graph_store.quotations()] == [10, 80, 130, 200, 400, 600]

    def test_quotations_unknown_speaker_raises(self, graph_store: GraphStore) -> None:
        with pytest.raises(EntityNotFoundError):
            graph_store.quotations(speaker_id="ent_99")

    def test_find_quotations_by_whole_words_in_a_row(self, graph_store: GraphStore) -> None:
        # normalised texts: "moscow at last" (10), "welcome to moscow pierre" (130), "at last" (200), ...
        assert [q.start for q in graph_store.find_quotations("moscow")] == [10, 130]
        assert [q.start for q in graph_store.find_quotations("MOSCOW, at last!")] == [10]
        assert [q.start for q in graph_store.find_quotations("At last")] == [10, 200]
        assert [q.start for q in graph_store.find_quotations("At last", limit=1)] == [10]
        assert graph_store.find_quotations("las") == []  # a word cut short matches nothing
        assert graph_store.find_quotations("“ !”") == []  # no words at all
        (castle,) = graph_store.find_quotations("hold the castle")
        assert castle.speaker is not None and castle.speaker.entity_id == E(6)
        assert castle.passage.text.startswith("The Rostov Regiment and Kutuzov")


class LifecycleTests:
    def test_stats_counts(self, graph_store: GraphStore) -> None:
        stats = graph_store.stats()
        # mentions per chunk 4+3+4+6+5+5+4+6 = 37; communities 0, 1, 2
        assert (stats.entities, stats.relations, stats.documents, stats.units, stats.chunks, stats.mentions) == (
            12, 20, 1, 2, 8, 37
        )
        assert stats.communities == 3
        assert stats.labels == {"GPE": 3, "ORG": 1, "PERSON": 8}
        # 13 typed rows less the one of ent_99, which is no entity; 6 quotations
        assert (stats.typed_relations, stats.quotations) == (12, 6)

    def test_load_twice_changes_nothing(self, graph_store: GraphStore) -> None:
        before = graph_store.stats()
        report = graph_store.load(small_graph())
        assert (report.entities, report.relations, report.mentions) == (12, 20, 37)
        assert graph_store.stats() == before
        assert [r.target.entity_id for r in graph_store.neighbours(E(9))] == [E(6), E(7), E(10)]

    def test_is_a_graph_store(self, graph_store: GraphStore) -> None:
        assert isinstance(graph_store, GraphStore)
        assert isinstance(graph_store, GraphReader) and isinstance(graph_store, GraphWriter)


class WriterTests:
    """``load`` makes the store hold exactly the new graph: what a changed corpus no longer has is gone."""

    def test_load_of_a_changed_graph_removes_what_is_gone(self, graph_store: GraphStore) -> None:
        try:
            report = graph_store.load(changed_graph())
            # gone: E12 with its one mention, the pair E6-E7, and the key (mention, E2, chunk 0) of the mention now
            # resolved to E1 -- which is the one mention added; the two engagement rows; the quotation at 400
            assert {k: v for k, v in report.removed.items() if v} == {
                "entities": 1, "relations": 1, "mentions": 2, "typed_relations": 2, "quotes": 1
            }
            assert {k: v for k, v in report.added.items() if v} == {"mentions": 1}
            stats = graph_store.stats()
            assert (stats.entities, stats.relations, stats.documents, stats.units, stats.chunks, stats.mentions) == (
                11, 19, 1, 2, 8, 36
            )
            assert stats.labels == {"GPE": 2, "ORG": 1, "PERSON": 8}
            assert (stats.typed_relations, stats.quotations) == (10, 5)
            assert [k.type for k in graph_store.relatives(E(3))] == ["parent", "spouse", "sibling"]
            # the quotation at 80 changed its speaker and addressee, keeping its id
            assert [q.start for q in graph_store.quotations(speaker_id=E(1))] == [10]
            assert [q.start for q in graph_store.quotations(speaker_id=E(3))] == [80, 130]
            assert [q.start for q in graph_store.quotations(addressee_id=E(1))] == [80]
            with pytest.raises(EntityNotFoundError):
                graph_store.get_entity(E(12))
            assert [r.target.entity_id for r in graph_store.neighbours(E(6))] == [E(9)]
            assert [r.target.entity_id for r in graph_store.neighbours(E(7))] == [E(9)]
            assert graph_store.get_entity(E(5)).canonical_name == "Andrei Bolkonski"
            renamed = graph_store.find_entity("Andrei Bolkonski")
            assert renamed.best is not None and (renamed.best.entity_id, renamed.best.score) == (E(5), 1.0)
            # chunk 0 now mentions E1 three times (Nikolai Rostov, Count Rostov, Nikolai) and E2 not at all
            first = graph_store.mentions(E(1), limit=1)[0]
            assert [s.text for s in first.mentions] == ["Nikolai Rostov", "Count Rostov", "Nikolai"]
            assert CHUNK_IDS[0] not in [p.chunk_id for p in graph_store.mentions(E(2))]
        finally:
            graph_store.load(small_graph())
        assert graph_store.stats().mentions == 37  # and back

    def test_load_of_a_changed_graph_equals_a_fresh_load(self, graph_store: GraphStore) -> None:
        try:
            graph_store.load(changed_graph())
            updated = all_answers(graph_store)
            graph_store.clear()
            graph_store.load(changed_graph())
            fresh = all_answers(graph_store)
        finally:
            graph_store.clear()
            graph_store.load(small_graph())
        differing = [key for key in fresh if updated[key] != fresh[key]]
        assert differing == [], f"{len(differing)} of {len(fresh)} answers differ, e.g. {differing[:5]}"


class GraphReaderContract(
    FindEntityTests, EntityTests, RelationTests, PathTests, PassageTests, TypedRelationTests, QuotationTests
):
    """Every query test; subclass it and provide a ``graph_store`` fixture loaded with ``small_graph()``."""


class GraphStoreContract(GraphReaderContract, LifecycleTests, WriterTests):
    """Every test of the contract, queries and loading; subclass it and provide a loaded ``graph_store`` fixture."""
