"""The ``GraphStore`` contract on the embedded (networkx) store, plus its lakehouse loading and on-disk cache."""

from __future__ import annotations

import pytest

from graph.embedded import EmbeddedGraphStore
from tests.unit.graph.contract import GraphStoreContract
from tests.unit.graph.fixtures import small_graph


@pytest.fixture
def graph_store() -> EmbeddedGraphStore:
    return EmbeddedGraphStore.from_graph(small_graph())


class TestEmbeddedGraphStore(GraphStoreContract):
    def test_clear_empties_the_store(self, graph_store: EmbeddedGraphStore) -> None:
        graph_store.clear()
        stats = graph_store.stats()
        assert (stats.entities, stats.relations, stats.chunks, stats.mentions) == (0, 0, 0, 0)
