"""Spark's packages (Delta, Hadoop's S3A connector) fetched into the project's Ivy folder before anything needs them.

Spark resolves ``spark.jars.packages`` at every JVM start, into one Ivy cache. Two JVMs that start together on a machine
that has not fetched the jars yet (the test suite's two workers, two spark-submits started by a scheduler) download
into the same files at once, and Ivy's default cache does not lock them: one JVM can read the other's half-written
jar. ``scripts/bootstrap.sh`` fetches them once, with one JVM, so the demo, the tests and every later run start with
the jars in place and nothing to download. ``python -m ingestion.packages`` does it alone.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ingestion.spark import default_ivy_dir
from settings.config import SparkSettings

logger = logging.getLogger(__name__)


def ivy_jar_name(coordinate: str) -> str:
    """The file Ivy writes under ``<ivy>/jars`` for a ``group:artifact:version`` coordinate."""
    parts = coordinate.split(":")
    if len(parts) != 3 or not all(parts):
        raise ValueError(f"spark package {coordinate!r} is not group:artifact:version")
    group, artifact, version = parts
    return f"{group}_{artifact}-{version}.jar"


def missing_packages(settings: SparkSettings) -> list[str]:
    """The coordinates of Delta and the S3A connector whose jar is not in the Ivy folder yet."""
    jars = (settings.ivy_dir or default_ivy_dir()) / "jars"
    wanted = [settings.delta_package, settings.s3_package]
    return [c for c in wanted if not (jars / ivy_jar_name(c)).is_file()]


def fetch_packages(settings: SparkSettings) -> list[str]:
    """Download the missing packages (and what they depend on) with one ``spark-submit`` of an empty script; returns
    what was fetched. Raises ``RuntimeError`` naming the packages and Spark's last lines when resolution fails."""
    missing = missing_packages(settings)
    if not missing or os.environ.get("CSILLAG_DELTA_JARS"):  # jars given as a folder: nothing to resolve
        return []
    import pyspark

    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    ivy = settings.ivy_dir or default_ivy_dir()
    with tempfile.TemporaryDirectory(prefix="csillag-packages-") as tmp:
        script = Path(tmp) / "nothing.py"
        script.write_text("# spark-submit resolves --packages before it runs this\n")
        env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
        done = subprocess.run(
            [str(submit), "--master", "local[1]", "--packages", ",".join(missing),
             "--conf", f"spark.jars.ivy={ivy}", str(script)],
            capture_output=True, text=True, env=env, timeout=1800,
        )
    if done.returncode != 0 or missing_packages(settings):
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise RuntimeError(f"could not fetch Spark packages {', '.join(missing)} into {ivy}:\n{tail}")
    return missing


def main() -> int:
    """`python -m ingestion.packages`: fetch what is missing; 1 with one line on stderr when it cannot."""
    settings = SparkSettings()
    try:
        fetched = fetch_packages(settings)
    except RuntimeError as error:
        print(f"csillag: {error}", file=sys.stderr)
        return 1
    if fetched:
        print(f"fetched Spark packages: {', '.join(fetched)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
