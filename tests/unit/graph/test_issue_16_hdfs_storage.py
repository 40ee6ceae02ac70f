"""Issue 16, item 1: ``lakehouse.root`` may be ``hdfs://`` — ``Lakehouse`` against a real HDFS.

The names each client gets need no cluster; the small files (markers written atomically, the lock created
exclusively, conditional replace and delete, listing) are checked against Hadoop's MiniDFSCluster on 127.0.0.1
(``hdfs_uri``: scripts/hdfs.sh, one per test session), and so are delta-rs's commits and the published reader.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from graph.errors import StorageError
from graph.lakehouse import Lakehouse

# -- names: no cluster needed ------------------------------------------------------------------------------------


def test_issue_16_hdfs_root_names_every_client_the_same_folder() -> None:
    storage = Lakehouse.for_root("hdfs://nn.example:8020/data/lake/")
    assert storage.is_hdfs and not storage.is_local and not storage.is_s3
    assert storage.namenode == "nn.example:8020" and storage.prefix == "data/lake"
    assert storage.uri() == storage.spark_uri() == storage.delta_uri() == "hdfs://nn.example:8020/data/lake"
    assert storage.uri("_markers", "chunks") == "hdfs://nn.example:8020/data/lake/_markers/chunks"
    assert storage.storage_options is None and storage.spark_conf() == {}  # delta-rs and Spark need only the URI
    assert storage.identity == "hdfs://nn.example:8020/data/lake"
    assert storage.local_cache_dir().name.startswith("hdfs-nn.example-8020-")
    assert Lakehouse.for_root("hdfs://nn.example:8020/data/lake") == storage  # the URI says all: no settings to pass
    with pytest.raises(StorageError, match="not on the local file system"):
        storage.path("x")
    with pytest.raises(StorageError, match="libhdfs"):
        storage.filesystem()


@pytest.mark.parametrize(
    ("root", "named"),
    [("hdfs:///lake", "does not name an HDFS NameNode"), ("hdfs://nn:80:80/lake", "does not name an HDFS NameNode"),
     ("hdfs://nn/a/../lake", "'..' is not allowed"), ("hdfs://nn/a/./lake", "'.' is not allowed"),
     ("hdfs://nn//lake", "an empty segment")],  # refused, not folded: what is checked is what the clients get
)
def test_issue_16_hdfs_root_without_a_namenode_or_with_dotdot_is_refused_naming_it(root: str, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        Lakehouse.for_root(root)


def test_issue_16_hdfs_namenode_that_is_not_there_fails_at_once_naming_it() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(StorageError, match=f"cannot reach the HDFS NameNode 127.0.0.1:{port}"):
        Lakehouse.for_root(f"hdfs://127.0.0.1:{port}/lake").check_writable()
    assert time.monotonic() - started < 15  # not hdfs-native's minutes of retries


# -- the small files on a live HDFS ------------------------------------------------------------------------------


@pytest.mark.hdfs
def test_issue_16_hdfs_small_files_are_written_read_listed_and_deleted(hdfs_root: str) -> None:
    storage = Lakehouse.for_root(hdfs_root)
    assert storage.read_text("_markers", "chunks", "_SUCCESS") is None and not storage.is_dir("_markers")
    assert storage.list_files("_markers") == [] and storage.list_dirs() == []
    storage.check_writable()  # creates the root
    storage.write_text("_markers", "chunks", "_SUCCESS", data='{"v": 1}')
    storage.write_text("_markers", "chunks", "_SUCCESS", data='{"v": 2}')  # replaced whole
    storage.write_bytes("_index", "bm25-en-3.npz", data=b"\x00\x01" * 1000)
    assert storage.read_text("_markers", "chunks", "_SUCCESS") == '{"v": 2}'
    assert storage.read_bytes("_index", "bm25-en-3.npz") == b"\x00\x01" * 1000
    assert storage.is_file("_markers", "chunks", "_SUCCESS") and not storage.is_file("_markers", "chunks")
    assert storage.is_dir("_markers", "chunks") and not storage.is_dir("_markers", "chunks", "_SUCCESS")
    assert storage.list_dirs() == ["_index", "_markers"] and storage.list_files() == []
    assert storage.list_dirs("_markers") == ["chunks"] and storage.list_files("_markers", "chunks") == ["_SUCCESS"]
    assert not storage.is_table("chunks")
    assert storage.delete("_index", "bm25-en-3.npz") and storage.read_bytes("_index", "bm25-en-3.npz") is None
    assert storage.delete("_index", "never-there")  # as unlink(missing_ok=True)


@pytest.mark.hdfs
def test_issue_16_hdfs_marker_is_never_seen_half_written(hdfs_root: str) -> None:
    storage = Lakehouse.for_root(hdfs_root)
    size = 3 * 1024 * 1024  # several packets: a reader of a file being written would see a prefix
    contents = [bytes([ord("a") + i]) * size for i in range(6)]
    seen: list[bytes | None] = []
    done = threading.Event()

    def reader() -> None:
        while not done.is_set():
            seen.append(storage.read_bytes("_markers", "mentions", "_SUCCESS"))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for content in contents:
            storage.write_bytes("_markers", "mentions", "_SUCCESS", data=content)
    finally:
        done.set()
        thread.join(60)
    assert len(seen) > 3
    assert all(data is None or data in contents for data in seen), {len(d or b"") for d in seen}
    assert storage.read_bytes("_markers", "mentions", "_SUCCESS") == contents[-1]
    # no temp file left beside it; before the first write, no marker at all
    assert storage.list_files("_markers", "mentions") == ["_SUCCESS"]


@pytest.mark.hdfs
def test_issue_16_hdfs_lock_file_is_created_exactly_once_and_replaced_or_deleted_only_as_read(hdfs_root: str) -> None:
    storage = Lakehouse.for_root(hdfs_root)
    storage.check_writable()
    winners: list[str] = []

    def create(i: int) -> None:
        tag = storage.create_text("_lock.json", data=json.dumps({"run": i}))
        if tag is not None:
            winners.append(str(i))

    threads = [threading.Thread(target=create, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(winners) == 1  # one create succeeded; the others found the name taken
    text, tag = storage.read_tagged("_lock.json") or ("", "")
    assert json.loads(text) == {"run": int(winners[0])}
    assert storage.create_text("_lock.json", data="{}") is None

    # a replace or delete conditional on an old tag changes nothing; on the current one it does
    assert storage.replace_text("_lock.json", data='{"run": "x"}', tag="0" * 64) is None
    assert storage.read_tagged("_lock.json") == (text, tag)
    new_tag = storage.replace_text("_lock.json", data='{"run": "next"}', tag=tag)
    assert new_tag is not None and storage.read_tagged("_lock.json") == ('{"run": "next"}', new_tag)
    assert not storage.delete("_lock.json", tag=tag)  # the old one's tag: the new lock stays
    assert storage.read_text("_lock.json") == '{"run": "next"}'
    assert storage.delete("_lock.json", tag=new_tag) and storage.read_text("_lock.json") is None
    assert not storage.delete("_lock.json", tag=new_tag)
    assert storage.list_files() == []  # nothing moved aside is left behind


@pytest.mark.hdfs
def test_issue_16_hdfs_lakehouse_lock_is_exclusive_and_a_dead_runs_lock_is_taken_over(hdfs_root: str) -> None:
    from ingestion.lock import LakehouseBusyError, LakehouseLock, LockHolder

    storage = Lakehouse.for_root(hdfs_root)
    with LakehouseLock(storage, run_id="first", tool="t") as first:
        assert json.loads(storage.read_text("_lock.json") or "{}")["run_id"] == "first"
        with pytest.raises(LakehouseBusyError, match=f"lakehouse {hdfs_root} is being written by run first"):
            LakehouseLock(storage, run_id="second", tool="t").acquire()
        assert first.held
    assert storage.read_text("_lock.json") is None  # released

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = LockHolder(run_id="killed", tool="t", pid=int(dead.stdout), host=socket.gethostname(),
                       started_at="2026-01-01T00:00:00+00:00", process_start=None)
    assert storage.create_text("_lock.json", data=stale.model_dump_json()) is not None
    with LakehouseLock(storage, run_id="third", tool="t"):
        assert json.loads(storage.read_text("_lock.json") or "{}")["run_id"] == "third"
    assert storage.read_text("_lock.json") is None


@pytest.mark.hdfs
def test_issue_16_hdfs_delta_commits_and_the_published_reader(hdfs_root: str, tmp_path: Path) -> None:
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    from graph.published import arrow_dataset, open_table

    storage = Lakehouse.for_root(hdfs_root)
    uri = storage.delta_uri("chunks")
    write_deltalake(uri, pa.table({"chunk_id": ["a", "b"], "n": [1, 2]}), storage_options=storage.storage_options)
    write_deltalake(uri, pa.table({"chunk_id": ["c"], "n": [3]}), mode="append")
    assert storage.is_table("chunks") and storage.list_dirs() == ["chunks"]
    table = open_table(storage, "chunks")
    assert table.version() == 1
    assert arrow_dataset(table, storage).to_table().sort_by("chunk_id").to_pydict() == {
        "chunk_id": ["a", "b", "c"], "n": [1, 2, 3]}
    assert arrow_dataset(DeltaTable(uri, version=0), storage).count_rows() == 2
    # read the same way in a fresh process, which must exit cleanly (no Arrow thread left at exit)
    code = ("import sys; from graph.lakehouse import Lakehouse as S; from graph.published import arrow_dataset,"
            " open_table; s = S.for_root(sys.argv[1]); print(arrow_dataset(open_table(s, 'chunks'), s).count_rows())")
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", code, hdfs_root], capture_output=True, text=True, timeout=120,
                              cwd=Path(__file__).resolve().parents[3], env={**os.environ, "PYTHONPATH": "."})
        assert done.returncode == 0 and done.stdout.strip() == "3", done.stderr[-2000:]
