"""The local driver JVM's class-data archive: used only when built for this JDK, harmless when stale."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ingestion import jvm_archive
from ingestion.spark import local_jvm_options


def test_archive_options_are_empty_until_the_archive_exists(tmp_path: Path) -> None:
    archive = tmp_path / "driver.jsa"
    assert jvm_archive.archive_options(archive) == ""
    archive.write_bytes(b"x")
    options = jvm_archive.archive_options(archive)
    assert f"-XX:SharedArchiveFile={archive}" in options
    assert "-Xlog:all=warning:stderr" in options  # a mismatch warning must not reach a job's JSON on stdout


def test_local_jvm_options_always_hold_the_jit_and_gc_flags() -> None:
    assert local_jvm_options().startswith(jvm_archive.LOCAL_JVM_OPTIONS)


def test_an_archive_is_current_only_with_its_key(tmp_path: Path) -> None:
    ivy = tmp_path / "ivy"
    (ivy / "jars").mkdir(parents=True)
    archive = tmp_path / "driver.jsa"
    archive.write_bytes(b"x")
    assert not jvm_archive.archive_is_current(ivy, archive)  # no key file
    archive.with_suffix(".key").write_text(jvm_archive.archive_key(ivy) + "\n")
    assert jvm_archive.archive_is_current(ivy, archive)
    (ivy / "jars" / "io.delta_delta-spark_2.13-9.9.9.jar").write_bytes(b"")  # another jar set: rebuild
    assert not jvm_archive.archive_is_current(ivy, archive)


def test_a_stale_archive_only_warns_on_stderr(tmp_path: Path) -> None:
    """The JVM refuses an archive that is not its own and runs on; the flags keep its warning off stdout."""
    garbage = tmp_path / "driver.jsa"
    garbage.write_bytes(b"not an archive" * 100)
    java = str(jvm_archive._java())
    done = subprocess.run(
        [java, *jvm_archive.archive_options(garbage).split(), "-XshowSettings:properties", "-version"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "java.version" in done.stderr


@pytest.mark.skipif(not jvm_archive.ARCHIVE.is_file(), reason="bootstrap.sh has not built the archive here")
def test_the_bootstrapped_archive_is_mapped_by_sparks_driver_jvm() -> None:
    """-Xshare:on makes a JVM that cannot map the archive (another JDK, another class path) fail instead of running
    without it: Spark's own launch of its driver class maps the archive bootstrap.sh built."""
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "SPARK_SUBMIT_OPTS": f"-XX:SharedArchiveFile={jvm_archive.ARCHIVE} -Xshare:on {jvm_archive.LOCAL_JVM_OPTIONS}",
    }
    done = subprocess.run(
        [str(bin_dir / "spark-submit"), "--version"], capture_output=True, text=True, timeout=120, env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "version" in (done.stdout + done.stderr)
