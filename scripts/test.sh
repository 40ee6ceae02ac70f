#!/usr/bin/env bash
# Runs the whole csillag test suite on a fresh or prepared machine: the venv and pinned packages (bootstrap.sh), the
# Neo4j test server (neo4j.sh; started for the run and stopped afterwards unless it was already up), then pytest.
# Extra arguments go to pytest, e.g.  scripts/test.sh -m "not corpus"  or  scripts/test.sh tests/unit/tools
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/bootstrap.sh
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

set +e
"$VENV/bin/python" -m pytest "$@"
status=$?
set -e
# pytest's 5 means "no tests collected": a selection that matched nothing is a failure of the command, not a pass.
exit "$status"
