#!/usr/bin/env bash
# Fetches, starts and stops a local Neo4j 5 Community server for development and the integration tests.
# The server is the real one (org.neo4j.server.CommunityEntryPoint from Maven Central's org.neo4j:neo4j), run from
# jars that Maven copies once into .cache/neo4j/lib-<version>; Bolt listens on 127.0.0.1 only, auth is on.
#
# Usage: scripts/neo4j.sh start|stop|restart|status|pid|wait|env|fetch|logs
#   start    fetch if needed, start in the background, return once Bolt answers RETURN 1 (no-op when running)
#   stop     SIGTERM, then SIGKILL after CSILLAG_NEO4J_STOP_TIMEOUT seconds
#   status   exit 0 when running and answering, 3 when not running, 1 when running but not answering
#   pid      print the server's pid (exit 3 when not running); cheap, sends no query
#   wait     wait until Bolt answers (CSILLAG_NEO4J_START_TIMEOUT seconds)
#   env      print shell exports: eval "$(scripts/neo4j.sh env)"
#   fetch    only download the jars (e.g. to warm a CI cache)
#   logs     print the tail of the server's logs
#
# Environment (all optional):
#   CSILLAG_NEO4J_PORT           Bolt port (default 7687; when 7687 is taken and no port was asked for, a free one)
#   CSILLAG_NEO4J_PASSWORD       password of user neo4j (default csillag-test-pw; Neo4j wants at least 8 characters)
#   CSILLAG_NEO4J_HTTP_PORT      enable the HTTP API on 127.0.0.1:<port> (default: HTTP off)
#   CSILLAG_NEO4J_HEAP           JVM max heap (default 1g)      CSILLAG_NEO4J_PAGECACHE  page cache (default 256m)
#   CSILLAG_NEO4J_VERSION        Neo4j version (default 5.26.30, the 5.x LTS line)
#   CSILLAG_NEO4J_HOME           cache/home folder (default <repo>/.cache/neo4j)
#   CSILLAG_NEO4J_JAVA           java binary (default: JAVA_HOME, PATH, /usr/lib/jvm; must be Java 17 or 21)
#   CSILLAG_NEO4J_START_TIMEOUT  seconds (default 180)          CSILLAG_NEO4J_STOP_TIMEOUT  seconds (default 60)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HERE="$ROOT/scripts/neo4j"
VERSION="${CSILLAG_NEO4J_VERSION:-5.26.30}"
HOME_DIR="${CSILLAG_NEO4J_HOME:-$ROOT/.cache/neo4j}"
LIB="$HOME_DIR/lib-$VERSION"
# Not Neo4j's own run/ folder: the server empties that one when it stops.
RUN_DIR="$HOME_DIR/state"
PID_FILE="$RUN_DIR/csillag-neo4j.pid"
PORT_FILE="$RUN_DIR/bolt-port"
CONSOLE_LOG="$HOME_DIR/logs/console.log"
NEO4J_LOG="$HOME_DIR/logs/neo4j.log"
PASSWORD_FILE="$HOME_DIR/data/.csillag-password"
USER_NAME="neo4j"
PASSWORD="${CSILLAG_NEO4J_PASSWORD:-csillag-test-pw}"
DEFAULT_PORT=7687
START_TIMEOUT="${CSILLAG_NEO4J_START_TIMEOUT:-180}"
STOP_TIMEOUT="${CSILLAG_NEO4J_STOP_TIMEOUT:-60}"

say() { echo "neo4j.sh: $*" >&2; }
die() { say "error: $*"; exit 1; }
# shellcheck source=lib/fetch_jars.sh
source "$ROOT/scripts/lib/fetch_jars.sh"

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
}

# --- helpers ------------------------------------------------------------------------------------------------------

java_major() {  # prints the major version of java binary $1
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p'
}

find_java() {
  local candidate major
  local candidates=("${CSILLAG_NEO4J_JAVA:-}" "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)")
  candidates+=(/usr/lib/jvm/*-17-*/bin/java /usr/lib/jvm/*-21-*/bin/java /usr/lib/jvm/*17*/bin/java)
  for candidate in "${candidates[@]}"; do
    if [ -z "$candidate" ] || [ ! -x "$candidate" ]; then continue; fi
    major="$(java_major "$candidate")"
    if [ "$major" = "17" ] || [ "$major" = "21" ]; then
      echo "$candidate"; return 0
    fi
    if [ "$candidate" = "${CSILLAG_NEO4J_JAVA:-}" ]; then
      die "CSILLAG_NEO4J_JAVA=$candidate is Java ${major:-unknown}; Neo4j $VERSION needs Java 17 or 21"
    fi
  done
  die "no Java 17 or 21 found (tried CSILLAG_NEO4J_JAVA, JAVA_HOME, PATH, /usr/lib/jvm); install openjdk-17-jre-headless"
}

find_python() {  # a Python that has the neo4j driver, or nothing
  local candidate
  for candidate in "${CSILLAG_PYTHON:-}" "$ROOT/.venv/bin/python" python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import neo4j' 2>/dev/null; then
      command -v "$candidate"; return 0
    fi
  done
  return 0
}

port_in_use() {  # true when something accepts TCP connections on 127.0.0.1:$1
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

server_pid() {  # prints the pid of our running server, or nothing (and removes a stale pid file)
  local pid
  [ -f "$PID_FILE" ] || return 0
  pid="$(cat "$PID_FILE")"
  # The pid must still be our JVM (not a recycled pid of some other process).
  if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && \
     tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "--home-dir=$HOME_DIR --config-dir="; then
    echo "$pid"
  else
    rm -f "$PID_FILE"
  fi
}

bolt_port() {  # the port a running server uses, else the one `start` would take
  local pid port
  pid="$(server_pid)"
  if [ -n "$pid" ] && [ -f "$PORT_FILE" ]; then cat "$PORT_FILE"; return 0; fi
  if [ -n "${CSILLAG_NEO4J_PORT:-}" ]; then echo "$CSILLAG_NEO4J_PORT"; return 0; fi
  port=$DEFAULT_PORT
  while port_in_use "$port"; do
    port=$((port + 1))
    [ "$port" -lt $((DEFAULT_PORT + 100)) ] || die "no free port in $DEFAULT_PORT..$port; set CSILLAG_NEO4J_PORT"
  done
  echo "$port"
}

log_tail() {
  local f
  for f in "$CONSOLE_LOG" "$NEO4J_LOG"; do
    [ -s "$f" ] || continue
    echo "----- last lines of $f -----" >&2
    tail -n "${1:-25}" "$f" >&2
  done
  [ ! -f "$HOME_DIR/logs/debug.log" ] || echo "(details: $HOME_DIR/logs/debug.log)" >&2
}

probe() {  # probe ARGS...: runs the Python readiness probe with the current password
  CSILLAG_NEO4J_PASSWORD="$PASSWORD" "$PYTHON" "$HERE/probe.py" --user "$USER_NAME" "$@"
}

# Without a Python that has the driver: wait for the "Started." line of this run and an open Bolt port.
wait_without_driver() {  # pid port log_offset
  local deadline=$((SECONDS + START_TIMEOUT))
  while [ $SECONDS -lt $deadline ]; do
    kill -0 "$1" 2>/dev/null || return 4
    if tail -c "+$(($3 + 1))" "$NEO4J_LOG" 2>/dev/null | grep -q 'INFO  Started\.' && port_in_use "$2"; then
      return 0
    fi
    sleep 0.5
  done
  return 1
}

# --- subcommands --------------------------------------------------------------------------------------------------

cmd_fetch() {
  fetch_jars "Neo4j $VERSION Community jars" "$HERE/pom.xml" "$LIB" "$HOME_DIR" "neo4j-$VERSION.jar" \
    -Dneo4j.version="$VERSION"
}

write_conf() {  # port
  local http="server.http.enabled=false"
  [ -z "${CSILLAG_NEO4J_HTTP_PORT:-}" ] || http="server.http.enabled=true
server.http.listen_address=127.0.0.1:$CSILLAG_NEO4J_HTTP_PORT"
  mkdir -p "$HOME_DIR/conf"
  cat > "$HOME_DIR/conf/neo4j.conf" <<EOF
# Written by scripts/neo4j.sh at every start; edits here are lost.
server.default_listen_address=127.0.0.1
server.default_advertised_address=127.0.0.1
server.bolt.enabled=true
server.bolt.listen_address=127.0.0.1:$1
server.bolt.tls_level=DISABLED
$http
server.https.enabled=false
dbms.security.auth_enabled=true
# No lock-out after failed logins: the tests try a wrong password on purpose, and a locked user would make the
# next test with the right password fail with AuthenticationRateLimit. Loopback only, so no brute-force exposure.
dbms.security.auth_max_failed_attempts=0
dbms.usage_report.enabled=false
server.memory.pagecache.size=${CSILLAG_NEO4J_PAGECACHE:-256m}
db.tx_log.rotation.retention_policy=100M size
# Small, not preallocated transaction logs: the default preallocates 256 MiB per database.
db.tx_log.rotation.size=32M
db.tx_log.preallocate=false
db.logs.query.enabled=OFF
# Netty's graceful-shutdown quiet period (default 5 s, paid twice) made every stop take ~12 s; nothing to drain here.
internal.dbms.bolt.netty_server_shutdown_quiet_period=0
EOF
}

set_initial_password() {  # only effective before the first start of a data directory
  rm -f "$HOME_DIR/data/dbms/auth.ini"
  NEO4J_HOME="$HOME_DIR" NEO4J_CONF="$HOME_DIR/conf" \
    "$JAVA" -cp "$LIB/*" org.neo4j.cli.AdminTool dbms set-initial-password "$PASSWORD" \
    >>"$CONSOLE_LOG" 2>&1 || { log_tail; die "neo4j-admin dbms set-initial-password failed"; }
  (umask 077 && printf '%s' "$PASSWORD" > "$PASSWORD_FILE")
}

cmd_start() {
  local pid port rc offset old_password=""
  if [ ${#PASSWORD} -lt 8 ]; then
    die "CSILLAG_NEO4J_PASSWORD has ${#PASSWORD} characters; Neo4j requires at least 8"
  fi
  mkdir -p "$HOME_DIR"
  exec 9>"$HOME_DIR/.lock"
  flock -w "$START_TIMEOUT" 9 || die "another neo4j.sh holds $HOME_DIR/.lock"
  pid="$(server_pid)"
  if [ -n "$pid" ]; then
    say "already running (pid $pid) on bolt://127.0.0.1:$(cat "$PORT_FILE"); nothing to do"
    cmd_wait
    return 0
  fi
  cmd_fetch
  JAVA="$(find_java)"
  PYTHON="$(find_python)"
  port="$(bolt_port)"
  if port_in_use "$port"; then
    die "port $port is already in use by another process; set CSILLAG_NEO4J_PORT to a free port"
  fi
  mkdir -p "$RUN_DIR" "$HOME_DIR/logs" "$HOME_DIR/data"
  write_conf "$port"
  if [ ! -d "$HOME_DIR/data/databases/system" ]; then
    set_initial_password
  elif [ "$(cat "$PASSWORD_FILE" 2>/dev/null)" != "$PASSWORD" ]; then
    old_password="$(cat "$PASSWORD_FILE" 2>/dev/null || true)"
    if [ -z "$old_password" ] || [ -z "$PYTHON" ]; then
      die "the data in $HOME_DIR/data was set up with another password that cannot be changed automatically \
(needs a Python with the neo4j driver); use that password, or delete $HOME_DIR/data (drops the graph)"
    fi
  fi
  offset="$(stat -c %s "$NEO4J_LOG" 2>/dev/null || echo 0)"
  echo "=== $(date -u +%FT%TZ) start: Neo4j $VERSION, $JAVA, bolt 127.0.0.1:$port" >>"$CONSOLE_LOG"
  # setsid: the server outlives this script and ignores the caller's Ctrl-C; options as in Neo4j's own neo4j.conf.
  setsid "$JAVA" -Xms256m -Xmx"${CSILLAG_NEO4J_HEAP:-1g}" \
    -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow -XX:+UnlockExperimentalVMOptions -XX:+TrustFinalNonStaticFields \
    -XX:+DisableExplicitGC -Djdk.nio.maxCachedBufferSize=1024 -Dio.netty.tryReflectionSetAccessible=true \
    -Djdk.tls.ephemeralDHKeySize=2048 -Djdk.tls.rejectClientInitiatedRenegotiation=true -Dlog4j2.disable.jmx=true \
    --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
    -cp "$LIB/*" org.neo4j.server.CommunityEntryPoint --home-dir="$HOME_DIR" --config-dir="$HOME_DIR/conf" \
    >>"$CONSOLE_LOG" 2>&1 </dev/null 9>&- &
  pid=$!  # 9>&-: the server must not inherit (and so hold) the lock of this script
  echo "$pid" > "$PID_FILE"
  echo "$port" > "$PORT_FILE"
  say "starting (pid $pid) on bolt://127.0.0.1:$port; log: $CONSOLE_LOG"
  local t0=$SECONDS
  if [ -z "$PYTHON" ]; then
    say "no Python with the neo4j driver found; waiting for the log line and the open port instead of a query"
    rc=0; wait_without_driver "$pid" "$port" "$offset" || rc=$?
  elif [ -n "$old_password" ]; then
    rc=0; CSILLAG_NEO4J_PASSWORD="$old_password" "$PYTHON" "$HERE/probe.py" --user "$USER_NAME" \
      --uri "bolt://127.0.0.1:$port" --timeout "$START_TIMEOUT" --pid "$pid" || rc=$?
    if [ $rc -eq 0 ]; then
      say "changing the password of $USER_NAME to CSILLAG_NEO4J_PASSWORD"
      CSILLAG_NEO4J_OLD_PASSWORD="$old_password" probe --uri "bolt://127.0.0.1:$port" --change-password || rc=$?
      [ $rc -ne 0 ] || (umask 077 && printf '%s' "$PASSWORD" > "$PASSWORD_FILE")
    fi
  else
    rc=0; probe --uri "bolt://127.0.0.1:$port" --timeout "$START_TIMEOUT" --pid "$pid" || rc=$?
  fi
  if [ $rc -ne 0 ]; then
    log_tail 40
    case $rc in
      3) say "the server runs but rejects the password; it is left running (scripts/neo4j.sh stop)" ;;
      4) rm -f "$PID_FILE" ;;
      *) say "stopping the server that did not become ready"; cmd_stop >/dev/null 2>&1 || true ;;
    esac
    die "Neo4j did not become ready on bolt://127.0.0.1:$port (probe exit $rc, ${START_TIMEOUT}s timeout)"
  fi
  say "ready on bolt://127.0.0.1:$port after $((SECONDS - t0))s (user $USER_NAME)"
}

cmd_wait() {
  local pid port rc
  pid="$(server_pid)"
  [ -n "$pid" ] || die "not running (start it with scripts/neo4j.sh start)"
  port="$(cat "$PORT_FILE")"
  PYTHON="${PYTHON:-$(find_python)}"
  if [ -z "$PYTHON" ]; then
    rc=0; wait_without_driver "$pid" "$port" 0 || rc=$?
  else
    rc=0; probe --uri "bolt://127.0.0.1:$port" --timeout "$START_TIMEOUT" --pid "$pid" || rc=$?
  fi
  [ $rc -eq 0 ] || { log_tail; die "the server (pid $pid) does not answer on bolt://127.0.0.1:$port (probe exit $rc)"; }
}

cmd_stop() {
  local pid deadline
  mkdir -p "$HOME_DIR"
  exec 9>"$HOME_DIR/.lock"
  flock -w "$START_TIMEOUT" 9 || die "another neo4j.sh holds $HOME_DIR/.lock"
  pid="$(server_pid)"
  if [ -z "$pid" ]; then say "not running"; return 0; fi
  say "stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    say "still running after ${STOP_TIMEOUT}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  fi
  rm -f "$PID_FILE"
  say "stopped"
}

cmd_status() {
  local pid port rc
  pid="$(server_pid)"
  if [ -z "$pid" ]; then echo "not running"; return 3; fi
  port="$(cat "$PORT_FILE")"
  PYTHON="$(find_python)"
  if [ -n "$PYTHON" ]; then
    rc=0; probe --uri "bolt://127.0.0.1:$port" --timeout 0 --pid "$pid" 2>/dev/null || rc=$?
    case $rc in
      0) echo "running (pid $pid) on bolt://127.0.0.1:$port, answering queries" ;;
      3) echo "running (pid $pid) on bolt://127.0.0.1:$port, but it rejects CSILLAG_NEO4J_PASSWORD"; return 1 ;;
      *) echo "running (pid $pid) on bolt://127.0.0.1:$port, not answering yet"; return 1 ;;
    esac
  else
    echo "running (pid $pid) on bolt://127.0.0.1:$port (not queried: no Python with the neo4j driver)"
  fi
}

cmd_env() {
  printf 'export CSILLAG_NEO4J_URI=%q\n' "bolt://127.0.0.1:$(bolt_port)"
  printf 'export CSILLAG_NEO4J_USER=%q\n' "$USER_NAME"
  printf 'export CSILLAG_NEO4J_PASSWORD=%q\n' "$PASSWORD"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  restart) cmd_stop; cmd_start ;;
  status) cmd_status ;;
  pid) pid="$(server_pid)"; [ -n "$pid" ] || exit 3; echo "$pid" ;;
  wait) cmd_wait ;;
  env) cmd_env ;;
  fetch) mkdir -p "$HOME_DIR"; cmd_fetch ;;
  logs) log_tail 60 ;;
  -h|--help|help) usage ;;
  *) usage; die "unknown subcommand '${1:-}'; valid: start stop restart status pid wait env fetch logs" ;;
esac
