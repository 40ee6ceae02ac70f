"""The Cypher of the Neo4j store: list-shaped load rows line up with their columns; spliced parts are checked."""

from __future__ import annotations

import pytest

from graph import cypher
from graph.model import CoOccurrence, Mention
from graph.neo4j_store import _values


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
