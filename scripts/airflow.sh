#!/usr/bin/env bash
# Airflow for csillag, in its own virtualenv (its pins clash with ours): .cache/airflow-venv, home .cache/airflow.
#
#   scripts/airflow.sh install        create or update the venv, pinned by scripts/airflow-constraints.txt
#   scripts/airflow.sh freeze         re-pin: write the venv's resolved set to scripts/airflow-constraints.txt
#   scripts/airflow.sh ARGS…          run `airflow ARGS…` on jobs/airflow/ (installs first if needed), e.g.
#                                     scripts/airflow.sh dags test csillag_ingestion 2026-11-29
#
# Airflow's constraints approach: one resolved, tested set of versions installed with `-c` (uv, else pip). The upstream
# constraint files are not reachable from every machine, so the set is kept here (regenerate with `freeze` after
# changing AIRFLOW_VERSION). The Spark master of the DAG's tasks is CSILLAG_SPARK_MASTER (default local[2]).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AIRFLOW_VERSION="${AIRFLOW_VERSION:-2.11.0}"
SPARK_PROVIDER_VERSION="${SPARK_PROVIDER_VERSION:-6.3.4}"
PYTHON="${CSILLAG_AIRFLOW_PYTHON:-$(command -v python3.11 || echo "$ROOT/.venv/bin/python")}"
VENV="${CSILLAG_AIRFLOW_VENV:-$ROOT/.cache/airflow-venv}"
CONSTRAINTS="$ROOT/scripts/airflow-constraints.txt"

install() {
  if [ ! -x "$VENV/bin/python" ]; then
    # The base interpreter behind csillag's venv, so Airflow runs on the same Python version.
    base="$("$PYTHON" -c 'import sys; print(sys._base_executable)')"
    "$base" -m venv "$VENV"
  fi
  local pins=()
  local wanted=("apache-airflow==$AIRFLOW_VERSION" "apache-airflow-providers-apache-spark==$SPARK_PROVIDER_VERSION")
  [ -f "$CONSTRAINTS" ] && pins=(-c "$CONSTRAINTS")
  # uv (in csillag's dev extra) installs the ~150 pinned packages in parallel: ~20 s where pip takes ~150 s on a
  # fresh machine. pip stays the fallback, e.g. where uv's TLS cannot reach the index the way pip's does.
  local uv="${CSILLAG_UV:-$ROOT/.venv/bin/uv}" cert="${SSL_CERT_FILE:-${PIP_CERT:-}}"
  if ! { [ -x "$uv" ] && env ${cert:+SSL_CERT_FILE="$cert"} "$uv" pip install --quiet \
           --python "$VENV/bin/python" "${pins[@]}" "${wanted[@]}"; }; then
    [ ! -x "$uv" ] || echo "airflow.sh: uv could not install Airflow; installing with pip" >&2
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}" "${wanted[@]}"
  fi
  touch "$VENV/.csillag-installed"
}

case "${1:-}" in
  install) install; exit 0 ;;
  freeze)
    { echo "# Resolved set of Airflow $AIRFLOW_VERSION + apache-spark provider $SPARK_PROVIDER_VERSION (scripts/airflow.sh freeze)"
      "$VENV/bin/pip" freeze --disable-pip-version-check --exclude-editable; } > "$CONSTRAINTS"
    echo "wrote $CONSTRAINTS"; exit 0 ;;
  ""|-h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

[ -f "$VENV/.csillag-installed" ] || install
export AIRFLOW_HOME="${AIRFLOW_HOME:-$ROOT/.cache/airflow}"
export AIRFLOW__CORE__DAGS_FOLDER="$ROOT/jobs/airflow"
export AIRFLOW__CORE__LOAD_EXAMPLES=False
export AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION=True
export AIRFLOW__LOGGING__LOGGING_LEVEL="${AIRFLOW__LOGGING__LOGGING_LEVEL:-INFO}"
export CSILLAG_ROOT="$ROOT"
export AIRFLOW_CONN_CSILLAG_SPARK="${AIRFLOW_CONN_CSILLAG_SPARK:-{\"conn_type\": \"spark\", \"host\": \"${CSILLAG_SPARK_MASTER:-local[2]}\"}}"
mkdir -p "$AIRFLOW_HOME"
# A fresh home gets its metadata database (SQLite) first. Checked by our own flag, not by airflow.db: merely
# importing a DAG may leave an empty airflow.db behind.
if [ ! -f "$AIRFLOW_HOME/.csillag-db-ready" ]; then
  "$VENV/bin/airflow" db migrate >/dev/null
  touch "$AIRFLOW_HOME/.csillag-db-ready"
fi
exec "$VENV/bin/airflow" "$@"
