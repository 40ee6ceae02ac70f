"""The project's Neo4j server (scripts/neo4j.sh) as the tests and users meet it: queries, auth, exports."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.integration.neo4j_server import SCRIPT, Neo4jConnection, ensure_neo4j

neo4j = pytest.importorskip("neo4j", reason="the neo4j driver is not installed (pip install -e '.[neo4j]')")


def _script(tmp_home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the script against an empty home folder, so no real server is involved."""
    full_env = {**os.environ, "CSILLAG_NEO4J_HOME": str(tmp_home), **env}
    return subprocess.run(
        ["bash", str(SCRIPT), *args], capture_output=True, text=True, env=full_env, timeout=60, check=False
    )


@pytest.fixture(scope="module")
def server() -> Neo4jConnection:
    return ensure_neo4j()


@pytest.mark.neo4j
@pytest.mark.integration
def test_ensure_neo4j_server_creates_and_reads_a_node(server: Neo4jConnection) -> None:
    label = "T" + uuid.uuid4().hex  # a label of its own: other tests share the database
    with neo4j.GraphDatabase.driver(server.uri, auth=(server.user, server.password)) as driver:
        driver.execute_query(f"CREATE (:{label} {{name: $name, pages: $pages}})", name="Gergely", pages=42)
        records, _, _ = driver.execute_query(f"MATCH (n:{label}) RETURN n.name AS name, n.pages AS pages")
        driver.execute_query(f"MATCH (n:{label}) DELETE n")
    assert [(r["name"], r["pages"]) for r in records] == [("Gergely", 42)]


@pytest.mark.neo4j
@pytest.mark.integration
def test_ensure_neo4j_server_rejects_a_wrong_password(server: Neo4jConnection) -> None:
    with neo4j.GraphDatabase.driver(server.uri, auth=(server.user, server.password + "-wrong")) as driver:
        with pytest.raises(neo4j.exceptions.AuthError):
            driver.execute_query("RETURN 1")


@pytest.mark.neo4j
@pytest.mark.integration
def test_ensure_neo4j_twice_returns_the_same_running_server(server: Neo4jConnection) -> None:
    assert ensure_neo4j() == server
    with neo4j.GraphDatabase.driver(server.uri, auth=(server.user, server.password)) as driver:
        records, _, _ = driver.execute_query("RETURN 1 + 1 AS two")
    assert records[0]["two"] == 2


def test_neo4j_script_env_prints_the_requested_port_and_password(tmp_path: Path) -> None:
    # Evaluate the exports as a user's shell would: the quoting of an awkward password must survive.
    shell = (
        f'eval "$(bash {SCRIPT} env)" && printf "%s|%s|%s" "$CSILLAG_NEO4J_URI" "$CSILLAG_NEO4J_USER" '
        '"$CSILLAG_NEO4J_PASSWORD"'
    )
    env = {
        **os.environ,
        "CSILLAG_NEO4J_HOME": str(tmp_path),
        "CSILLAG_NEO4J_PORT": "7999",
        "CSILLAG_NEO4J_PASSWORD": "a b'c-$ecret",
    }
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "bolt://127.0.0.1:7999|neo4j|a b'c-$ecret"


def test_neo4j_script_status_of_an_empty_home_is_not_running(tmp_path: Path) -> None:
    done = _script(tmp_path, "status")
    assert (done.returncode, done.stdout.strip()) == (3, "not running")


def test_neo4j_script_start_refuses_a_short_password(tmp_path: Path) -> None:
    done = _script(tmp_path, "start", CSILLAG_NEO4J_PASSWORD="short")
    assert done.returncode == 1
    assert "CSILLAG_NEO4J_PASSWORD has 5 characters; Neo4j requires at least 8" in done.stderr
    assert not (tmp_path / "data").exists()  # refused before fetching or creating anything


def test_neo4j_script_unknown_subcommand_lists_the_valid_ones(tmp_path: Path) -> None:
    done = _script(tmp_path, "launch")
    assert done.returncode == 1
    assert "unknown subcommand 'launch'; valid: start stop restart status pid wait env fetch logs" in done.stderr
