"""``graph.lakehouse``: one lakehouse root named for every engine, and the small-file protocol on a folder and in S3."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.errors import StorageError
from graph.lakehouse import Lakehouse
from graph.settings import S3Settings


def test_issue_16_a_local_root_keeps_its_paths(tmp_path: Path) -> None:
    for root in (tmp_path / "lake", f"file://{tmp_path}/lake"):
        storage = Lakehouse.for_root(root)
        assert storage.is_local and storage.storage_options is None and storage.spark_conf() == {}
        assert storage.delta_uri("chunks") == storage.spark_uri("chunks") == str(tmp_path / "lake" / "chunks")


def test_issue_16_one_settings_block_feeds_spark_delta_rs_and_pyarrow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "key-id")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    s3 = S3Settings(endpoint="http://127.0.0.1:9000/", region="eu-central-1", path_style=True)
    storage = Lakehouse.for_root("s3a://my-bucket/libraries/lh/", s3)
    assert storage.spark_uri("chunks") == "s3a://my-bucket/libraries/lh/chunks"
    assert storage.delta_uri("chunks") == "s3://my-bucket/libraries/lh/chunks"
    assert storage.fs_path("_index") == "my-bucket/libraries/lh/_index"
    options, conf = storage.storage_options, storage.spark_conf()
    assert options is not None
    assert options["AWS_ENDPOINT_URL"] == conf["spark.hadoop.fs.s3a.endpoint"] == "http://127.0.0.1:9000"
    assert options["AWS_REGION"] == conf["spark.hadoop.fs.s3a.endpoint.region"] == "eu-central-1"
    assert options["AWS_VIRTUAL_HOSTED_STYLE_REQUEST"] == "false" and conf["spark.hadoop.fs.s3a.path.style.access"]
    assert conf["spark.hadoop.fs.s3a.connection.ssl.enabled"] == "false" and options["AWS_ALLOW_HTTP"] == "true"
    # the secret reaches delta-rs from the environment, and never Spark's configuration (logged, shown in its UI)
    assert options["AWS_SECRET_ACCESS_KEY"] == "secret" and "secret" not in conf.values()
    assert Lakehouse.for_root("s3://my-bucket/libraries/lh", s3) == storage


@pytest.mark.parametrize(
    ("root", "named"),
    [("abfss://c@a.dfs/lh", "abfss://c@a.dfs/lh"), ("s3a://B/lh", "'B'"), ("gs://bucket/lh", "gs://bucket/lh")],
)
def test_issue_16_an_unsupported_root_is_refused_naming_it(root: str, named: str) -> None:
    with pytest.raises(ValueError, match=named.replace("/", "/")):
        Lakehouse.for_root(root)


def test_a_lakehouse_is_one_hashable_value_whatever_the_root_was_written_as(tmp_path: Path) -> None:
    s3 = S3Settings(endpoint="http://127.0.0.1:9000", path_style=True)
    folder = {Lakehouse.for_root(tmp_path / "lake"), Lakehouse.for_root(f"file://{tmp_path}/lake")}
    bucket = {Lakehouse.for_root("s3a://b-1/lh/", s3), Lakehouse.for_root("s3://b-1/lh", s3)}
    assert len(folder) == len(bucket) == 1
    assert Lakehouse.for_root("s3a://b-1/lh", s3) != Lakehouse.for_root("s3a://b-1/lh")  # another store
    assert str(Lakehouse.for_root("s3a://b-1/lh", s3)) == "s3a://b-1/lh" and str(*folder) == str(tmp_path / "lake")
    with pytest.raises(AttributeError):
        next(iter(folder)).backend = next(iter(bucket)).backend  # type: ignore[misc]  # frozen
    # what errors name: a folder as the Path it is (resolved), anything else by its URI
    assert next(iter(folder)).location == (tmp_path / "lake").resolve()
    assert Lakehouse.for_root("hdfs://nn:8020/lh").location == "hdfs://nn:8020/lh"


@pytest.mark.s3
def test_issue_16_s3_small_files_are_written_once_and_read_back(s3_bucket: tuple[str, S3Settings]) -> None:
    bucket, s3 = s3_bucket
    storage = Lakehouse.for_root(f"s3a://{bucket}/lh", s3)
    storage.check_writable()
    assert storage.read_text("_markers", "documents", "_SUCCESS") is None
    assert not storage.is_dir("_markers")
    storage.write_text("_markers", "documents", "_SUCCESS", data='{"stage": "documents"}')
    storage.write_text("_markers", "chunks", "_SUCCESS", data="{}")
    assert storage.read_text("_markers", "documents", "_SUCCESS") == '{"stage": "documents"}'
    assert storage.is_dir("_markers") and storage.list_dirs("_markers") == ["chunks", "documents"]
    assert storage.delete("_markers", "chunks", "_SUCCESS")
    assert storage.list_dirs("_markers") == ["documents"]


@pytest.mark.s3
def test_issue_16_s3_conditional_create_and_replace(s3_bucket: tuple[str, S3Settings]) -> None:
    bucket, s3 = s3_bucket
    storage = Lakehouse.for_root(f"s3a://{bucket}/lh", s3)
    first = storage.create_text("_lock.json", data="run A")
    assert first is not None
    assert storage.create_text("_lock.json", data="run B") is None  # If-None-Match: * — exactly one create wins
    assert storage.read_text("_lock.json") == "run A"
    taken = storage.replace_text("_lock.json", data="run C", tag=first)
    assert taken is not None and storage.read_text("_lock.json") == "run C"
    # a second take-over with the ETag it read before C's: refused, C's lock stays
    assert storage.replace_text("_lock.json", data="run D", tag=first) is None
    assert not storage.delete("_lock.json", tag=first)
    assert storage.read_text("_lock.json") == "run C"
    assert storage.delete("_lock.json", tag=taken) and storage.read_text("_lock.json") is None


@pytest.mark.s3
def test_issue_16_an_unreachable_bucket_is_named(s3_bucket: tuple[str, S3Settings]) -> None:
    _, s3 = s3_bucket
    storage = Lakehouse.for_root("s3a://no-such-bucket-here/lh", s3)
    with pytest.raises(StorageError, match="s3a://no-such-bucket-here/lh"):
        storage.check_writable()


def test_issue_16_a_folder_keeps_its_atomic_writes(tmp_path: Path) -> None:
    storage = Lakehouse.for_root(tmp_path / "lake")
    storage.write_text("_markers", "chunks", "_SUCCESS", data="{}")
    assert (tmp_path / "lake" / "_markers" / "chunks" / "_SUCCESS").read_text() == "{}"
    assert [p.name for p in (tmp_path / "lake" / "_markers" / "chunks").iterdir()] == ["_SUCCESS"]  # no temp left
    assert storage.list_dirs("_markers") == ["chunks"] and storage.is_dir("_markers")
    assert storage.delete("_markers", "chunks", "_SUCCESS")
    assert storage.read_text("_markers", "chunks", "_SUCCESS") is None


def test_a_folder_has_the_object_stores_conditional_writes(tmp_path: Path) -> None:
    storage = Lakehouse.for_root(tmp_path / "lake")
    storage.check_writable()
    first = storage.create_text("_lock.json", data="run A")
    assert first is not None
    assert storage.create_text("_lock.json", data="run B") is None  # link(2): exactly one create wins
    assert storage.read_tagged("_lock.json") == ("run A", first)
    taken = storage.replace_text("_lock.json", data="run C", tag=first)
    assert taken is not None and storage.read_text("_lock.json") == "run C"
    # a second take-over with the tag read before C's: refused, and C's lock is put back in place
    assert storage.replace_text("_lock.json", data="run D", tag=first) is None
    assert storage.read_text("_lock.json") == "run C"
    assert not storage.delete("_lock.json", tag=first)
    assert storage.delete("_lock.json", tag=taken) and storage.read_text("_lock.json") is None
    assert storage.replace_text("_lock.json", data="run E", tag=taken) is None  # gone: nothing to replace
    assert sorted(p.name for p in (tmp_path / "lake").iterdir()) == []  # no temp or aside file left


@pytest.mark.s3
def test_issue_16_a_bucket_table_is_read_with_pyarrows_own_s3_filesystem(s3_bucket: tuple[str, S3Settings]) -> None:
    # delta-rs commits to the bucket; the snapshot is read by pyarrow's native S3FileSystem (no Python filesystem
    # handler, whose I/O threads can abort the interpreter at exit), from the same settings block
    import pyarrow as pa
    import pyarrow.fs as pafs
    from deltalake import DeltaTable, write_deltalake

    from graph.published import arrow_dataset

    bucket, s3 = s3_bucket
    storage = Lakehouse.for_root(f"s3a://{bucket}/lake", s3)
    data = pa.table({"doc_id": [f"d{i}" for i in range(50)]})
    write_deltalake(storage.delta_uri("documents"), data, storage_options=storage.storage_options)
    write_deltalake(storage.delta_uri("documents"), data.slice(0, 5), mode="append",
                    storage_options=storage.storage_options)
    assert storage.is_table("documents") and storage.list_dirs() == ["documents"]
    dataset = arrow_dataset(DeltaTable(storage.delta_uri("documents"), storage_options=storage.storage_options),
                            storage)
    assert isinstance(dataset.filesystem, pafs.S3FileSystem)
    assert dataset.count_rows() == 55


def test_issue_16_local_cache_dir_is_the_folder_itself_or_one_user_cache_folder_per_bucket_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Lakehouse.for_root(tmp_path / "lake").local_cache_dir() == tmp_path / "lake"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    minio = S3Settings(endpoint="http://127.0.0.1:9000", path_style=True)
    folder = Lakehouse.for_root("s3a://books/lib/lh", minio).local_cache_dir()
    assert folder.parent == tmp_path / "xdg" / "csillag" / "lakehouses" and folder.name.startswith("books-")
    assert Lakehouse.for_root("s3://books/lib/lh/", minio).local_cache_dir() == folder  # the same root
    others = {
        Lakehouse.for_root("s3a://books/lib/other", minio).local_cache_dir(),  # another prefix
        Lakehouse.for_root("s3a://books/lib/lh", S3Settings()).local_cache_dir(),  # the same name on AWS
    }
    assert folder not in others and len(others) == 2
    # a relative XDG_CACHE_HOME is ignored, as the XDG rule says: the default ~/.cache then
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert Lakehouse.for_root("s3a://books/lib/lh", minio).local_cache_dir().parent == (
        tmp_path / "home" / ".cache" / "csillag" / "lakehouses"
    )
