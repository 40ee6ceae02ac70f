"""The Spark session of the batch side, with Delta Lake configured and workers on the right Python.

Delta's jars come from Maven Central through Ivy (``spark.jars.packages``) into a project-local Ivy folder, so the
second run needs no network. A lakehouse in an S3 bucket adds Hadoop's S3A connector (``hadoop-aws`` of pyspark's
Hadoop version, which brings the AWS SDK bundle) and the ``spark.hadoop.fs.s3a.*`` settings made from the same
``lakehouse.s3`` block as delta-rs's and pyarrow's (``graph.storage``). ``spark-submit.sh`` passes the same
configuration on the command line; when a session is already active (under spark-submit) it is reused as it is.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from graph.storage import LakehouseStorage, hdfs_client_made
from ingestion.jvm_archive import LOCAL_JVM_OPTIONS, archive_options
from ingestion.worker_daemon import MODULE as WORKER_DAEMON
from settings.config import PROJECT_ROOT, SparkSettings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

logger = logging.getLogger(__name__)
T = TypeVar("T")

LOG4J_CONF = PROJECT_ROOT / "conf" / "log4j2.properties"
DELTA_CONF = {
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
}
# Why each local default: a laptop-sized driver should not spend its time on 50-way log replays or a web UI.
LOCAL_DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.databricks.delta.snapshotPartitions": "2",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.execution.arrow.maxRecordsPerBatch": "256",
    "spark.python.worker.reuse": "true",
}


def local_jvm_options() -> str:
    """The local driver JVM's flags: ``LOCAL_JVM_OPTIONS`` and, once bootstrap built it, the class-data archive
    that saves ~5 s of every cold start (``ingestion.jvm_archive``)."""
    return f"{LOCAL_JVM_OPTIONS} {archive_options()}".strip()


def default_ivy_dir() -> Path:
    """The project-local Ivy cache that keeps the Delta jars between runs."""
    return PROJECT_ROOT / ".cache" / "ivy"


def _workers_can_import_csillag() -> bool:
    """Whether the local workers' Python is this one and has csillag installed (the daemon must import it)."""
    from importlib.metadata import PackageNotFoundError, distribution

    # Paths, not their targets: a venv's python links to a base interpreter that lacks the venv's packages.
    if os.path.abspath(os.environ.get("PYSPARK_PYTHON", sys.executable)) != os.path.abspath(sys.executable):
        return False
    try:
        distribution("csillag")
    except PackageNotFoundError:
        return False
    return True


def get_spark(settings: SparkSettings, storage: LakehouseStorage | None = None) -> SparkSession:
    """Return the active session (spark-submit made one) or build one from the settings.

    Workers run on this interpreter (``PYSPARK_PYTHON``), since a system Python lacks our packages. ``storage``:
    the lakehouse's; a bucket adds the S3A connector and its settings.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    # Loopback unless told otherwise: a local session must not listen on the machine's other interfaces.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if os.environ.get("PYSPARK_GATEWAY_PORT"):
        # Launched by spark-submit: its --master, --packages and properties file rule; setting them here would
        # silently override the submitter's choices (e.g. run locally when a cluster was asked for).
        logger.info("starting Spark session under spark-submit")
        builder = SparkSession.builder.appName(settings.app_name)
        for key, value in executor_credentials(storage).items():
            builder = builder.config(key, value)
        return builder.getOrCreate()
    if hdfs_client_made():
        # pyspark launches the JVM with Popen(preexec_fn=…), which may hang once hdfs-native's threads run
        logger.warning("starting Spark after an HDFS client: start Spark first in a process that uses hdfs:// roots")
    builder = SparkSession.builder.master(settings.master).appName(settings.app_name)
    for key, value in session_conf(settings, storage).items():
        builder = builder.config(key, value)
    logger.info("starting Spark session master=%s", settings.master)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("WARN")
    return session


def session_conf(settings: SparkSettings, storage: LakehouseStorage | None = None) -> dict[str, str]:
    """The configuration of a session ``get_spark`` builds: Delta, the local defaults, and for a lakehouse in a
    bucket the S3A connector and its ``spark.hadoop.fs.s3a.*`` settings."""
    local = settings.master.startswith("local")
    conf = {
        **LOCAL_DEFAULTS,
        **DELTA_CONF,
        "spark.driver.memory": settings.driver_memory,
        "spark.sql.shuffle.partitions": str(settings.shuffle_partitions),
        "spark.jars.ivy": str(settings.ivy_dir or default_ivy_dir()),
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{LOG4J_CONF}"
        + (f" {local_jvm_options()}" if local else ""),
        # Local workers run on this interpreter, where csillag is importable before any task starts: the daemon that
        # preloads the NER pipeline can fork them (a cluster's executors may not have csillag installed).
        **({"spark.python.daemon.module": WORKER_DAEMON} if local and _workers_can_import_csillag() else {}),
        **(storage.spark_conf() if storage is not None else {}),
        **({} if local else executor_credentials(storage)),
        **settings.extra_conf,
    }
    remote = storage is not None and storage.is_s3  # HDFS needs no connector: Spark's Hadoop client speaks hdfs://
    jars_dir = os.environ.get("CSILLAG_DELTA_JARS")
    if jars_dir:  # jars fetched by `mvn dependency:copy` when Ivy cannot reach the registry (with hadoop-aws for S3)
        conf["spark.jars"] = ",".join(str(p) for p in sorted(Path(jars_dir).glob("*.jar")))
    else:
        conf["spark.jars.packages"] = settings.delta_package + (f",{settings.s3_package}" if remote else "")
    return conf


# The credentials S3A reads from the environment (``LakehouseStorage.spark_conf``), which a cluster's executors
# do not share with the driver.
CREDENTIAL_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")


def executor_credentials(storage: LakehouseStorage | None) -> dict[str, str]:
    """``spark.executorEnv.*`` for the bucket credentials in the driver's environment: an executor on another machine
    (standalone, YARN, Kubernetes) starts without them, and S3A reads them from its environment.

    Set on the session's configuration, never on spark-submit's command line (which ``ps`` shows); Spark's UI and
    event log redact them (``spark.redaction.regex`` matches "secret" and "token"; a key id is no secret). Nothing
    for a folder, or where the driver has none (executors with their own credentials: an instance profile).
    """
    if storage is None or not storage.is_s3:
        return {}
    return {f"spark.executorEnv.{name}": os.environ[name] for name in CREDENTIAL_VARIABLES if os.environ.get(name)}


def spark_submit_args(settings: SparkSettings, storage: LakehouseStorage) -> list[str]:
    """The ``spark-submit`` arguments a lakehouse needs at the JVM's start (``spark-submit.sh`` asks for them in its
    check): for a bucket, the S3A connector beside Delta and the ``spark.hadoop.fs.s3a.*`` settings; nothing for a
    folder or an hdfs:// root (Spark's own Hadoop client reads it). Under spark-submit the session is the
    submitter's, so ``get_spark`` cannot add them any more."""
    if not storage.is_s3:
        return []
    args = ["--packages", f"{settings.delta_package},{settings.s3_package}"]
    for key, value in storage.spark_conf().items():
        args += ["--conf", f"{key}={value}"]
    return args


# Guards every change to a session's worker environment: a thread creating a job (the NER workers' early start)
# and the pipeline entering or leaving a stage must not interleave their save-and-restore.
_ENVIRONMENT_LOCK = threading.RLock()


class StartingSession:
    """A Spark session started in a background thread, standing in for it until it is there.

    A local run's JVM takes ~3 s to start; the stages that work in the driver (a small corpus's documents, chunks and
    index: docs/ingestion.md) need none of it, so the run begins them while the JVM starts. Any attribute is the
    session's, waited for (``session()``), so a stage that needs Spark simply waits; the pipeline swaps in the real
    session once it is there (``ready``). A failed start is raised where the session is first needed, as the start
    itself would have raised it.
    """

    def __init__(self, start: Callable[[], SparkSession]) -> None:
        self._start = start
        self._session: SparkSession | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        # worker-environment layers entered while the session was not there: applied, in order, when it comes
        self._layers: list[tuple[dict[str, str], dict[str, str | None]]] = []
        self._thread = threading.Thread(target=self._run, name="spark-start", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            session = self._start()
        except BaseException as exc:  # noqa: BLE001 - kept for the thread that needs the session to raise
            self._error = exc
            self._done.set()
            return
        with _ENVIRONMENT_LOCK:
            environment = session.sparkContext.environment
            for variables, saved in self._layers:
                saved.update({key: environment.get(key) for key in variables})
                environment.update(variables)
            self._session = session
            self._done.set()

    @property
    def ready(self) -> bool:
        """Whether the start has ended (with a session or with an error): ``session()`` no longer waits."""
        return self._done.is_set()

    def session(self) -> SparkSession:
        """The session, waited for; the start's error if it failed."""
        if not self._done.is_set():
            began = time.perf_counter()
            self._done.wait()
            logger.info("waited %.1f s for Spark to start", time.perf_counter() - began)
        if self._error is not None:
            raise self._error
        assert self._session is not None
        return self._session

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and friends ask for these: they are not the session's to answer
            raise AttributeError(name)
        return getattr(self.session(), name)

    @contextmanager
    def worker_environment(self, variables: Mapping[str, str]) -> Iterator[None]:
        """``python_worker_environment`` for a session perhaps still starting: recorded, applied when it comes."""
        with _ENVIRONMENT_LOCK:
            if self._session is not None or self._error is not None:
                layer = None
            else:
                layer = (dict(variables), {})
                self._layers.append(layer)
        if layer is None:
            with python_worker_environment(self.session(), variables):
                yield
            return
        try:
            yield
        finally:
            with _ENVIRONMENT_LOCK:
                self._layers.remove(layer)
                if self._session is not None:  # it came meanwhile: undo what _run applied
                    _restore(self._session.sparkContext.environment, layer[1])


def real_session(spark: SparkSession | StartingSession) -> SparkSession:
    """The session itself (waited for if it is still starting)."""
    return spark.session() if isinstance(spark, StartingSession) else spark


@contextmanager
def python_worker_environment(spark: SparkSession | StartingSession, variables: Mapping[str, str]) -> Iterator[None]:
    """Add ``variables`` to the environment of the Python workers of the jobs created inside; restore it after.

    pyspark copies ``SparkContext.environment`` into each Python function when the function is created (e.g. by
    ``mapInPandas``), and Spark starts the daemon of a function's workers with that environment. A session still
    starting is not waited for: the variables are applied when it comes.
    """
    if isinstance(spark, StartingSession):
        with spark.worker_environment(variables):
            yield
        return
    with _ENVIRONMENT_LOCK:
        environment = spark.sparkContext.environment
        saved = {key: environment.get(key) for key in variables}
        environment.update(variables)
    try:
        yield
    finally:
        with _ENVIRONMENT_LOCK:
            _restore(environment, saved)


def made_with_environment(spark: SparkSession, variables: Mapping[str, str], make: Callable[[], T]) -> T:
    """``make()`` (which creates a job) with ``variables`` in the workers' environment, from a thread of its own:
    no other thread's change of the environment comes between (the pipeline's, entering or leaving a stage)."""
    with _ENVIRONMENT_LOCK, python_worker_environment(spark, variables):
        return make()


def _restore(environment: dict[str, str], saved: Mapping[str, str | None]) -> None:
    for key, value in saved.items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
