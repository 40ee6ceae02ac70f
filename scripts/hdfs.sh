#!/usr/bin/env bash
# Fetches, starts and stops a real one-DataNode HDFS on 127.0.0.1 for development and the hdfs:// tests: Hadoop's
# own MiniDFSCluster (org.apache.hadoop.test.MiniDFSClusterManager from Maven Central's
# org.apache.hadoop:hadoop-client-minicluster, Hadoop 3.4.1 = pyspark 4.0.1's client), run from jars that Maven
# copies once into .cache/hdfs/lib-<version>. The NameNode, DataNode and their web servers listen on 127.0.0.1 only,
# on free ports; the cluster is formatted afresh at every start and its data removed at stop.
#
# Usage: scripts/hdfs.sh start|stop|status|uri|env|fetch
#   start    fetch if needed, start in the background, print the NameNode's URI (hdfs://127.0.0.1:PORT) once it
#            answers (no-op printing the URI when this state folder's cluster is running)
#   stop     SIGTERM, then SIGKILL after CSILLAG_HDFS_STOP_TIMEOUT seconds; removes the cluster's data
#   status   exit 0 when running and answering, 3 when not running
#   uri      print the running cluster's URI (exit 3 when not running)
#   env      print a shell export: eval "$(scripts/hdfs.sh env)" sets CSILLAG_TEST_HDFS_URI
#   fetch    only download the jars (scripts/bootstrap.sh does, so a fresh clone's scripts/test.sh has them)
#
# Environment (all optional):
#   CSILLAG_HDFS_STATE          folder of this cluster's pid, URI, data and log (default <repo>/.cache/hdfs/state);
#                               one per cluster: the tests give each pytest worker its own
#   CSILLAG_HDFS_PARENT_PID     stop the cluster when that process is gone (the tests' pytest process)
#   CSILLAG_HDFS_HOME           cache folder (default <repo>/.cache/hdfs)     CSILLAG_HDFS_HEAP  JVM heap (default 512m)
#   CSILLAG_HDFS_JAVA           java binary (default: JAVA_HOME, PATH)
#   CSILLAG_HDFS_START_TIMEOUT  seconds (default 120)                         CSILLAG_HDFS_STOP_TIMEOUT  (default 30)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HERE="$ROOT/scripts/hdfs"
VERSION="3.4.1"
HOME_DIR="${CSILLAG_HDFS_HOME:-$ROOT/.cache/hdfs}"
LIB="$HOME_DIR/lib-$VERSION"
STATE="${CSILLAG_HDFS_STATE:-$HOME_DIR/state}"
PID_FILE="$STATE/pid"
URI_FILE="$STATE/uri"
DATA="$STATE/data"
LOG="$STATE/console.log"
START_TIMEOUT="${CSILLAG_HDFS_START_TIMEOUT:-120}"
STOP_TIMEOUT="${CSILLAG_HDFS_STOP_TIMEOUT:-30}"
MAIN=org.apache.hadoop.test.MiniDFSClusterManager

say() { echo "hdfs.sh: $*" >&2; }
die() { say "error: $*"; exit 1; }
# shellcheck source=lib/fetch_jars.sh
source "$ROOT/scripts/lib/fetch_jars.sh"

find_java() {
  local candidate
  for candidate in "${CSILLAG_HDFS_JAVA:-}" "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  die "no java found (tried CSILLAG_HDFS_JAVA, JAVA_HOME, PATH); install openjdk-17-jre-headless"
}

cluster_pid() {  # the pid of this state folder's running cluster, or nothing (and a stale pid file is removed)
  local pid
  [ -f "$PID_FILE" ] || return 0
  pid="$(cat "$PID_FILE")"
  # still our JVM, not a recycled pid: its command line names this state folder's data
  if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$MAIN" \
     && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "hdfs.minidfs.basedir=$DATA "; then
    echo "$pid"
  else
    rm -f "$PID_FILE"
  fi
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

cmd_fetch() {
  fetch_jars "Hadoop $VERSION's MiniDFSCluster (hadoop-client-minicluster)" "$HERE/pom.xml" "$LIB" "$HOME_DIR" \
    "hadoop-client-minicluster-$VERSION.jar" -Dhadoop.version="$VERSION"
}

cmd_start() {
  local pid java port deadline
  pid="$(cluster_pid)"
  if [ -n "$pid" ] && [ -f "$URI_FILE" ]; then cat "$URI_FILE"; return 0; fi
  cmd_fetch
  java="$(find_java)"
  rm -rf "$DATA" "$URI_FILE" "$STATE/details.json"
  mkdir -p "$STATE"
  # Small and quiet: C1 only, the serial GC (the machine's cores belong to Spark); the manager writes the NameNode's
  # port into details.json once the cluster is up. Every daemon binds 127.0.0.1 (MiniDFSCluster's own addresses).
  nohup "$java" -Xms64m -Xmx"${CSILLAG_HDFS_HEAP:-512m}" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    -Djava.net.preferIPv4Stack=true -cp "$LIB/*" "$MAIN" -format -datanodes 1 \
    -writeDetails "$STATE/details.json" -D "hdfs.minidfs.basedir=$DATA" -D dfs.replication=1 \
    -D dfs.namenode.http-address=127.0.0.1:0 -D dfs.datanode.http.address=127.0.0.1:0 \
    </dev/null >"$LOG" 2>&1 &
  pid=$!
  echo "$pid" > "$PID_FILE"
  if [ -n "${CSILLAG_HDFS_PARENT_PID:-}" ]; then  # no cluster outlives the tests that started it
    (trap '' HUP; while kill -0 "$CSILLAG_HDFS_PARENT_PID" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 2; done
     kill "$pid" 2>/dev/null; sleep 5; kill -9 "$pid" 2>/dev/null; rm -rf "$DATA") </dev/null >/dev/null 2>&1 &
  fi
  deadline=$((SECONDS + START_TIMEOUT))
  while :; do
    kill -0 "$pid" 2>/dev/null || { tail -n 30 "$LOG" >&2; rm -f "$PID_FILE"; die "the MiniDFSCluster exited"; }
    if [ -s "$STATE/details.json" ]; then
      port="$(sed -n 's/.*"namenode_port" *: *\([0-9]*\).*/\1/p' "$STATE/details.json")"
      if [ -n "$port" ] && port_open "$port"; then break; fi
    fi
    [ $SECONDS -lt "$deadline" ] || { tail -n 30 "$LOG" >&2; cmd_stop; die "no NameNode after ${START_TIMEOUT}s"; }
    sleep 0.3
  done
  echo "hdfs://127.0.0.1:$port" > "$URI_FILE"
  say "MiniDFSCluster $VERSION up at hdfs://127.0.0.1:$port (pid $pid, data $DATA)"
  cat "$URI_FILE"
}

cmd_stop() {
  local pid deadline
  pid="$(cluster_pid)"
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    deadline=$((SECONDS + STOP_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt "$deadline" ]; do sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$DATA" "$PID_FILE" "$URI_FILE" "$STATE/details.json"
}

cmd_status() {
  local pid port
  pid="$(cluster_pid)"
  [ -n "$pid" ] && [ -f "$URI_FILE" ] || { say "not running"; return 3; }
  port="$(sed 's/.*://' "$URI_FILE")"
  port_open "$port" || { say "running (pid $pid) but the NameNode does not answer"; return 1; }
  echo "running: $(cat "$URI_FILE") (pid $pid)"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  uri) [ -n "$(cluster_pid)" ] && [ -f "$URI_FILE" ] || exit 3; cat "$URI_FILE" ;;
  env) [ -n "$(cluster_pid)" ] && [ -f "$URI_FILE" ] || exit 3; echo "export CSILLAG_TEST_HDFS_URI=$(cat "$URI_FILE")" ;;
  fetch) cmd_fetch ;;
  *) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
