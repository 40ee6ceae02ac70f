"""Issue 16: Spark reaches an s3a:// lakehouse with the S3A connector and the same settings as delta-rs — whether
csillag builds the session (``get_spark``) or ``spark-submit.sh`` does (``spark_submit_args``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.lakehouse import Lakehouse
from graph.settings import S3Settings
from ingestion.spark import session_conf, spark_submit_args
from settings.config import SparkSettings

S3 = S3Settings(endpoint="http://127.0.0.1:9000", region="eu-west-1", path_style=True)


@pytest.fixture(autouse=True)
def _no_local_jars(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CSILLAG_DELTA_JARS", raising=False)


def test_issue_16_session_for_a_bucket_gets_hadoop_aws_and_the_buckets_settings() -> None:
    storage = Lakehouse.for_root("s3a://lake-bucket/lh", S3)
    conf = session_conf(SparkSettings(master="local[2]"), storage)
    assert conf["spark.jars.packages"] == "io.delta:delta-spark_2.13:4.0.1,org.apache.hadoop:hadoop-aws:3.4.1"
    assert storage.storage_options is not None
    assert conf["spark.hadoop.fs.s3a.endpoint"] == storage.storage_options["AWS_ENDPOINT_URL"]
    assert conf["spark.hadoop.fs.s3a.path.style.access"] == "true"
    assert conf["spark.hadoop.fs.s3a.connection.ssl.enabled"] == "false"


def test_issue_16_session_for_a_folder_is_unchanged(tmp_path: Path) -> None:
    settings = SparkSettings(master="local[2]")
    conf = session_conf(settings, Lakehouse.for_root(tmp_path))
    assert conf == session_conf(settings)
    assert conf["spark.jars.packages"] == "io.delta:delta-spark_2.13:4.0.1"
    assert not any(key.startswith("spark.hadoop.fs.s3a.") for key in conf)


def test_issue_16_spark_submit_args_for_a_bucket_only(tmp_path: Path) -> None:
    settings = SparkSettings()
    assert spark_submit_args(settings, Lakehouse.for_root(tmp_path)) == []
    args = spark_submit_args(settings, Lakehouse.for_root("s3a://lake-bucket/lh", S3))
    assert args[:2] == ["--packages", "io.delta:delta-spark_2.13:4.0.1,org.apache.hadoop:hadoop-aws:3.4.1"]
    pairs = dict(arg.split("=", 1) for arg in args[3::2])
    assert args[2::2] == ["--conf"] * len(pairs)
    assert pairs["spark.hadoop.fs.s3a.endpoint"] == "http://127.0.0.1:9000"
    assert pairs["spark.hadoop.fs.s3a.endpoint.region"] == "eu-west-1"


def test_issue_16_a_clusters_executors_get_the_drivers_bucket_credentials_never_on_the_command_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Executors on other machines start without the driver's environment, where S3A reads the credentials: a
    session for a cluster passes them as ``spark.executorEnv.*`` (local executors share the driver's process)."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "key-id")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "the-secret")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    bucket = Lakehouse.for_root("s3a://lake-bucket/lh", S3)
    cluster = session_conf(SparkSettings(master="spark://127.0.0.1:7077"), bucket)
    assert cluster["spark.executorEnv.AWS_ACCESS_KEY_ID"] == "key-id"
    assert cluster["spark.executorEnv.AWS_SECRET_ACCESS_KEY"] == "the-secret"
    assert "spark.executorEnv.AWS_SESSION_TOKEN" not in cluster  # only what the driver has
    local = session_conf(SparkSettings(master="local[2]"), bucket)
    assert not any(key.startswith("spark.executorEnv.AWS_") for key in local)
    folder = session_conf(SparkSettings(master="spark://127.0.0.1:7077"), Lakehouse.for_root(tmp_path))
    assert not any(key.startswith("spark.executorEnv.AWS_") for key in folder)  # a folder needs none
    # spark-submit's command line (visible to `ps`) never carries them
    assert not any("the-secret" in arg or "key-id" in arg for arg in spark_submit_args(SparkSettings(), bucket))
