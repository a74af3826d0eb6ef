#!/usr/bin/env bash
# Brings up what the platform needs locally: pnpm, PostgreSQL, FerretDB on it, Redis, Jaeger (traces). Idempotent.
source "$(dirname "$0")/lib.sh"

# `infra.sh stop-started-by <mark>`: stops the FerretDB, Redis and Jaeger that a run carrying CI_RUN_MARK=<mark>
# started (and nothing that was already running before it).
if [ "${1:-}" = "stop-started-by" ]; then
  for pidfile in "$RUN_DIR/ferretdb.pid" "$RUN_DIR/redis.pid" "$RUN_DIR/jaeger.pid"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    # grep reads to the end (no -q): one that quits at the match kills tr with SIGPIPE, which pipefail turns into
    # "no match" for a process with a long environment.
    if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -x "CI_RUN_MARK=${2:-}" >/dev/null; then
      log "stopping $(basename "$pidfile" .pid) (pid $pid), started by this run"
      stop_pid "$pid" 5 || true
      rm -f "$pidfile"
    fi
  done
  exit 0
fi

need node "Install Node.js 20 (https://nodejs.org or the NodeSource packages)."
need npm "npm ships with Node.js."
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  || die "Node.js >= 20.19 is required, found $(node --version)."

if ! command -v pnpm >/dev/null 2>&1; then
  log "installing pnpm"
  npm install -g pnpm@10.34.8 >/dev/null 2>&1 || die "could not install pnpm with npm."
fi

# PostgreSQL (FerretDB's storage).
need psql "Install PostgreSQL (Debian: apt-get install postgresql)."
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    log "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start || true
  fi
  for _ in $(seq 50); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 0.2; done
  pg_isready -h 127.0.0.1 -p 5432 -q || die "PostgreSQL is not reachable on 127.0.0.1:5432 and could not be started."
fi
# Room for FerretDB's pool (lib.sh): max_connections takes a restart, done once, before FerretDB starts.
if [ "$(psql "${PG_URL%/*}/postgres" -tAc "SHOW max_connections")" -lt "$PG_MAX_CONNECTIONS" ]; then
  log "setting PostgreSQL's max_connections to $PG_MAX_CONNECTIONS (FerretDB's pool) and restarting it"
  psql "${PG_URL%/*}/postgres" -qc "ALTER SYSTEM SET max_connections = $PG_MAX_CONNECTIONS"
  pg_ctlcluster --skip-systemctl-redirect $(pg_lsclusters -h | awk '$3 == 5432 { print $1, $2 }') restart ||
    die "restart PostgreSQL on 127.0.0.1:5432 yourself (max_connections $PG_MAX_CONNECTIONS is set), then run this again."
  for _ in $(seq 50); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 0.2; done
fi
if ! psql "${PG_URL%/*}/postgres" -tAc "SELECT 1 FROM pg_database WHERE datname='ferretdb'" | grep -q 1; then
  log "creating PostgreSQL database ferretdb"
  psql "${PG_URL%/*}/postgres" -qc "CREATE DATABASE ferretdb" || die "could not create the ferretdb database."
fi

# FerretDB.
bash "$ROOT/scripts/install-ferretdb.sh"
if ! port_open "$FERRETDB_PORT"; then
  start_ferretdb || die "FerretDB did not start; see $RUN_DIR/ferretdb.log"
fi

# Redis.
if ! (redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG); then
  need redis-server "Install Redis (Debian: apt-get install redis-server)."
  log "starting Redis on 127.0.0.1:$REDIS_PORT"
  mkdir -p "$RUN_DIR/redis"
  setsid redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir "$RUN_DIR/redis" --logfile "$RUN_DIR/redis.log" --pidfile "$RUN_DIR/redis.pid"
  for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
  redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG || die "Redis did not start; see $RUN_DIR/redis.log"
fi

# Jaeger: the services export traces to it when OTEL_EXPORTER_OTLP_ENDPOINT names it; its UI shows them.
bash "$ROOT/scripts/install-jaeger.sh"
if ! port_open "$JAEGER_QUERY_PORT"; then
  start_jaeger || die "Jaeger did not start; see $RUN_DIR/jaeger.log"
fi
log "ready: FerretDB 127.0.0.1:$FERRETDB_PORT, Redis 127.0.0.1:$REDIS_PORT," \
  "Jaeger OTLP http://127.0.0.1:$JAEGER_OTLP_HTTP_PORT, query http://127.0.0.1:$JAEGER_QUERY_PORT"
