from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingestion.resolution import ResolvedEntity
from ingestion.resolution_eval import GoldEntity, GoldListError, load_gold, score_against_gold, score_details


def _entity(*aliases: str) -> ResolvedEntity:
    return ResolvedEntity(entity_id="ent_" + aliases[0], canonical_name=aliases[0], label="PERSON", aliases=aliases)


GOLD = {"Pierre Bezukhov": ["Pierre", "Count Bezukhov", "Bezukhov"], "Andrew Bolkonski": ["Prince Andrew", "Andrew"]}


def test_score_perfect_resolution_is_one_one() -> None:
    entities = [_entity("Pierre", "Count Bezukhov", "Bezukhov"), _entity("Prince Andrew", "Andrew")]
    assert score_against_gold(entities, GOLD) == (1.0, 1.0)


def test_score_split_entity_loses_recall_only() -> None:
    # gold pairs among found aliases: P-CB, P-B, CB-B, PA-A = 4; merged: CB-B, PA-A = 2, both right
    entities = [_entity("Pierre"), _entity("Count Bezukhov", "Bezukhov"), _entity("Prince Andrew", "Andrew")]
    assert score_against_gold(entities, GOLD) == (1.0, 0.5)


def test_score_wrong_merge_loses_precision() -> None:
    # found: Pierre, Prince Andrew, Andrew. merged pairs: P-PA, P-A, PA-A (3), right: PA-A (1); gold pairs: PA-A
    entities = [_entity("Pierre", "Prince Andrew", "Andrew")]
    precision, recall = score_against_gold(entities, GOLD)
    assert precision == pytest.approx(1 / 3)
    assert recall == 1.0


def test_score_ignores_aliases_outside_gold_and_gold_aliases_not_found() -> None:
    # "Napoleon" is in no gold entity; "Bezukhov" and "Andrew" were never produced
    entities = [_entity("Pierre", "Count Bezukhov's", "Napoleon"), _entity("Prince Andrew")]
    score = score_details(entities, GOLD)
    assert (score.precision, score.recall) == (1.0, 1.0)
    assert score.found_aliases == 3  # possessive ignored when matching "Count Bezukhov"
    assert (score.predicted_pairs, score.gold_pairs, score.correct_pairs) == (1, 1, 1)


def test_score_empty_denominators_are_one() -> None:
    assert score_against_gold([], GOLD) == (1.0, 1.0)
    assert score_against_gold([_entity("Pierre"), _entity("Andrew")], GOLD) == (1.0, 1.0)


def test_score_reports_wrong_and_missed_pairs() -> None:
    entities = [_entity("Pierre", "Andrew"), _entity("Bezukhov")]
    score = score_details(entities, GOLD)
    assert score.wrong_pairs == (("andrew", "pierre"),)
    assert score.missed_pairs == (("bezukhov", "pierre"),)
    assert (score.precision, score.recall) == (0.0, 0.0)


def test_score_alias_in_two_entities_counts_as_merged_with_both() -> None:
    entities = [_entity("Pierre", "Bezukhov"), _entity("Pierre", "Prince Andrew")]
    score = score_details(entities, GOLD)
    # merged: P-B (right), P-PA (wrong); gold pairs: P-B
    assert (score.correct_pairs, score.predicted_pairs, score.gold_pairs) == (1, 2, 1)


def test_score_rejects_alias_listed_under_two_gold_entities() -> None:
    with pytest.raises(ValueError, match="bolkonski"):
        score_against_gold([], {"Andrew Bolkonski": ["Bolkonski"], "Mary Bolkonskaya": ["Bolkonski"]})


def test_load_gold_reads_entities(tmp_path: Path) -> None:
    path = tmp_path / "gold.json"
    path.write_text(json.dumps({"entities": [{"canonical_name": "Dobó István", "aliases": ["Dobó", "Dobónak"]}]}))
    assert load_gold(path) == [GoldEntity("Dobó István", ("Dobó", "Dobónak"), "PERSON")]


def test_load_gold_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(GoldListError, match=f"cannot read gold list '{missing}'"):
        load_gold(missing)
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps({"entities": [{"canonical_name": "A", "aliases": ["Rostov"]},
                                              {"canonical_name": "B", "aliases": ["Rostov"]}]}))
    with pytest.raises(GoldListError, match=r"twice\.json.*'rostov' is listed under both 'A' and 'B'"):
        load_gold(twice)
    no_list = tmp_path / "no_list.json"
    no_list.write_text(json.dumps([{"canonical_name": "A", "aliases": []}]))
    with pytest.raises(GoldListError, match='no_list.json.*"entities" list'):
        load_gold(no_list)


def test_score_summary_and_details_for_reports() -> None:
    # found: Pierre, Count Bezukhov (2 of the 5 gold aliases); merged together, as gold has them: 1 pair, right
    score = score_details([_entity("Pierre", "Count Bezukhov")], GOLD)
    assert score.summary() == "precision 1.000 recall 1.000 (2/5 gold aliases found)"
    details = score.details("gold.json")
    assert details["path"] == "gold.json" and details["gold_aliases"] == 5 and details["found_aliases"] == 2
    assert json.loads(json.dumps(details)) == details  # marker-ready
