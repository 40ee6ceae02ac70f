"""The ``GraphStore`` contract on a real Neo4j server, the cross-store comparison, and Neo4j's failure modes."""

from __future__ import annotations

import random
import socket
import threading
from collections.abc import Iterator
from functools import partial
from typing import Any

import neo4j
import pytest
from pydantic import SecretStr

from graph.embedded import EmbeddedGraphStore
from graph.errors import GraphAuthError, GraphUnavailableError
from graph.neo4j_store import Neo4jGraphStore
from graph.settings import Neo4jSettings
from graph.testing.contract import GraphStoreContract, all_answers
from graph.testing.contract import comparable_answer as _answer
from graph.testing.fixtures import changed_graph, random_graph, small_graph
from tests.unit.tools.relations_book import book_graph

pytestmark = [pytest.mark.neo4j, pytest.mark.integration]


@pytest.fixture(scope="module")
def loaded_neo4j(neo4j_settings: Neo4jSettings) -> Iterator[Neo4jGraphStore]:
    store = Neo4jGraphStore.from_settings(neo4j_settings)
    store.clear()
    store.load(small_graph())
    yield store
    store.clear()
    store.close()


@pytest.fixture
def graph_store(loaded_neo4j: Neo4jGraphStore) -> Neo4jGraphStore:
    return loaded_neo4j


class TestNeo4jGraphStore(GraphStoreContract):
    pass


def _raw_counts(settings: Neo4jSettings) -> dict[str, int]:
    """Every node label and relationship type with its count, read around the store (not through it)."""
    auth = (settings.user, settings.password.get_secret_value())
    with neo4j.GraphDatabase.driver(settings.uri, auth=auth) as driver:
        nodes, _, _ = driver.execute_query(
            "MATCH (n) RETURN labels(n)[0] AS k, count(*) AS n", database_=settings.database
        )
        rels, _, _ = driver.execute_query(
            "MATCH ()-[r]->() RETURN type(r) AS k, count(*) AS n", database_=settings.database
        )
    return {r["k"]: r["n"] for r in [*nodes, *rels]}


def test_neo4j_load_twice_keeps_every_count(loaded_neo4j: Neo4jGraphStore, neo4j_settings: Neo4jSettings) -> None:
    before = _raw_counts(neo4j_settings)
    loaded_neo4j.load(small_graph())
    after = _raw_counts(neo4j_settings)
    assert after == before
    # 12 entities, 1 document, 2 units, 8 chunks; 20 co-occurrences, 37 mentions, 2 HAS_UNIT... 1 doc -> 2 units
    assert (after["Entity"], after["Document"], after["Unit"], after["Chunk"]) == (12, 1, 2, 8)
    assert (after["CO_OCCURS_WITH"], after["MENTIONED_IN"], after["HAS_UNIT"], after["HAS_CHUNK"]) == (20, 37, 2, 8)


def _speakers(settings: Neo4jSettings) -> dict[int, list[str]]:
    """Who SAID each quotation (by its start), read around the store."""
    auth = (settings.user, settings.password.get_secret_value())
    with neo4j.GraphDatabase.driver(settings.uri, auth=auth) as driver:
        rows, _, _ = driver.execute_query(
            "MATCH (e:Entity)-[:SAID]->(q:Quote) RETURN q.start AS at, collect(e.entity_id) AS who",
            database_=settings.database,
        )
    return {r["at"]: sorted(r["who"]) for r in rows}


def test_neo4j_typed_relations_and_quotations_follow_a_changed_graph(
    loaded_neo4j: Neo4jGraphStore, neo4j_settings: Neo4jSettings
) -> None:
    # small graph: 12 typed rows (ent_99's is not loaded); 6 quotations, 5 of a known speaker (not 400's, nor
    # ent_99's at 200); addressees of the graph: ent_02, ent_03, ent_04, ent_04, ent_07 (ent_99 left out)
    counts = _raw_counts(neo4j_settings)
    assert (counts["RELATION_OF"], counts["Quote"], counts["IN_CHUNK"]) == (12, 6, 6)
    assert (counts["SAID"], counts["ADDRESSED_TO"]) == (4, 5)
    try:
        loaded_neo4j.load(changed_graph())
        counts = _raw_counts(neo4j_settings)
        assert (counts["RELATION_OF"], counts["Quote"], counts["SAID"], counts["ADDRESSED_TO"]) == (10, 5, 4, 5)
        # the quotation at 80 is now Natasha's: Nikolai's SAID link to it is gone, not kept beside the new one
        assert _speakers(neo4j_settings)[80] == ["ent_03"]
    finally:
        loaded_neo4j.load(small_graph())
    assert _speakers(neo4j_settings)[80] == ["ent_01"]


def test_neo4j_answers_a_crafted_books_relations_and_quotations_as_the_embedded_store(
    loaded_neo4j: Neo4jGraphStore,
) -> None:
    # every relation pattern of the crafted book (apposition, possessive, copula, marriage) and its quotations,
    # made by the pipeline's own per-document code
    book = book_graph()
    embedded = EmbeddedGraphStore.from_graph(book)
    ids = [e.entity_id for e in book.entities]
    try:
        loaded_neo4j.load(book)
        for store in (embedded, loaded_neo4j):
            assert {(k.source.entity_id, k.type) for k in store.relatives("natasha")} == {("countess", "parent")}
            assert [q.text for q in store.find_quotations("are you cold")] == ["“Are you cold, Natasha?”"]
        for a in ids:
            for query, asked in (("relatives", {"entity_id": a}), ("quotations", {"speaker_id": a}),
                                 ("quotations", {"addressee_id": a})):
                on_neo4j = _answer(partial(getattr(loaded_neo4j, query), **asked))
                assert on_neo4j == _answer(partial(getattr(embedded, query), **asked)), (query, asked)
            for b in ids:
                assert _answer(partial(loaded_neo4j.relations_between, a, b)) == _answer(
                    partial(embedded.relations_between, a, b)
                ), (a, b)
        assert loaded_neo4j.stats().typed_relations == embedded.stats().typed_relations == len(book.typed_relations)
    finally:
        loaded_neo4j.load(small_graph())


def test_neo4j_wrong_password_names_uri_and_user(neo4j_settings: Neo4jSettings) -> None:
    wrong = neo4j_settings.model_copy(update={"password": SecretStr("definitely-not-the-password")})
    with pytest.raises(GraphAuthError) as caught:
        Neo4jGraphStore.from_settings(wrong)
    message = str(caught.value)
    assert neo4j_settings.uri in message and repr(neo4j_settings.user) in message
    assert "definitely-not-the-password" not in message
    assert (caught.value.uri, caught.value.user) == (neo4j_settings.uri, neo4j_settings.user)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_neo4j_unreachable_server_names_uri() -> None:
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    settings = Neo4jSettings(uri=uri, password=SecretStr("x"), connection_timeout_s=2.0)
    with pytest.raises(GraphUnavailableError) as caught:
        Neo4jGraphStore.from_settings(settings)
    assert uri in str(caught.value) and caught.value.uri == uri


class _CuttableProxy:
    """A TCP forwarder to the Neo4j server that can drop every connection at once (the server "going away")."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = [self._listener]
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._target)
            with self._lock:
                self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()


def test_neo4j_server_lost_mid_load_then_rerun_completes(
    loaded_neo4j: Neo4jGraphStore, neo4j_settings: Neo4jSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _raw_counts(neo4j_settings)
    loaded_neo4j.clear()
    host, port = neo4j_settings.uri.split("://", 1)[1].rsplit(":", 1)
    proxy = _CuttableProxy(host, int(port))
    auth = (neo4j_settings.user, neo4j_settings.password.get_secret_value())
    driver = neo4j.GraphDatabase.driver(
        f"bolt://127.0.0.1:{proxy.port}", auth=auth, max_transaction_retry_time=1.0, connection_timeout=2.0
    )
    flaky = Neo4jGraphStore(driver, neo4j_settings.database, batch_size=5, uri=f"bolt://127.0.0.1:{proxy.port}")
    calls = {"n": 0}
    original = Neo4jGraphStore._write

    def write_then_cut(self: Neo4jGraphStore, action: str, query: str, **params: Any) -> int:
        calls["n"] += 1
        if calls["n"] == 4:  # documents, units, chunks went through; the server vanishes during the chunks
            proxy.cut()
        return original(self, action, query, **params)

    monkeypatch.setattr(Neo4jGraphStore, "_write", write_then_cut)
    try:
        with pytest.raises(GraphUnavailableError) as caught:
            flaky.load(small_graph())
        assert str(proxy.port) in str(caught.value)
    finally:
        monkeypatch.undo()
        driver.close()
    partial = _raw_counts(neo4j_settings)
    assert partial.get("Entity", 0) == 0  # the load stopped before entities
    loaded_neo4j.load(small_graph())  # the rerun, through the healthy connection
    assert _raw_counts(neo4j_settings) == expected


def test_cross_store_every_query_same_answer(loaded_neo4j: Neo4jGraphStore) -> None:
    embedded = EmbeddedGraphStore.from_graph(small_graph())
    expected = all_answers(embedded)
    actual = all_answers(loaded_neo4j)
    assert actual.keys() == expected.keys()
    differing = [key for key in expected if actual[key] != expected[key]]
    assert differing == [], f"{len(differing)} of {len(expected)} answers differ, e.g. {differing[:5]}"


def test_cross_store_random_graph_same_answers(loaded_neo4j: Neo4jGraphStore) -> None:
    data = random_graph(2)
    embedded = EmbeddedGraphStore.from_graph(data)
    loaded_neo4j.clear()
    try:
        loaded_neo4j.load(data)
        ids = sorted(e.entity_id for e in data.entities)
        rng = random.Random(5)
        queries: list[tuple[str, Any]] = [
            (f"neighbours {i}", lambda s, i=i: s.neighbours(i, limit=100)) for i in ids[:15]
        ]
        for a, b in (rng.sample(ids, 2) for _ in range(25)):
            queries.append((f"path {a} {b}", lambda s, a=a, b=b: s.shortest_path(a, b, max_hops=6)))
        differing = [
            name for name, q in queries if _answer(lambda q=q: q(loaded_neo4j)) != _answer(lambda q=q: q(embedded))
        ]
        assert differing == []
    finally:
        loaded_neo4j.clear()
        loaded_neo4j.load(small_graph())


def test_neo4j_ensure_schema_drops_the_retired_mention_index(
    loaded_neo4j: Neo4jGraphStore, neo4j_settings: Neo4jSettings
) -> None:
    auth = (neo4j_settings.user, neo4j_settings.password.get_secret_value())
    with neo4j.GraphDatabase.driver(neo4j_settings.uri, auth=auth) as driver:
        def index_names() -> set[str]:
            rows, _, _ = driver.execute_query("SHOW INDEXES YIELD name", database_=neo4j_settings.database)
            return {r["name"] for r in rows}

        # The index earlier versions created (see graph.cypher.RETIRED_SCHEMA), as a server upgraded from them has it.
        driver.execute_query(
            "CREATE INDEX mentioned_in_id IF NOT EXISTS FOR ()-[m:MENTIONED_IN]-() ON (m.mention_id)",
            database_=neo4j_settings.database,
        )
        assert "mentioned_in_id" in index_names()
        loaded_neo4j.ensure_schema()
        names = index_names()
    assert "mentioned_in_id" not in names
    assert {"entity_id", "chunk_id", "unit_id", "document_id"} <= names  # the constraints' indexes stay
    loaded_neo4j.ensure_schema()  # and a second run is a no-op, not an error


def test_issue_12_a_small_graph_loads_in_one_transaction(
    loaded_neo4j: Neo4jGraphStore, neo4j_settings: Neo4jSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = Neo4jGraphStore.from_settings(neo4j_settings.model_copy(update={"batch_size": 10_000}))

    def no_batches(self: Neo4jGraphStore, action: str, query: str, **params: Any) -> int:
        raise AssertionError(f"a batch transaction ran ({action}) although the graph fits in one")

    monkeypatch.setattr(Neo4jGraphStore, "_write", no_batches)
    try:
        report = whole.load(changed_graph())
        assert {k: v for k, v in report.removed.items() if v} == {
            "entities": 1, "relations": 1, "mentions": 2, "typed_relations": 2, "quotes": 1
        }
        counts = _raw_counts(neo4j_settings)
        assert (counts["Entity"], counts["CO_OCCURS_WITH"], counts["MENTIONED_IN"]) == (11, 19, 36)
    finally:
        monkeypatch.undo()
        whole.close()
        loaded_neo4j.load(small_graph())
    assert _raw_counts(neo4j_settings)["MENTIONED_IN"] == 37


def test_issue_12_a_chunk_moved_to_another_unit_loses_its_old_link(
    loaded_neo4j: Neo4jGraphStore, neo4j_settings: Neo4jSettings
) -> None:
    graph = small_graph()
    moved = graph.chunks[3].model_copy(update={"unit_id": graph.units[1].unit_id})  # chunk 3: chapter I -> II
    try:
        loaded_neo4j.load(graph.model_copy(update={"chunks": [*graph.chunks[:3], moved, *graph.chunks[4:]]}))
        auth = (neo4j_settings.user, neo4j_settings.password.get_secret_value())
        with neo4j.GraphDatabase.driver(neo4j_settings.uri, auth=auth) as driver:
            rows, _, _ = driver.execute_query(
                "MATCH (u:Unit)-[:HAS_CHUNK]->(c:Chunk {chunk_id: $id}) RETURN u.unit_id AS unit",
                id=moved.chunk_id, database_=neo4j_settings.database,
            )
        assert [r["unit"] for r in rows] == [moved.unit_id]
        assert _raw_counts(neo4j_settings)["HAS_CHUNK"] == 8
    finally:
        loaded_neo4j.load(small_graph())
