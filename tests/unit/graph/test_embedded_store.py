"""The ``GraphStore`` contract on the embedded (networkx) store, plus its lakehouse loading and on-disk cache."""

from __future__ import annotations

import dataclasses
import itertools
import pickle
import random
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pyarrow as pa
import pytest
from deltalake import write_deltalake

from graph.cache import cache_name, read_cache, write_cache
from graph.compact import CompactGraph
from graph.embedded import EmbeddedGraphStore
from graph.errors import GraphDataError
from graph.lakehouse import Lakehouse
from graph.model import GraphData
from graph.settings import GraphSettings
from graph.testing.contract import GraphStoreContract
from graph.testing.fixtures import frames, random_graph, small_graph


@pytest.fixture
def graph_store() -> EmbeddedGraphStore:
    return EmbeddedGraphStore.from_graph(small_graph())


class TestEmbeddedGraphStore(GraphStoreContract):
    def test_clear_empties_the_store(self, graph_store: EmbeddedGraphStore) -> None:
        graph_store.clear()
        stats = graph_store.stats()
        assert (stats.entities, stats.relations, stats.chunks, stats.mentions) == (0, 0, 0, 0)


def _write_lakehouse(root: Path) -> None:
    """The small graph's tables as Delta tables under ``root``, written with delta-rs (no JVM)."""
    for table, frame in frames().items():
        write_deltalake(str(root / table), pa.Table.from_pandas(frame, preserve_index=False), mode="overwrite")


def test_embedded_from_settings_reads_the_lakehouse(tmp_path: Path) -> None:
    _write_lakehouse(tmp_path)
    store = EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path), GraphSettings())
    stats = store.stats()
    assert (stats.entities, stats.relations, stats.chunks, stats.mentions) == (12, 20, 8, 37)
    assert [r.target.entity_id for r in store.neighbours("ent_09")] == ["ent_06", "ent_07", "ent_10"]
    assert len(list((tmp_path / "_cache").glob("graph-v5-*.npz"))) == 1


def test_embedded_from_settings_reads_typed_relations_and_quotations(tmp_path: Path) -> None:
    _write_lakehouse(tmp_path)
    store = EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path), GraphSettings())
    assert (store.stats().typed_relations, store.stats().quotations) == (12, 6)  # ent_99's row is no one's
    assert [k.source.entity_id for k in store.relatives("ent_03", types=["parent"])] == ["ent_02"]
    cached = EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path), GraphSettings())
    assert cached.quotations() == store.quotations() and cached.relatives("ent_03") == store.relatives("ent_03")


def test_embedded_from_settings_reads_a_lakehouse_built_before_relations_and_quotes(tmp_path: Path) -> None:
    for table, frame in frames().items():
        if table not in ("relations", "quotes"):
            write_deltalake(str(tmp_path / table), pa.Table.from_pandas(frame, preserve_index=False))
    store = EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path), GraphSettings())
    stats = store.stats()
    assert (stats.entities, stats.relations, stats.typed_relations, stats.quotations) == (12, 20, 0, 0)
    assert store.relatives("ent_03") == [] and store.find_quotations("moscow") == []


def test_embedded_from_settings_uses_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_lakehouse(tmp_path)
    first = EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path))

    def no_read(root: Path) -> None:
        raise AssertionError("the lakehouse was read although the cache is current")

    monkeypatch.setattr(GraphData, "from_lakehouse", classmethod(lambda cls, root: no_read(root)))
    second = EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path))
    assert second.stats() == first.stats()
    assert second.find_entity("Rostov") == first.find_entity("Rostov")
    assert second.timeline("ent_03") == first.timeline("ent_03")


def test_embedded_cache_follows_table_versions(tmp_path: Path) -> None:
    _write_lakehouse(tmp_path)
    EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path))
    old = list((tmp_path / "_cache").glob("graph-*.npz"))
    nodes = frames()["graph_nodes"]
    nodes.loc[nodes["entity_id"] == "ent_12", "canonical_name"] = "Bald Hills"
    write_deltalake(str(tmp_path / "graph_nodes"), pa.Table.from_pandas(nodes, preserve_index=False), mode="overwrite")
    store = EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path))
    assert store.get_entity("ent_12").canonical_name == "Bald Hills"
    new = list((tmp_path / "_cache").glob("graph-*.npz"))
    assert len(new) == 1 and new != old  # the stale file is gone


def test_embedded_cache_dir_setting_and_corrupt_cache(tmp_path: Path) -> None:
    _write_lakehouse(tmp_path / "lake")
    settings = GraphSettings(cache_dir=tmp_path / "cache")
    EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path / "lake"), settings)
    (cache_file,) = (tmp_path / "cache").glob("graph-*.npz")
    cache_file.write_bytes(b"not a pickle")
    store = EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path / "lake"), settings)
    assert store.stats().entities == 12
    assert cache_file.read_bytes() != b"not a pickle"  # rebuilt


def test_embedded_missing_table_names_path_and_stage(tmp_path: Path) -> None:
    _write_lakehouse(tmp_path)
    shutil.rmtree(tmp_path / "graph_edges")
    with pytest.raises(GraphDataError) as caught:
        EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path))
    assert caught.value.path == str(tmp_path / "graph_edges")
    assert "'graph' stage" in str(caught.value)


def test_graph_data_missing_column_is_named(tmp_path: Path) -> None:
    _write_lakehouse(tmp_path)
    chunks = frames()["chunks"].drop(columns=["unit_title"])
    write_deltalake(
        str(tmp_path / "chunks"), pa.Table.from_pandas(chunks, preserve_index=False), mode="overwrite",
        schema_mode="overwrite",
    )
    with pytest.raises(GraphDataError, match="unit_title"):
        GraphData.from_lakehouse(Lakehouse.for_root(tmp_path))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_embedded_queries_agree_with_a_networkx_reference(seed: int) -> None:
    data = random_graph(seed)
    store = EmbeddedGraphStore.from_graph(data)
    reference = nx.Graph()
    reference.add_nodes_from(e.entity_id for e in data.entities)
    for r in data.relations:
        reference.add_edge(r.src_id, r.dst_id, weight=r.weight, count=r.count)
    for node in list(reference.nodes)[:20]:
        ranked = [(-d["weight"], -d["count"], n) for n, d in reference[node].items()]
        expected = [n for _, _, n in sorted(ranked)]
        assert [r.target.entity_id for r in store.neighbours(node, limit=100)] == expected
    rng = random.Random(seed)
    for _ in range(40):
        a, b = rng.sample(sorted(reference.nodes), 2)
        path = store.shortest_path(a, b, max_hops=10)
        if not nx.has_path(reference, a, b):
            assert path is None
            continue
        # brute force: every shortest path, best = highest exact total weight, then lexical ids
        candidates = [
            (-sum(Fraction(reference.edges[u, v]["weight"]) for u, v in itertools.pairwise(p)), p)
            for p in nx.all_shortest_paths(reference, a, b)
        ]
        best_weight, best_nodes = min(candidates)
        assert path is not None
        assert [e.entity_id for e in path.entities] == best_nodes
        assert path.total_weight == float(-best_weight)


def test_issue_12_embedded_cache_round_trips_every_field(tmp_path: Path) -> None:
    compact = EmbeddedGraphStore.from_graph(small_graph())._graph
    path = tmp_path / cache_name("k")
    write_cache(path, compact, {"tables": {"graph_nodes": [1, "id"]}})
    assert read_cache(path, {"tables": {"graph_nodes": [1, "another id"]}}) is None  # built from another state
    restored = read_cache(path, {"tables": {"graph_nodes": [1, "id"]}})
    assert restored is not None
    for item in dataclasses.fields(CompactGraph):
        before, after = getattr(compact, item.name), getattr(restored, item.name)
        if isinstance(before, np.ndarray):
            assert after.dtype == before.dtype and np.array_equal(after, before), item.name
        else:
            assert after == before, item.name


class _Planted:
    """A pickle payload: unpickling it creates the file ``_Planted.target`` (proof that code ran)."""

    target = ""

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return open, (self.target, "w")


def test_issue_12_embedded_cache_never_unpickles(tmp_path: Path) -> None:
    _write_lakehouse(tmp_path)
    EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path))
    (cache_file,) = (tmp_path / "_cache").glob("graph-*")
    assert cache_file.name.startswith("graph-v5-") and cache_file.suffix == ".npz"
    with np.load(cache_file, allow_pickle=False) as stored:  # plain arrays only: no object arrays inside
        assert all(stored[name].dtype != object for name in stored.files)
    # someone with write access to the lakehouse plants a pickle under the cache's name
    _Planted.target = str(tmp_path / "code-ran")
    cache_file.write_bytes(pickle.dumps(_Planted()))
    store = EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path))
    assert not (tmp_path / "code-ran").exists()
    assert store.stats().entities == 12
    with np.load(cache_file, allow_pickle=False) as stored:  # rebuilt as a real cache
        assert "entity_id" not in stored.files and "src" in stored.files


def test_issue_12_embedded_load_replaces_what_it_held() -> None:
    store = EmbeddedGraphStore.from_graph(small_graph())
    report = store.load(GraphData(entities=small_graph().entities[:2]))
    assert store.stats().entities == 2 and store.stats().relations == 0
    assert report.removed["entities"] == 10 and report.removed["relations"] == 20 and report.added["entities"] == 0


def test_issue_14_graph_reads_the_offsets_of_carried_mentions_from_mention_entities(tmp_path: Path) -> None:
    # Entities stage version 6: mention_entities holds every resolved mention's offsets and text, and a carried
    # mention has no row in mentions — the graph must take it from mention_entities (and need mentions not at all).
    tables = frames()
    mentions = tables["mentions"].set_index("mention_id")
    resolved = tables["mention_entities"].join(mentions[["start", "end", "text"]], on="mention_id")
    carried = resolved.iloc[0]
    tables["mention_entities"] = resolved
    tables["mentions"] = tables["mentions"][tables["mentions"].mention_id != carried.mention_id]
    for table, frame in tables.items():
        write_deltalake(str(tmp_path / table), pa.Table.from_pandas(frame, preserve_index=False), mode="overwrite")
    graph = GraphData.from_lakehouse(Lakehouse.for_root(tmp_path))
    assert len(graph.mentions) == len(resolved) == 37
    found = next(m for m in graph.mentions if m.mention_id == carried.mention_id)
    assert (found.entity_id, found.start, found.end, found.text) == (
        carried.entity_id, carried.start, carried.end, carried.text
    )
    text = tables["documents"].text[0]
    assert all(text[m.start : m.end] == m.text for m in graph.mentions)


@pytest.mark.s3
def test_issue_16_embedded_store_on_a_bucket_caches_locally_or_in_the_cache_dir_setting(
    s3_bucket: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graph.lakehouse import Lakehouse

    bucket, s3 = s3_bucket
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    storage = Lakehouse.for_root(f"s3a://{bucket}/lh", s3)
    for table, frame in frames().items():
        write_deltalake(storage.delta_uri(table), pa.Table.from_pandas(frame, preserve_index=False),
                        storage_options=storage.storage_options)
    _write_lakehouse(tmp_path / "local")
    expected = EmbeddedGraphStore.from_settings(Lakehouse.for_root(tmp_path / "local")).stats()
    assert EmbeddedGraphStore.from_settings(storage).stats() == expected
    assert len(list((storage.local_cache_dir() / "_cache").glob("graph-v5-*.npz"))) == 1  # under $XDG_CACHE_HOME
    assert not storage.is_dir("_cache")  # nothing written into the bucket
    assert EmbeddedGraphStore.from_settings(storage, GraphSettings(cache_dir=tmp_path / "mine")).stats() == expected
    assert len(list((tmp_path / "mine").glob("graph-v5-*.npz"))) == 1
