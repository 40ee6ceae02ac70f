"""The Spark session of the batch side, with Delta Lake configured and workers on the right Python.

Delta's jars come from Maven Central through Ivy (``spark.jars.packages``) into a project-local Ivy folder, so the
second run needs no network. A lakehouse in an S3 bucket adds Hadoop's S3A connector (``hadoop-aws`` of pyspark's
Hadoop version, which brings the AWS SDK bundle) and the ``spark.hadoop.fs.s3a.*`` settings made from the same
``lakehouse.s3`` block as delta-rs's and pyarrow's (``graph.lakehouse``). ``spark-submit.sh`` passes the same
configuration on the command line; when a session is already active (under spark-submit) it is reused as it is.
"""

from __future__ import annotations

import atexit
import logging
import os
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from graph.lakehouse import Lakehouse, hdfs_client_made
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


def get_spark(settings: SparkSettings, storage: Lakehouse | None = None) -> SparkSession:
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
    submitted = os.environ.get(SUBMIT_ARGS_VARIABLE)
    if submitted is not None and not os.environ.get("PYSPARK_GATEWAY_PORT"):
        return _launch_as_submitted(settings, storage, submitted)
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


# spark-submit.sh on a local master: its spark-submit options (shell-quoted), for the job that runs in its check's
# process and launches the JVM itself (``get_spark``; the handshake's run-here mode, ``cli.handshake``). Set by the
# script only.
SUBMIT_ARGS_VARIABLE = "CSILLAG_SUBMIT_ARGS"


def local_submit_args(settings: SparkSettings, storage: Lakehouse | None, submitted: str) -> list[str]:
    """The whole ``spark-submit`` command line (after the launcher) of a local run that ``spark-submit.sh`` hands to
    its check's process: what the script would have given ``spark-submit``, in the same order, so that the user's own
    options (the last ones) rule as they do there.

    The script leaves out what this process knows better or later: the driver JVM's flags (the class-data archive is
    mapped only once it exists, and this process may have just built it), the workers' daemon (csillag importable by
    this interpreter) and the lakehouse's connector (``spark_submit_args``, once the settings are read).
    """
    own = ["--driver-java-options", f"-Dlog4j2.configurationFile=file:{LOG4J_CONF} {local_jvm_options()}".strip()]
    if _workers_can_import_csillag():
        own += ["--conf", f"spark.python.daemon.module={WORKER_DAEMON}"]
    own += spark_submit_args(settings, storage) if storage is not None else []
    return [*own, *shlex.split(submitted), "pyspark-shell"]


def _launch_as_submitted(settings: SparkSettings, storage: Lakehouse | None, submitted: str) -> SparkSession:
    """Launch the JVM from this process with ``spark-submit.sh``'s options (``local_submit_args``) and make the
    session as ``spark-submit`` would: the options rule, the builder adds only the app's name.

    This is how a local ``spark-submit.sh`` run hides the JVM's start behind the stages that work in the driver
    (``StartingSession``): one Python process checks, starts the JVM in the background and runs the job, where
    ``spark-submit`` would start the JVM first and the driver's Python after it (docs/ingestion.md). What
    ``bootstrap.sh --jvm-only`` does before a submitted job is done here first (Spark's packages in the Ivy folder,
    the class-data archive), unless ``CSILLAG_NO_BOOTSTRAP=1`` says the machine is prepared.
    """
    from pyspark.sql import SparkSession

    if os.environ.get("CSILLAG_NO_BOOTSTRAP") != "1":
        from ingestion import jvm_archive, packages

        fetched = packages.fetch_packages(settings)  # RuntimeError naming the packages: the start's error
        if fetched:
            logger.info("fetched Spark packages: %s", ", ".join(fetched))
        jvm_archive.main()  # only an optimisation: warns on stderr and goes on when it cannot
    os.environ["PYSPARK_SUBMIT_ARGS"] = shlex.join(local_submit_args(settings, storage, submitted))
    logger.info("starting Spark session with spark-submit.sh's options")
    builder = SparkSession.builder.appName(settings.app_name)
    for key, value in executor_credentials(storage).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def session_conf(settings: SparkSettings, storage: Lakehouse | None = None) -> dict[str, str]:
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


# The credentials S3A reads from the environment (``Lakehouse.spark_conf``), which a cluster's executors
# do not share with the driver.
CREDENTIAL_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")


def executor_credentials(storage: Lakehouse | None) -> dict[str, str]:
    """``spark.executorEnv.*`` for the bucket credentials in the driver's environment: an executor on another machine
    (standalone, YARN, Kubernetes) starts without them, and S3A reads them from its environment.

    Set on the session's configuration, never on spark-submit's command line (which ``ps`` shows); Spark's UI and
    event log redact them (``spark.redaction.regex`` matches "secret" and "token"; a key id is no secret). Nothing
    for a folder, or where the driver has none (executors with their own credentials: an instance profile).
    """
    if storage is None or not storage.is_s3:
        return {}
    return {f"spark.executorEnv.{name}": os.environ[name] for name in CREDENTIAL_VARIABLES if os.environ.get(name)}


def spark_submit_args(settings: SparkSettings, storage: Lakehouse) -> list[str]:
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

    def __init__(self, start: Callable[[], SparkSession], *, eager: bool = True) -> None:
        """``eager``: start now; else on ``begin()`` or when first needed (a run foreseen to need no Spark: a small
        corpus on a local master, every stage in the driver — its JVM would only take a core from them)."""
        self._start = start
        self._session: SparkSession | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        # worker-environment layers entered while the session was not there: applied, in order, when it comes
        self._layers: list[tuple[dict[str, str], dict[str, str | None]]] = []
        self._thread = threading.Thread(target=self._run, name="spark-start", daemon=True)
        self._begun = threading.Lock()
        self.started = False
        if eager:
            self.begin()

    def begin(self) -> None:
        """Start the session in the background, unless it is started already."""
        with self._begun:
            if self.started:
                return
            self.started = True
        self._thread.start()
        atexit.register(self._quiet_if_unfinished)

    def _quiet_if_unfinished(self) -> None:
        """At the process's end, a start still under way is abandoned: the JVM stops when its stdin closes, and a
        SparkContext it was still making then fails on its deleted scratch folders with a page of errors. That run
        needed no Spark (a small corpus, every stage in the driver), so those errors are noise: its logging is
        turned off first. Nothing is lost: no job of this process ran on it."""
        if self._done.is_set():
            return
        from pyspark import SparkContext

        jvm = SparkContext._jvm  # set once the JVM's gateway is up; before that no SparkContext is being made
        if jvm is None:
            return
        try:
            log4j = jvm.org.apache.logging.log4j
            log4j.core.config.Configurator.setAllLevels(log4j.LogManager.getRootLogger().getName(), log4j.Level.OFF)
        except Exception:  # noqa: BLE001 - only silences a shutdown; the process is ending either way
            logger.debug("could not silence the abandoned Spark start", exc_info=True)

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
        """The session, waited for (started now if it was not); the start's error if it failed."""
        if not self._done.is_set():
            if not self.started:
                logger.info("starting Spark: this run needs it after all")
            self.begin()
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


def run_master(spark: SparkSession | StartingSession | None, configured: str) -> str:
    """The master this run's Spark has: the session's own once it is there (spark-submit's ``--master`` rules it),
    else the ``configured`` one (``spark.master``) — asked without waiting for a session still starting."""
    if spark is None:
        return configured
    if isinstance(spark, StartingSession) and not spark.ready and not os.environ.get("PYSPARK_GATEWAY_PORT"):
        return configured  # under spark-submit the session comes at once, and only it knows the master
    try:
        return str(real_session(spark).sparkContext.master)
    except Exception:  # noqa: BLE001 - a failed start: the stage that needs Spark reports it
        return configured


def session_unless(spark: SparkSession | StartingSession, called_off: threading.Event) -> SparkSession | None:
    """The session (waited for if it is still starting), or None once ``called_off`` is set: a thread that only
    prepares work (the NER workers' early start) must not keep a run that turned out to need no Spark waiting for
    the JVM's start at its end."""
    if isinstance(spark, StartingSession):
        while not spark.ready:
            if called_off.wait(0.05):
                return None
    return None if called_off.is_set() else real_session(spark)


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
