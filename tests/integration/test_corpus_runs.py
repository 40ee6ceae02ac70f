"""The two real novels through the whole pipeline: Hungarian (blank hu + the domain's gazetteer) and English.

The runs themselves are session fixtures in tests/integration/conftest.py, shared with the tests that query them.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow.compute as pc
import pytest
from deltalake import DeltaTable

from graph.lakehouse import Lakehouse
from tests.conftest import corpus_path
from tests.integration.conftest import run_domain
from tests.unit.ingestion.tables import read

pytestmark = [pytest.mark.spark, pytest.mark.corpus, pytest.mark.integration]


def test_egri_csillagok_hungarian_run(egri_run: SimpleNamespace) -> None:
    assert egri_run.result.status == "succeeded", egri_run.result
    chunks = read(egri_run.lake, "chunks")
    units = chunks.drop_duplicates("unit_id")
    assert (units.unit_kind == "chapter").sum() == 95  # PROVENANCE: 95 chapters in 5 parts
    assert units.part_title.dropna().nunique() == 5
    mentions = read(egri_run.lake, "mentions")
    assert set(mentions.model) == {"hu_nerkor"}  # the gazetteer first, then the shipped Hungarian model (issue 15)
    assert {"PER", "LOC"} <= set(mentions.label)
    # Inflected forms reach their canonical entity: "Gergelyt", "Gergelynek" are Bornemissza Gergely.
    entities = read(egri_run.lake, "entities").set_index("canonical_name")
    gergely = entities.loc["Bornemissza Gergely"]
    assert {"Gergely", "Gergelyt", "Gergelynek"} <= set(gergely.aliases)
    # The most mentioned character, counted here straight from the mention table.
    links = read(egri_run.lake, "mention_entities")
    top_id = links.entity_id.value_counts().idxmax()
    assert entities.reset_index().set_index("entity_id").loc[top_id, "canonical_name"] == "Bornemissza Gergely"


def test_war_and_peace_english_run(war_and_peace_run: SimpleNamespace) -> None:
    assert war_and_peace_run.result.status == "succeeded", war_and_peace_run.result
    docs = read(war_and_peace_run.lake, "documents")
    assert len(docs) == 1
    assert docs.text.iloc[0].lstrip().startswith("An Anonymous Volunteer")  # Gutenberg header stripped
    assert "END OF THIS PROJECT GUTENBERG" not in docs.text.iloc[0]
    units = read(war_and_peace_run.lake, "chunks").drop_duplicates("unit_id")
    assert (units.unit_kind == "chapter").sum() == 365
    entities = read(war_and_peace_run.lake, "entities")
    top = entities.sort_values("mention_count", ascending=False).canonical_name.head(10).tolist()
    assert any("Pierre" in name for name in top), top
    assert any("Natasha" in name for name in top), top


@pytest.mark.parametrize("window", ["turns", "sentence"])
def test_issue_16_cooccurrences_counted_in_the_driver_are_sparks_on_war_and_peace(
    war_and_peace_run: SimpleNamespace, spark: Any, window: str
) -> None:
    # A novel is a small corpus (ingestion.driver_max_chars): its pairs are counted in the driver
    # (cooccurrence_rows). Spark's transform over the same tables must give every row alike, weights included.
    from ingestion.stages.cooccurrences import cooccurrence_pairs, cooccurrence_rows

    lake = war_and_peace_run.lake
    delta = {name: spark.read.format("delta").load(str(lake / name))
             for name in ("mention_entities", "chunks", "entities")}
    # the stage counts names (the quotes stage's pronoun rows count only with ingestion.cooccurrence_references)
    delta["mention_entities"] = delta["mention_entities"].where("kind = 'name'")
    expected = cooccurrence_pairs(delta["mention_entities"], delta["chunks"], delta["entities"], window).toPandas()
    if window == war_and_peace_run.settings.ingestion.cooccurrence_window:
        written = read(lake, "cooccurrences")  # what the run itself wrote
    else:
        counts = read(lake, "entities").set_index("entity_id").mention_count.to_dict()
        names = DeltaTable(str(lake / "mention_entities")).to_pyarrow_table(filters=pc.field("kind") == "name")
        written = cooccurrence_rows(names,
                                    DeltaTable(str(lake / "chunks")).to_pyarrow_table(), counts, window).to_pandas()
    assert len(expected) > 1000  # the novel's pairs, not an empty table
    key = ["src_id", "dst_id"]
    ours = written.sort_values(key).reset_index(drop=True)[list(expected.columns)]
    theirs = expected.sort_values(key).reset_index(drop=True)
    for column in ("chunk_ids", "unit_ids"):
        ours[column], theirs[column] = ours[column].map(list), theirs[column].map(list)
    assert ours.to_dict("records") == theirs.to_dict("records")


def test_issue_16_ner_in_processes_of_the_driver_is_sparks_workers_on_war_and_peace(
    war_and_peace_run: SimpleNamespace, spark: Any, tmp_path: Path
) -> None:
    # On a local master the session's run did its NER in processes it started itself (ingestion.ner_pool). The
    # mentions stage again on a copy of that lakehouse with Spark's Python workers (driver_ner_processes 0) writes
    # the same mentions and the same record of done chunks, row for row.
    report = next(r for r in war_and_peace_run.result.stages if r.stage == "mentions")
    assert report.details["ner_in"] == "processes" and report.details["ner_processes"] >= 1, report.details
    lake = tmp_path / "lake"
    shutil.copytree(war_and_peace_run.lake, lake)
    again = run_domain(spark, "war_and_peace.toml", corpus_path("war_and_peace.txt"), lake,
                       ingestion={"driver_ner_processes": 0}, stages=["mentions"], force=True)
    assert again.result.status == "succeeded", again.result
    assert next(r for r in again.result.stages if r.stage == "mentions").details["ner_in"] == "workers"
    for table, key in (("mentions", ["chunk_id", "start", "end"]), ("mention_chunks", ["chunk_id"])):
        ours = read(war_and_peace_run.lake, table).sort_values(key).reset_index(drop=True)
        theirs = read(lake, table).sort_values(key).reset_index(drop=True)[list(ours.columns)]
        assert len(ours) > 2000
        assert ours.to_dict("records") == theirs.to_dict("records"), table


def test_issue_16_entities_resolved_in_the_driver_are_sparks_on_war_and_peace(
    war_and_peace_run: SimpleNamespace, spark: Any, tmp_path: Path
) -> None:
    # The session's run resolved the novel in the driver (a small corpus: Lakehouse.small_increment). The entities
    # stage again on a copy of that lakehouse with nothing small enough for the driver writes both tables with
    # Spark's jobs: row for row what the driver wrote — surface forms, casing evidence, the carried mentions, counts.
    from ingestion.lakehouse import LakehouseTables

    docs = sorted(read(war_and_peace_run.lake, "documents").doc_id)
    assert LakehouseTables(Lakehouse.for_root(war_and_peace_run.lake), None).small_increment(docs)  # type: ignore[arg-type]
    lake = tmp_path / "lake"
    shutil.copytree(war_and_peace_run.lake, lake)
    again = run_domain(spark, "war_and_peace.toml", corpus_path("war_and_peace.txt"), lake,
                       ingestion={"driver_max_chars": 0}, stages=["entities"], force=True)
    assert again.result.status == "succeeded", again.result
    assert again.settings.ner.alias_table == war_and_peace_run.settings.ner.alias_table  # the same domain
    assert again.settings.ingestion.driver_max_chars == 0  # so Spark's jobs
    for table, key in (("entities", ["entity_id"]), ("mention_entities", ["entity_id", "mention_id"])):
        ours, theirs = read(war_and_peace_run.lake, table), read(lake, table)
        if table == "mention_entities":
            # The entities stage writes the names; the quotes stage's pronoun rows are kept as they were by a rewrite.
            assert (ours.kind != "name").sum() > 0
            kept = [frame[frame.kind != "name"].sort_values(key).reset_index(drop=True) for frame in (ours, theirs)]
            assert kept[0].to_dict("records") == kept[1].to_dict("records")
            ours, theirs = ours[ours.kind == "name"], theirs[theirs.kind == "name"]
        ours = ours.sort_values(key).reset_index(drop=True)
        theirs = theirs.sort_values(key).reset_index(drop=True)[list(ours.columns)]
        if table == "entities":
            ours["aliases"], theirs["aliases"] = ours.aliases.map(list), theirs.aliases.map(list)
            assert len(ours) > 500
        assert ours.to_dict("records") == theirs.to_dict("records"), table
