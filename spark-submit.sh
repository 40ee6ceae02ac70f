#!/usr/bin/env bash
# Submits a csillag job to Spark: local[*] by default, or any --master (spark://, yarn, k8s://).
#
#   ./spark-submit.sh [spark-submit options…] JOB [job arguments…]
#   JOB: pipeline (every stage) or stage (one stage: `stage mentions INPUT…`)
#
# It ships what a cluster needs: the project's packages as a zip (--py-files), the Delta package, the settings in
# conf/spark-defaults.conf, and the venv's Python for driver and executors (PYSPARK_PYTHON). Set CSILLAG_NO_BOOTSTRAP=1
# to skip the venv check (e.g. on a gateway whose environment is prepared otherwise). On a local master the job runs
# in the check's own Python, which starts the JVM with these same options (docs/ingestion.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${CSILLAG_VENV:-$ROOT/.venv}"
# The venv now; the Spark jars and the JVM's class archive only once the check below finds work (an up-to-date run
# is answered without them: ~0.3 s less).
[ "${CSILLAG_NO_BOOTSTRAP:-}" = "1" ] || "$ROOT/scripts/bootstrap.sh" --quiet --venv-only

SPARK_ARGS=()
STORAGE_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    pipeline|stage) break ;;
    --help|-h) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --*) SPARK_ARGS+=("$1"); if [ $# -gt 1 ] && [[ "$2" != --* ]]; then SPARK_ARGS+=("$2"); shift; fi ;;
    *) echo "spark-submit.sh: unknown job '$1'; jobs: pipeline, stage" >&2; exit 2 ;;
  esac
  shift
done
[ $# -gt 0 ] || { echo "spark-submit.sh: name a job: pipeline or stage" >&2; exit 2; }
JOB="$1"; shift

# The project code as one zip, rebuilt only when a source file is newer than it.
DIST="$ROOT/.cache/dist"; ZIP="$DIST/csillag.zip"
mkdir -p "$DIST"
if [ ! -f "$ZIP" ] || [ -n "$(find "$ROOT/cli" "$ROOT/jobs" "$ROOT/ingestion" "$ROOT/graph" "$ROOT/tools" "$ROOT/settings" -newer "$ZIP" -name '*.*' -print -quit)" ]; then
  (cd "$ROOT" && rm -f "$ZIP" && "$VENV/bin/python" - "$ZIP" <<'PY'
import sys, zipfile, pathlib
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as zf:
    for pkg in ("cli", "jobs", "ingestion", "graph", "tools", "settings"):
        for path in sorted(pathlib.Path(pkg).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                zf.write(path)
PY
  )
fi

PY="$VENV/bin/python"
# Loopback unless told otherwise: a local run must not listen on the machine's other interfaces.
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
export PYSPARK_PYTHON="${PYSPARK_PYTHON:-$PY}"
export PYSPARK_DRIVER_PYTHON="${PYSPARK_DRIVER_PYTHON:-$PY}"
export CSILLAG_CONFIG="${CSILLAG_CONFIG:-$ROOT/conf/csillag.toml}"
HAS_MASTER=0
MASTER="${CSILLAG_SPARK_MASTER:-local[*]}"
PREV=""
for a in "${SPARK_ARGS[@]:-}"; do
  if [ "$PREV" = "--master" ]; then HAS_MASTER=1; MASTER="$a"; fi
  PREV="$a"
done
MASTER_ARGS=()
[ "$HAS_MASTER" = 1 ] || MASTER_ARGS=(--master "$MASTER")
# The options every job gets, whether spark-submit starts its JVM or the job's own process does (a local master).
COMMON_ARGS=(--properties-file "$ROOT/conf/spark-defaults.conf"
  --conf "spark.jars.ivy=${CSILLAG_IVY_DIR:-$ROOT/.cache/ivy}"
  --conf "spark.pyspark.python=$PYSPARK_PYTHON" --conf "spark.pyspark.driver.python=$PYSPARK_DRIVER_PYTHON"
  --conf "spark.executorEnv.PYSPARK_PYTHON=$PYSPARK_PYTHON")

# Bad values fail here with one line and exit code 2, not as a JVM error or a table after Spark started.
MEMORY_RE='^[1-9][0-9]*([kKmMgGtTpP][bB]?|[bB])?$'
PREV=""
for a in "${SPARK_ARGS[@]:-}" ; do
  if [ "$PREV" = "--driver-memory" ] && ! [[ "$a" =~ $MEMORY_RE ]]; then
    echo "csillag: --driver-memory '$a' is not a memory size; accepted: a whole number with a unit, e.g. 512m or 2g" >&2
    exit 2
  fi
  PREV="$a"
done
if [ -n "${SPARK_DRIVER_MEMORY:-}" ] && ! [[ "$SPARK_DRIVER_MEMORY" =~ $MEMORY_RE ]]; then
  echo "csillag: SPARK_DRIVER_MEMORY='$SPARK_DRIVER_MEMORY' is not a memory size; accepted: a whole number with a unit, e.g. 512m or 2g" >&2
  exit 2
fi
# The handshake with the job (cli/handshake.py describes it): the job's own command runs first in a plain Python,
# about a second and no JVM. It checks the settings, the master and every input (a problem: one line, exit 2), writes
# what the lakehouse needs on spark-submit's command line to ARGS_FILE, and answers a run whose every stage is up to
# date (its result printed, exit ANSWERED): no JVM is started. On a local master it goes on and runs the job itself
# (mode run-here): it starts the JVM with the options below (CSILLAG_SUBMIT_ARGS, shell-quoted; ingestion/spark.py
# adds the driver JVM's flags, the workers' daemon and the lakehouse's connector), so the JVM's ~3 s pass beside the
# stages that work in the driver and no second Python starts. Exit SUBMIT: spark-submit runs the job (mode submit,
# or a lakehouse on HDFS). A master from CSILLAG_SPARK_MASTER is left to the settings, so that a message names the
# variable. A user's own --check is answered by the check alone.
ANSWERED=10  # = cli.handshake.HandshakeExit.ANSWERED
SUBMIT=11    # = cli.handshake.HandshakeExit.SUBMIT
CHECK_MASTER=()
[ "$HAS_MASTER" = 1 ] && CHECK_MASTER=(--master "$MASTER")
case " $* " in
  *" --help "*|*" -h "*) ;;
  *" --check "*)
     PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" "$PY" -m "jobs.$JOB" "$@" "${CHECK_MASTER[@]}"
     exit $? ;;
  *) MODE=submit
     case "$MASTER" in
       local*)
         SUBMIT_OPTS=("${MASTER_ARGS[@]}" "${COMMON_ARGS[@]}" --py-files "$ZIP" "${SPARK_ARGS[@]}")
         QUOTED=""
         for a in "${SUBMIT_OPTS[@]}"; do QUOTED+="'${a//\'/\'\\\'\'}' "; done
         export CSILLAG_SUBMIT_ARGS="$QUOTED"
         # The job plans with the master it runs on (NER in the driver's processes on a local one): the script's
         # default local[*] goes to it too, over a spark.master of the settings file.
         [ "$HAS_MASTER" = 1 ] || [ -n "${CSILLAG_SPARK_MASTER:-}" ] || CHECK_MASTER=(--master "$MASTER")
         MODE=run-here ;;
     esac
     rc=0
     ARGS_FILE="$(mktemp)"
     CSILLAG_SPARK_ARGS_FILE="$ARGS_FILE" PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" "$PY" -m "jobs.$JOB" "$@" \
       "${CHECK_MASTER[@]}" --spark-submit-handshake "$MODE" || rc=$?
     mapfile -t STORAGE_ARGS < "$ARGS_FILE"; rm -f "$ARGS_FILE"
     case "$rc" in
       "$ANSWERED") exit 0 ;;
       "$SUBMIT") unset CSILLAG_SUBMIT_ARGS ;;
       *) exit "$rc" ;;  # bad settings or inputs (2), or the run's own code (run-here)
     esac ;;
esac
[ "${CSILLAG_NO_BOOTSTRAP:-}" = "1" ] || "$ROOT/scripts/bootstrap.sh" --quiet --jvm-only
DRIVER_JAVA_OPTIONS="-Dlog4j2.configurationFile=file:$ROOT/conf/log4j2.properties"
# In local mode the driver JVM shares the cores with the Python workers running spaCy: a JIT that stops at C1 and
# a serial GC leave them the CPU (ingestion/spark.py, LOCAL_JVM_OPTIONS; docs/benchmarks.md).
# Local workers also come from csillag's Python daemon, which loads the NER pipeline once before forking them
# (ingestion/worker_daemon.py); a cluster's executors may lack csillag in their Python, so there it stays opt-in.
LOCAL_ARGS=()
case "$MASTER" in
  local*)
    DRIVER_JAVA_OPTIONS="$DRIVER_JAVA_OPTIONS -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
    # The class-data archive bootstrap.sh builds (ingestion/jvm_archive.py): ~5 s less JVM start-up. Its warnings
    # go to stderr, never to stdout where --json results go.
    ARCHIVE="$ROOT/.cache/jvm/driver.jsa"
    [ -f "$ARCHIVE" ] && DRIVER_JAVA_OPTIONS="$DRIVER_JAVA_OPTIONS -XX:SharedArchiveFile=$ARCHIVE -Xlog:disable -Xlog:all=warning:stderr"
    # From /, so that only an installed csillag counts (the daemon starts before --py-files are on the path).
    if (cd / && "$PYSPARK_PYTHON" -c "import ingestion.worker_daemon" 2>/dev/null); then
      LOCAL_ARGS=(--conf "spark.python.daemon.module=ingestion.worker_daemon")
    fi
    ;;
esac

exec "$VENV/bin/spark-submit" \
  "${MASTER_ARGS[@]}" \
  "${COMMON_ARGS[@]}" \
  --driver-java-options "$DRIVER_JAVA_OPTIONS" \
  "${LOCAL_ARGS[@]}" \
  "${STORAGE_ARGS[@]}" \
  --py-files "$ZIP" \
  "${SPARK_ARGS[@]}" \
  "$ROOT/jobs/$JOB.py" "$@"
