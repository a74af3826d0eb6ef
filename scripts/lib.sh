#!/usr/bin/env bash
# Shared helpers for the project's scripts. Sourced, not run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Pid files, logs, FerretDB's state and dev.env; PLATFORM_RUN_DIR moves them (a test's private stack).
RUN_DIR="${PLATFORM_RUN_DIR:-$ROOT/.run}"
mkdir -p "$RUN_DIR"

FERRETDB_VERSION="v1.24.2"
FERRETDB_PORT="${FERRETDB_PORT:-27017}"
PG_URL="${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/ferretdb}"
# FerretDB 1.24 keeps the PostgreSQL connection of an update's read while it takes a second one for the write. Once
# half-done updates hold its whole pool (50 by default), it never answers again: 100 concurrent single-document
# updates did it here. It gets a pool far above what runs at once, and PostgreSQL room for it (infra.sh); a server
# that cannot open that many refuses the surplus with an error, which the command returns, rather than hanging.
FERRETDB_PG_POOL=400
PG_MAX_CONNECTIONS=1000
ferretdb_pg_url() { local sep='?'; [[ "$1" == *\?* ]] && sep='&'; echo "$1${sep}pool_max_conns=$FERRETDB_PG_POOL&pool_max_conn_idle_time=1m"; }
REDIS_PORT="${REDIS_PORT:-6379}"
# Jaeger, the trace backend (deploy/jaeger/config.yaml describes its settings). v1.76.0 is the Go module of the
# release whose v2 binary and image are 2.13.0.
JAEGER_VERSION="v1.76.0"
JAEGER_OTLP_HTTP_PORT="${JAEGER_OTLP_HTTP_PORT:-4318}"
JAEGER_QUERY_PORT="${JAEGER_QUERY_PORT:-16686}"
JAEGER_QUERY_GRPC_PORT="${JAEGER_QUERY_GRPC_PORT:-16685}"

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }
die() { printf '\n[%s] ERROR: %s\n\n' "$(basename "$0")" "$*" >&2; exit 1; }

need() {
  command -v "$1" >/dev/null 2>&1 || die "'$1' is required but not installed. $2"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  local port="$1" what="$2" tries="${3:-100}"
  for _ in $(seq "$tries"); do
    port_open "$port" && return 0
    sleep 0.1
  done
  return 1
}

ferretdb_bin() {
  if [ -n "${FERRETDB_BIN:-}" ]; then echo "$FERRETDB_BIN"; return; fi
  echo "$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin/ferretdb"
}

jaeger_bin() {
  if [ -n "${JAEGER_BIN:-}" ]; then echo "$JAEGER_BIN"; return; fi
  echo "$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin/jaeger"
}

# Whether a process is running (a zombie, gone but not yet reaped, is not). Builtins only: no fork per check, so that
# a loaded machine does not stretch a wait made of these checks.
pid_alive() {
  local stat state
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  state=${stat##*) }
  state=${state%% *}
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# Waits until process $1 is gone or $2 seconds of wall-clock time have passed; 1 on the latter.
wait_pid_gone() {
  local pid="$1" deadline=$((${EPOCHREALTIME//[.,]/} + $2 * 1000000))
  while pid_alive "$pid"; do
    [ "${EPOCHREALTIME//[.,]/}" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# Ends a process: SIGTERM (with SIGCONT, so that a stopped one gets it), SIGKILL when it is still there after
# $2 seconds (default 5, wall-clock). Returns once it is gone; 1 if even SIGKILL did not end it within 5 s.
stop_pid() {
  local pid="$1" grace="${2:-5}"
  kill -TERM "$pid" 2>/dev/null || true
  kill -CONT "$pid" 2>/dev/null || true
  wait_pid_gone "$pid" "$grace" && return 0
  log "pid $pid did not end within ${grace}s of SIGTERM: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  wait_pid_gone "$pid" 5
}

# Starts FerretDB on 127.0.0.1:$FERRETDB_PORT, storing in $PG_URL, in a session of its own (it outlives the script
# that started it), and records its pid in $RUN_DIR/ferretdb.pid; returns 1 when its port does not open within 15 s.
start_ferretdb() {
  log "starting FerretDB on 127.0.0.1:$FERRETDB_PORT"
  mkdir -p "$RUN_DIR/ferretdb"
  if [ -f "$RUN_DIR/ferretdb.log" ]; then mv -f "$RUN_DIR/ferretdb.log" "$RUN_DIR/ferretdb.log.1"; fi # the last run's
  setsid nohup "$(ferretdb_bin)" --handler=postgresql --postgresql-url="$(ferretdb_pg_url "$PG_URL")" \
    --listen-addr="127.0.0.1:$FERRETDB_PORT" --debug-addr=- --telemetry=disable \
    --state-dir="$RUN_DIR/ferretdb" --log-level=WARN >"$RUN_DIR/ferretdb.log" 2>&1 &
  echo $! >"$RUN_DIR/ferretdb.pid"
  wait_port "$FERRETDB_PORT" FerretDB 150
}

# Starts Jaeger with deploy/jaeger/config.yaml (traces in memory, lost when it stops) on 127.0.0.1: OTLP/HTTP on
# $JAEGER_OTLP_HTTP_PORT, the query API on $JAEGER_QUERY_PORT. Like start_ferretdb: a session of its own, pid in
# $RUN_DIR/jaeger.pid; returns 1 when its ports do not open within 15 s.
start_jaeger() {
  log "starting Jaeger: OTLP/HTTP 127.0.0.1:$JAEGER_OTLP_HTTP_PORT, query API http://127.0.0.1:$JAEGER_QUERY_PORT"
  if [ -f "$RUN_DIR/jaeger.log" ]; then mv -f "$RUN_DIR/jaeger.log" "$RUN_DIR/jaeger.log.1"; fi # the last run's
  JAEGER_LISTEN_HOST=127.0.0.1 JAEGER_OTLP_HTTP_PORT="$JAEGER_OTLP_HTTP_PORT" JAEGER_QUERY_PORT="$JAEGER_QUERY_PORT" \
    JAEGER_QUERY_GRPC_PORT="$JAEGER_QUERY_GRPC_PORT" \
    setsid nohup "$(jaeger_bin)" --config "$ROOT/deploy/jaeger/config.yaml" >"$RUN_DIR/jaeger.log" 2>&1 &
  echo $! >"$RUN_DIR/jaeger.pid"
  wait_port "$JAEGER_QUERY_PORT" Jaeger 150 && wait_port "$JAEGER_OTLP_HTTP_PORT" Jaeger 50
}
