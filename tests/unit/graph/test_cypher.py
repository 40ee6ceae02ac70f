"""The Cypher of the Neo4j store: list-shaped load rows line up with their columns; spliced parts are checked."""

from __future__ import annotations

import pytest

from graph import cypher, sync
from graph.model import CoOccurrence, Mention
from graph.neo4j_store import _values
from graph.testing.fixtures import changed_graph, small_graph


def test_merge_mentions_reads_each_column_at_its_position() -> None:
    # MENTION_COLUMNS = (mention_id, entity_id, chunk_id, start, end, text) -> positions 0..5
    statement = cypher.MERGE_MENTIONS
    for fragment in ("entity_id: row[1]", "chunk_id: row[2]", "mention_id: row[0]", "m.start = row[3]",
                     "m.end = row[4]", "m.text = row[5]"):
        assert fragment in statement
    assert statement.startswith("UNWIND $rows AS row ") and " MERGE (e)-[m:MENTIONED_IN " in statement


def test_merge_co_occurrences_reads_each_column_at_its_position() -> None:
    # CO_OCCURRENCE_COLUMNS = (src_id, dst_id, count, weight, chunk_ids, unit_ids, window) -> positions 0..6
    statement = cypher.MERGE_CO_OCCURRENCES
    for fragment in ("entity_id: row[0]", "entity_id: row[1]", "r.count = row[2]", "r.weight = row[3]",
                     "r.chunk_ids = row[4]", "r.unit_ids = row[5]", "r.window = row[6]"):
        assert fragment in statement
    assert " MERGE (a)-[r:CO_OCCURS_WITH]->(b) " in statement


def test_values_builds_rows_in_column_order() -> None:
    mention = Mention(mention_id="m1", entity_id="e1", chunk_id="c1", doc_id="d", start=3, end=9, text="Pierre")
    assert _values(mention, cypher.MENTION_COLUMNS) == ["m1", "e1", "c1", 3, 9, "Pierre"]
    pair = CoOccurrence(src_id="a", dst_id="b", count=2, weight=0.5, chunk_ids=["c1"], unit_ids=["u1"])
    assert _values(pair, cypher.CO_OCCURRENCE_COLUMNS) == ["a", "b", 2, 0.5, ["c1"], ["u1"], "sentence"]


def test_schema_no_longer_creates_the_retired_mention_index() -> None:
    assert not any("mentioned_in_id" in statement for statement in cypher.SCHEMA)
    assert cypher.RETIRED_SCHEMA == ("DROP INDEX mentioned_in_id IF EXISTS",)


@pytest.mark.parametrize("bad", [0, 11, -1, 2.0, "3", True])
def test_shortest_path_edges_rejects_a_bad_hop_bound(bad: object) -> None:
    with pytest.raises(ValueError, match="max_hops must be an int in 1..10"):
        cypher.shortest_path_edges(bad)  # type: ignore[arg-type]


def test_shortest_path_edges_splices_only_the_checked_bound() -> None:
    assert "[:CO_OCCURS_WITH*..4]" in cypher.shortest_path_edges(4)
    assert "$a" in cypher.shortest_path_edges(4) and "$b" in cypher.shortest_path_edges(4)


def test_issue_12_no_naive_loader_in_the_product_module() -> None:
    assert not [name for name in vars(cypher) if name.startswith("MERGE_ONE")]


def test_issue_12_node_merges_replace_every_property() -> None:
    # ``SET n = row``: a property the new row lacks (or sets to null) is gone, as after a fresh load
    for statement in (cypher.MERGE_DOCUMENTS, cypher.MERGE_UNITS, cypher.MERGE_CHUNKS, cypher.MERGE_ENTITIES):
        assert " = row " in statement and "+=" not in statement


def test_issue_12_every_kind_has_a_key_query_and_a_delete_by_that_key() -> None:
    assert set(cypher.KEYS) == set(cypher.DELETE) == set(sync.KINDS)
    # the key shapes of graph.sync: [id] for nodes, [src, dst] for pairs, [mention, entity, chunk] for mentions
    assert "RETURN [a.entity_id, b.entity_id] AS key" in cypher.KEYS["relations"]
    assert "RETURN [m.mention_id, e.entity_id, c.chunk_id] AS key" in cypher.KEYS["mentions"]
    for fragment in ("entity_id: row[1]", "mention_id: row[0]", "chunk_id: row[2]"):
        assert fragment in cypher.DELETE["mentions"]
    assert "entity_id: row[0]" in cypher.DELETE["relations"] and "entity_id: row[1]" in cypher.DELETE["relations"]
    for kind in ("documents", "units", "chunks", "entities"):
        assert cypher.DELETE[kind].startswith("UNWIND $rows AS row MATCH") and "DETACH DELETE" in cypher.DELETE[kind]
        assert "row[0]" in cypher.DELETE[kind] and "row[1]" not in cypher.DELETE[kind]


def test_issue_12_sync_diff_keys_mentions_by_their_entity_too() -> None:
    before = sync.graph_keys(small_graph())
    after = sync.graph_keys(changed_graph())
    change = sync.diff(before, after)
    assert change.removed["entities"] == [("ent_12",)]
    assert change.removed["relations"] == [("ent_06", "ent_07")]
    moved = [key for key in change.removed["mentions"] if key[1] == "ent_02"]
    assert len(moved) == 1 and (moved[0][0], "ent_01", moved[0][2]) in after["mentions"]
    assert change.added == {"documents": 0, "units": 0, "chunks": 0, "entities": 0, "relations": 0,
                            "typed_relations": 0, "quotes": 0, "mentions": 1}
    # the engagement rows (both ways) and the quotation at 400 are gone; the one at 80 keeps its key
    assert change.removed["typed_relations"] == [("ent_03", "engaged", "ent_05"), ("ent_05", "engaged", "ent_03")]
    assert change.removed["quotes"] == [("doc_test0000000000:q400",)]
    assert sync.diff(after, after).removed_counts() == dict.fromkeys(sync.KINDS, 0)
