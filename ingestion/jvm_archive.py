"""The local driver JVM's class-data archive: Spark's and Delta's classes loaded from a memory-mapped file.

Every stage of a scheduled run, every ``csillag`` command and every API run starts a fresh driver JVM, and a cold
JVM spends seconds loading and verifying the ~20,000 classes of Spark, Delta and Hadoop before it runs anything. A
dynamic AppCDS archive (JDK 13+, ``-XX:ArchiveClassesAtExit``) records those classes once, already parsed and
verified; later JVMs map it and skip the work. Measured on 2 cores (docs/benchmarks.md): one cold ``documents``
stage 25.5 s without it, 20.8 s with it; the whole pipeline on the samples 64.5 s → 57.1 s.

``scripts/bootstrap.sh`` builds it once per JDK, pyspark and jar set (``python -m ingestion.jvm_archive``, about
50 s: one ``documents`` stage on the bundled samples, run with the dump flag), into ``.cache/jvm/driver.jsa``.
Local masters use it when it is there (``spark-submit.sh``, ``ingestion.spark.local_jvm_options``, the Airflow DAG);
a cluster's drivers and executors run elsewhere and never see it. The JVM checks the archive against its own build
and class path and ignores one that does not match, so a stale archive costs only its warning (on stderr, never
stdout, where the jobs' JSON goes).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from settings.config import PROJECT_ROOT

ARCHIVE = PROJECT_ROOT / ".cache" / "jvm" / "driver.jsa"
KEY_FILE = ARCHIVE.with_suffix(".key")
# The JVM's unified logging would print an archive mismatch on stdout, where a job's --json result goes.
ARCHIVE_LOGGING = "-Xlog:disable -Xlog:all=warning:stderr"


def archive_options(archive: Path = ARCHIVE) -> str:
    """The driver JVM flags that map the archive, or "" when it has not been built."""
    return f"-XX:SharedArchiveFile={archive} {ARCHIVE_LOGGING}" if archive.is_file() else ""


# In local mode the driver JVM shares the machine's cores with the Python workers that run spaCy. A JIT that stops
# at C1 and a serial GC spend a fraction of the CPU the defaults do (JIT and GC threads), CPU the NER workers get
# instead: on 2 cores, the mentions stage over War and Peace is ~1 s faster (docs/benchmarks.md). The JVM's own work
# in these jobs (reading and shuffling text, Delta logs) is small, so C2's peak speed buys nothing back.
LOCAL_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def _java() -> Path:
    """The ``java`` Spark's launcher runs: ``$JAVA_HOME/bin/java``, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not found:
        raise RuntimeError("no java on PATH and no JAVA_HOME: Spark needs a JDK 17")
    return Path(os.path.realpath(found))


def archive_key(ivy_dir: Path) -> str:
    """What the archive depends on: the JDK (its path and its class image's size and time, which every update
    changes), pyspark's version, the Ivy jars, the local JVM flags. Cheap: bootstrap.sh runs before every job."""
    from importlib.metadata import version

    java = _java()
    image = java.parent.parent / "lib" / "modules"
    stat = image.stat() if image.is_file() else java.stat()
    jars = sorted(p.name for p in (ivy_dir / "jars").glob("*.jar")) if (ivy_dir / "jars").is_dir() else []
    parts = [str(java), str(stat.st_size), str(stat.st_mtime_ns), version("pyspark"), *jars, LOCAL_JVM_OPTIONS]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def archive_is_current(ivy_dir: Path, archive: Path = ARCHIVE) -> bool:
    """Whether the archive there was built for this JDK, pyspark and jar set."""
    key_file = archive.with_suffix(".key")
    return archive.is_file() and key_file.is_file() and key_file.read_text().strip() == archive_key(ivy_dir)


def ensure_archive(ivy_dir: Path, archive: Path = ARCHIVE) -> bool:
    """Build the archive unless the one there matches this machine; returns whether it built one.

    Raises ``RuntimeError`` with spark-submit's last lines when the dump run fails (the old archive is gone then:
    it did not match, and a JVM without an archive is only slower).
    """
    if archive_is_current(ivy_dir, archive):
        return False
    key = archive_key(ivy_dir)
    key_file = archive.with_suffix(".key")
    archive.unlink(missing_ok=True)
    key_file.unlink(missing_ok=True)
    archive.parent.mkdir(parents=True, exist_ok=True)
    partial = archive.with_name(f".{archive.name}.{os.getpid()}.tmp")
    with tempfile.TemporaryDirectory(prefix="csillag-jvm-archive-") as tmp:
        env = {
            **os.environ,
            "PYSPARK_PYTHON": sys.executable,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")])),
            "SPARK_LOCAL_IP": os.environ.get("SPARK_LOCAL_IP", "127.0.0.1"),
            "CSILLAG_CONFIG": os.environ.get("CSILLAG_CONFIG", str(PROJECT_ROOT / "conf" / "csillag.toml")),
            # Spark's own reading and writing, not the driver's: the archive must hold what a Spark stage loads
            "CSILLAG_INGESTION_DRIVER_MAX_CHARS": "0",
            "SPARK_SUBMIT_OPTS": f"{os.environ.get('SPARK_SUBMIT_OPTS', '')} -XX:ArchiveClassesAtExit={partial}",
        }
        # One real stage, so that the archive holds what a stage loads: Delta's log, Parquet, the Python runner.
        # Through spark-submit itself, with spark-submit.sh's local options: the JVM is then the job's parent and
        # writes the archive before the command returns (spark-submit.sh on a local master runs the job in Python,
        # which starts no JVM for a small corpus, and would not wait for one's exit).
        import pyspark

        from ingestion.spark import LOG4J_CONF as log4j  # noqa: N811 - imported here: ingestion.spark imports this

        submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
        done = subprocess.run(
            [str(submit), "--master", "local[2]",
             "--properties-file", str(PROJECT_ROOT / "conf" / "spark-defaults.conf"),
             "--conf", f"spark.jars.ivy={ivy_dir}", "--conf", f"spark.pyspark.python={sys.executable}",
             "--driver-java-options", f"-Dlog4j2.configurationFile=file:{log4j} {LOCAL_JVM_OPTIONS}",
             str(PROJECT_ROOT / "jobs" / "stage.py"), "documents", str(PROJECT_ROOT / "ingestion" / "samples" / "en"),
             "--lakehouse", str(Path(tmp) / "lakehouse")],
            capture_output=True, text=True, env=env, cwd=tmp, timeout=900, check=False,
        )
    if done.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise RuntimeError(f"could not build the driver JVM's class archive {archive}:\n{tail}")
    os.replace(partial, archive)
    key_file.write_text(key + "\n")
    return True


def main() -> int:
    """``python -m ingestion.jvm_archive``: build the archive if needed. An archive only saves start-up time, so a
    failure is one warning line and exit 0: nothing else depends on it."""
    from ingestion.spark import default_ivy_dir
    from settings.config import SparkSettings

    ivy = SparkSettings().ivy_dir or default_ivy_dir()
    try:
        if archive_is_current(ivy):
            return 0
        print("bootstrap: building the driver JVM's class archive (once per JDK and jar set, about a minute)",
              file=sys.stderr)
        built = ensure_archive(ivy)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
        print(f"csillag: warning: {error}", file=sys.stderr)
        return 0
    if built:
        print(f"bootstrap: built the driver JVM's class archive {ARCHIVE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
