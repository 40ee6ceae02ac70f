#!/usr/bin/env bash
# The quick-start demo: ingests the bundled English sample corpus with local Spark into Delta tables under
# out/demo-lakehouse (embedded defaults: no server needed), then prints what it produced.
# A second run finds every stage up to date and skips it. Set CSILLAG_DEMO_LAKEHOUSE to write elsewhere.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/bootstrap.sh
LAKE="${CSILLAG_DEMO_LAKEHOUSE:-$ROOT/out/demo-lakehouse}"
set +e
CSILLAG_NO_BOOTSTRAP=1 ./spark-submit.sh pipeline ingestion/samples/en --lakehouse "$LAKE" "$@"
status=$?
set -e
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  echo "demo: the pipeline failed (exit $status); see the messages above" >&2
  exit "$status"
fi
echo
.venv/bin/python -m jobs.summary "$LAKE"
echo
DEFAULT_QUESTION="Who is Margaret Hale's closest companion?"
QUESTION="${CSILLAG_DEMO_QUESTION:-$DEFAULT_QUESTION}"
echo "csillag ask: $QUESTION"
.venv/bin/python -m tools.ask "$QUESTION" --lakehouse "$LAKE" --quiet
