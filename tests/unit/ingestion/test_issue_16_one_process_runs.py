"""Issue 16, item 5: a local run in one process — the JVM only when the run needs it, NER in the driver's processes.

``spark-submit.sh`` on a local master runs the job in its check's Python, which starts the JVM with the script's
options (``ingestion.spark.local_submit_args``); a run foreseen to need no Spark starts none
(``ingestion.startup.SparkStartup.foresee``); the mentions stage's NER runs in processes it starts itself
(``ingestion.ner_pool``). War and Peace through both NER engines is compared in
tests/integration/test_corpus_runs.py; the whole command is run by tests/integration/test_spark_submit.py.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pytest

from graph.lakehouse import Lakehouse
from ingestion.ner_pool import NerPool, local_cores, parts
from ingestion.spark import StartingSession, local_submit_args, session_unless

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("master", "cores"),
    [("local", 1), ("local[3]", 3), ("local[*]", os.cpu_count() or 1), ("local[2, 4]", 2), ("local[4,2]", 4),
     ("spark://127.0.0.1:7077", None), ("yarn", None), ("k8s://https://h:443", None), ("localhost", None)],
)
def test_issue_16_local_cores_of_each_master(master: str, cores: int | None) -> None:
    assert local_cores(master) == cores


def test_issue_16_parts_keep_the_order_and_cut_at_about_the_words_asked() -> None:
    rows = pa.table({"chunk_id": [f"c{i}" for i in range(7)], "n_words": [300, 300, 900, 100, 100, 100, 50]})
    cut = [part.column("chunk_id").to_pylist() for part in parts(rows, words_per_part=600)]
    # 300+300 reach 600; a chunk larger than a part is a part of its own; what is left is the last part
    assert cut == [["c0", "c1"], ["c2"], ["c3", "c4", "c5", "c6"]]
    assert [c for part in cut for c in part] == rows.column("chunk_id").to_pylist()
    assert list(parts(rows.slice(0, 0))) == []


def test_issue_16_the_pools_mentions_are_the_workers_function_over_the_same_rows() -> None:
    # The same rows through the pool (two spawned processes) and through the function Spark's workers run
    # (ner_batches, here in this process) give the same mention rows in the same order.
    import pandas as pd

    from ingestion.nlp import NlpSpec
    from ingestion.stages.mentions import NER_COLUMNS, ner_batches

    spec = NlpSpec(language="en", model="en_core_web_sm")
    texts = ["Pierre met Natasha in Moscow.", "Prince Andrew rode to Austerlitz with Kutuzov.",
             "Nothing here.", "Anna Pavlovna gave a party in Petersburg for Prince Vasili."] * 5
    rows = pa.table({"doc_id": ["d"] * len(texts), "chunk_id": [f"c{i:02}" for i in range(len(texts))],
                     "start": [i * 100 for i in range(len(texts))], "text": texts,
                     "n_words": [len(t.split()) for t in texts]})
    pool = NerPool(2, [spec], words_per_part=20)  # parts of a few chunks: both processes work, the pool keeps order
    try:
        found = pool.mentions(rows, spec, NER_COLUMNS)
    finally:
        pool.close()
    expected = pd.concat(list(ner_batches([rows.select(NER_COLUMNS).to_pandas()], spec=spec)))
    assert len(expected) >= 20
    assert found.reset_index(drop=True).to_dict("records") == expected.reset_index(drop=True).to_dict("records")


def test_issue_16_a_lazy_session_starts_only_when_needed() -> None:
    started = threading.Event()

    def start() -> Any:
        started.set()
        return SimpleNamespace(sparkContext=SimpleNamespace(environment={}, master="local[2]"), name="session")

    lazy = StartingSession(start, eager=False)
    time.sleep(0.2)
    assert not started.is_set() and not lazy.started and not lazy.ready
    called_off = threading.Event()
    threading.Timer(0.2, called_off.set).start()
    assert session_unless(lazy, called_off) is None  # a waiter does not start it, and gives up when called off
    assert not started.is_set()
    assert lazy.name == "session"  # first use starts it
    assert started.is_set() and lazy.started and lazy.ready


def test_issue_16_the_submitted_options_come_last_so_that_the_users_win() -> None:
    from graph.lakehouse import Lakehouse
    from graph.settings import S3Settings
    from settings.config import SparkSettings

    settings = SparkSettings()
    submitted = shlex.join(["--master", "local[2]", "--driver-java-options", "-Dmine=1", "--conf", "a=it's"])
    args = local_submit_args(settings, Lakehouse.for_root("/tmp/lake"), submitted)
    assert args[-1] == "pyspark-shell"
    assert args[-7:-1] == ["--master", "local[2]", "--driver-java-options", "-Dmine=1", "--conf", "a=it's"]
    own = args[args.index("--driver-java-options") + 1]
    assert "log4j2.configurationFile" in own and "-XX:TieredStopAtLevel=1" in own  # the local driver's flags
    assert args.index("--driver-java-options") < len(args) - 7  # before the user's own, which replaces it
    bucket = Lakehouse.for_root("s3a://bucket/lake", S3Settings(endpoint="http://127.0.0.1:9"))
    with_bucket = local_submit_args(settings, bucket, submitted)
    packages = with_bucket[with_bucket.index("--packages") + 1]
    assert settings.s3_package in packages and settings.delta_package in packages


def test_issue_16_a_csillag_pipeline_check_imports_only_the_named_tools_plugin() -> None:
    # Building the ingestion tool loads the entry point of that name alone: not every domain's chat tools (~0.7 s
    # before a run can start); listing the classes still loads them all, and refuses collisions (test_tool_plugins).
    code = (
        "import sys\n"
        "from tools.plugins import ToolRegistry\n"
        "registry = ToolRegistry()\n"
        "assert registry.get_class('ner_ingestion').__name__ == 'GenericNERIngestionTool'\n"
        "assert 'tools.domains.egri_csillagok' not in sys.modules\n"
        "registry.classes()\n"
        "assert 'tools.domains.egri_csillagok' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_issue_16_a_run_foresees_the_bytes_of_the_files_it_will_read(
    pipeline_run: Any, make_settings: Any, tmp_path: Path
) -> None:
    # What SparkStartup.foresee plans with: the input files new or changed since the last complete run (by
    # size and modification time, as the documents stage itself skips them), all with --force, None for inputs
    # that are no plain files.
    from ingestion.lakehouse import LakehouseTables
    from ingestion.stages.documents import DocumentsStage
    from tests.conftest import EN_SAMPLE_FILES

    run = pipeline_run(*EN_SAMPLE_FILES)

    def foreseen(*inputs: Path, force: bool = False) -> int | None:
        lakehouse = LakehouseTables(Lakehouse.for_root(tmp_path / "lake"), None)
        ctx = SimpleNamespace(inputs=[str(p) for p in inputs], lakehouse=lakehouse,
                              force=force, settings=make_settings())
        return DocumentsStage().bytes_to_read(ctx)  # type: ignore[arg-type]

    files = sorted(p for p in run.corpus.iterdir() if p.is_file())
    assert len(files) == 2 and foreseen(run.corpus) == 0
    assert foreseen(run.corpus, force=True) == sum(f.stat().st_size for f in files)
    added = run.corpus / "added.txt"
    added.write_text("Captain Vance met Margaret Hale at the harbour.\n", encoding="utf-8")
    with files[0].open("a", encoding="utf-8") as changed:
        changed.write("One more line.\n")
    assert foreseen(run.corpus) == added.stat().st_size + files[0].stat().st_size
    table = tmp_path / "docs.jsonl"
    table.write_text('{"id": "a", "text": "Some text."}\n', encoding="utf-8")
    assert foreseen(run.corpus, table) is None  # read by Spark's workers beyond the driver's limit: not foreseen


def test_issue_16_a_killed_ner_process_fails_the_batch_with_one_clear_error() -> None:
    # A process that dies (the kernel's OOM killer, a kill -9) must not hang the stage: the batch fails with an
    # error naming what happened and the setting to change; the stage's resume protocol keeps the committed batches.
    import signal

    from ingestion.errors import IngestionError
    from ingestion.nlp import NlpSpec
    from ingestion.stages.mentions import NER_COLUMNS

    spec = NlpSpec(language="en", model="en_core_web_sm")
    rows = pa.table({"doc_id": ["d"], "chunk_id": ["c0"], "start": [0], "text": ["Pierre met Natasha."],
                     "n_words": [3]})
    pool = NerPool(1, [spec])
    try:
        assert len(pool.mentions(rows, spec, NER_COLUMNS)) >= 1  # the process is up and working
        os.kill(next(iter(pool._executor._processes)), signal.SIGKILL)  # noqa: SLF001 - the pool's one process
        deadline = time.monotonic() + 30
        while not pool._executor._broken and time.monotonic() < deadline:  # noqa: SLF001 - noticed by its manager
            time.sleep(0.05)
        with pytest.raises(IngestionError, match=r"NER process .* ended abruptly.*driver_ner_processes"):
            pool.mentions(rows, spec, NER_COLUMNS)
    finally:
        pool.close()
