"""Issue 16: the chat side reads a lakehouse in an S3 bucket (moto's S3 API server on 127.0.0.1) as it reads a folder.

A small lakehouse — the graph fixture's tables written with delta-rs, the chat stages' markers — is built in a folder
and copied key for key into a bucket; ``ChatPlatform.from_settings`` over the bucket must load the same book and give
the same answers as over the folder, keep its graph cache and index copies in a local folder (never in the bucket:
a reader's credentials may be read-only), and name the ``s3a://`` root in its one-line errors. The pipeline run into
a bucket and ``csillag ask`` against it are in tests/integration/test_issue_16_s3_pipeline.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from deltalake import write_deltalake

from graph.lakehouse import Lakehouse
from graph.model import GraphData
from graph.settings import S3Settings
from graph.testing.fixtures import frames
from settings.config import load_settings
from tools.analysis.lakehouse import CHAT_STAGES, check_lakehouse
from tools.errors import LakehouseNotReadyError
from tools.platform import ChatPlatform
from tools.request import ChatRequest
from tools.retrieval.bm25 import BM25Index
from tools.retrieval.chunks import ChunkRetriever

pytestmark = pytest.mark.s3

QUESTION = "Who is Nikolai Rostov's closest companion?"


def _small_lakehouse(root: Path) -> Path:
    """The graph fixture's tables and every chat stage's marker under ``root``, its BM25 index built."""
    for table, frame in frames().items():
        write_deltalake(str(root / table), pa.Table.from_pandas(frame, preserve_index=False))
    for stage in CHAT_STAGES:
        marker = root / "_markers" / stage / "_SUCCESS"
        marker.parent.mkdir(parents=True)
        marker.write_text("{}", encoding="utf-8")
    # writes _index/bm25-en-…, as the pipeline's index stage does
    ChunkRetriever.from_lakehouse(Lakehouse.for_root(root), "en")
    return root


def _upload(folder: Path, storage: Lakehouse) -> list[str]:
    """Every file of ``folder`` under the same key in the bucket; the keys."""
    keys = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        parts = path.relative_to(folder).parts
        storage.write_bytes(*parts, data=path.read_bytes())
        keys.append("/".join(parts))
    return keys


def _keys(storage: Lakehouse) -> list[str]:
    client = storage.backend.client()  # type: ignore[attr-defined]  # an S3 root: S3Backend
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=storage.bucket, Prefix=storage.key() + "/")
    return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


@pytest.fixture
def lakes(s3_bucket: tuple[str, S3Settings], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """(the local lakehouse, the bucket's storage holding the same files, its settings' s3 block)."""
    bucket, s3 = s3_bucket
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    local = _small_lakehouse(tmp_path / "lh")
    storage = Lakehouse.for_root(f"s3a://{bucket}/library/lh", s3)
    _upload(local, storage)
    return local, storage, s3


def _answer(platform: ChatPlatform, question: str) -> str:
    return asyncio.run(platform.handle(ChatRequest(question, user_id="t"))).content


def test_issue_16_chat_platform_on_a_bucket_answers_as_on_the_folder(lakes: Any, tmp_path: Path) -> None:
    local, storage, s3 = lakes
    stored = _keys(storage)
    on_disk = ChatPlatform.from_settings(load_settings(lakehouse={"root": local}))
    in_bucket = ChatPlatform.from_settings(load_settings(lakehouse={"root": storage.uri(), "s3": s3}))
    assert on_disk.book is not None and in_bucket.book is not None
    # a generic domain named after the lakehouse's last path segment, in its documents' language
    assert (in_bucket.book.domain.name, in_bucket.book.domain.language) == ("lh", "en") == (
        on_disk.book.domain.name, on_disk.book.domain.language)
    assert in_bucket.book.domain.lakehouse == storage
    assert in_bucket.book.graph.stats() == on_disk.book.graph.stats()
    assert in_bucket.book.retriever.chunks == on_disk.book.retriever.chunks
    answer = _answer(in_bucket, QUESTION)
    assert "Nikolai Rostov" in answer and answer == _answer(on_disk, QUESTION)
    # what the reader derives stays in one local folder per root; the bucket is left as it was
    cache = storage.local_cache_dir()
    assert cache.is_relative_to(tmp_path / "user-cache" / "csillag" / "lakehouses")
    assert len(list((cache / "_cache").glob("graph-*.npz"))) == 1
    assert _keys(storage) == stored


def test_issue_16_bucket_index_is_copied_not_rebuilt_and_the_graph_comes_from_the_local_cache(
    lakes: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    local, storage, s3 = lakes
    settings = load_settings(lakehouse={"root": storage.uri(), "s3": s3})
    first = ChatPlatform.from_settings(settings)
    (index_file,) = (local / "_index").glob("bm25-en-*.npz")
    copy = storage.local_cache_dir() / "_index" / index_file.name
    assert copy.read_bytes() == index_file.read_bytes()  # the index stage's file, fetched from the bucket

    def no_rebuild(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the lakehouse was read again although the local copies are current")

    monkeypatch.setattr(GraphData, "from_lakehouse", classmethod(no_rebuild))
    monkeypatch.setattr(BM25Index, "build", classmethod(no_rebuild))
    second = ChatPlatform.from_settings(settings)
    assert second.book is not None and first.book is not None
    assert second.book.graph.stats() == first.book.graph.stats()
    assert _answer(second, QUESTION) == _answer(first, QUESTION)


def test_issue_16_bucket_without_an_index_builds_it_locally(lakes: Any) -> None:
    _, storage, _ = lakes
    for name in storage.list_files("_index"):
        storage.delete("_index", name)
    retriever = ChunkRetriever.from_lakehouse(storage, "en")
    assert retriever.search("Rostov") and storage.list_files("_index") == []  # nothing written into the bucket
    assert [p.name for p in (storage.local_cache_dir() / "_index").glob("bm25-en-*.npz")]


def test_issue_16_missing_or_half_built_bucket_lakehouse_names_its_uri(
    s3_bucket: tuple[str, S3Settings], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bucket, s3 = s3_bucket
    monkeypatch.chdir(tmp_path)
    storage = Lakehouse.for_root(f"s3a://{bucket}/lh", s3)
    with pytest.raises(LakehouseNotReadyError) as caught:
        check_lakehouse(storage)
    assert str(caught.value) == (f"lakehouse s3a://{bucket}/lh does not exist; ingest a corpus into it first: "
                                 f"csillag ingest PATH… --lakehouse s3a://{bucket}/lh")
    assert caught.value.path == f"s3a://{bucket}/lh"
    storage.write_text("_markers", "documents", "_SUCCESS", data="{}")
    with pytest.raises(LakehouseNotReadyError, match=r"lakehouse s3a://\S+/lh is half-built: stages chunks, "):
        ChatPlatform.from_settings(load_settings(lakehouse={"root": storage.uri(), "s3": s3}))
    assert not list(tmp_path.iterdir())  # no local folder named "s3a:"


def test_issue_16_domain_settings_refuse_a_bucket_uri_as_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pydantic import ValidationError

    from tools.analysis.domain import DomainSettings

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValidationError, match="s3a://bucket/lh is a remote lakehouse root: pass its Lakehouse"):
        DomainSettings(name="lh", language="en", lakehouse="s3a://bucket/lh")  # never the local folder "s3a:/bucket/lh"
    settings = load_settings(lakehouse={"root": "s3a://bucket/lh"})
    assert DomainSettings.from_settings(settings, "war_and_peace").lakehouse == settings.lakehouse.lakehouse()
    assert list(tmp_path.iterdir()) == []
