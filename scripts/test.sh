#!/usr/bin/env bash
# Runs the whole csillag test suite on a fresh or prepared machine: the venv and pinned packages (bootstrap.sh), the
# Neo4j test server (neo4j.sh; started for the run and stopped afterwards unless it was already up), Hadoop's
# MiniDFSCluster jars for the hdfs:// tests (hdfs.sh fetch; the tests start and stop their own cluster), then pytest.
# Extra arguments go to pytest, e.g.  scripts/test.sh -m "not corpus"  or  scripts/test.sh tests/unit/tools
# CSILLAG_TEST_WORKERS: pytest-xdist workers (default 2; 0 = no workers, one process).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/bootstrap.sh
# The hdfs-marked tests start a MiniDFSCluster on 127.0.0.1 per pytest worker (tests/conftest.py, hdfs_uri) from
# these jars: fetched once from Maven Central, instant when they are there. CSILLAG_TEST_HDFS=0 skips the fetch.
if [ "${CSILLAG_TEST_HDFS:-1}" = "1" ]; then
  scripts/hdfs.sh fetch
fi

VENV="${CSILLAG_VENV:-$ROOT/.venv}"
export PYSPARK_PYTHON="$VENV/bin/python"
export PYSPARK_DRIVER_PYTHON="$VENV/bin/python"

started_neo4j=0
if [ "${CSILLAG_TEST_NEO4J:-1}" = "1" ]; then
  if ! scripts/neo4j.sh status >/dev/null 2>&1; then
    scripts/neo4j.sh start
    started_neo4j=1
  fi
  eval "$(scripts/neo4j.sh env)"
fi
cleanup() { [ "$started_neo4j" = 1 ] && scripts/neo4j.sh stop >/dev/null 2>&1 || true; }
trap cleanup EXIT

# Two pytest workers by default (the machine's two cores: most tests keep one Spark or spaCy thread busy), each test
# module kept on one worker, and the modules sharing a novel's ingestion or the Neo4j database in one scope
# (tests/conftest.py's scheduler). CSILLAG_TEST_WORKERS=0 runs everything in this one process.
workers="${CSILLAG_TEST_WORKERS:-2}"
parallel=()
[ "$workers" != "0" ] && parallel=(-n "$workers" --dist loadscope)
set +e
"$VENV/bin/python" -m pytest "${parallel[@]}" "$@"
status=$?
set -e
# pytest's 5 means "no tests collected": a selection that matched nothing is a failure of the command, not a pass.
exit "$status"
