#!/usr/bin/env bash
# Restarts the FerretDB that infra.sh started (its pid in .run/ferretdb.pid) when it stops answering. FerretDB 1.24
# can hang under batch loads, still accepting connections, so a port check is not enough: every
# FERRETDB_WATCH_INTERVAL seconds this sends a MongoDB ping (ferretdb-ping.js), and after FERRETDB_WATCH_FAILURES
# unanswered in a row (FERRETDB_WATCH_TIMEOUT seconds each) it ends that process (SIGTERM, SIGKILL after
# FERRETDB_WATCH_STOP_GRACE seconds) and starts FerretDB again as infra.sh does (start_ferretdb). A FerretDB that these
# scripts did not start is never touched: then this exits at once. up.sh runs it in the background.
source "$(dirname "$0")/lib.sh"

INTERVAL="${FERRETDB_WATCH_INTERVAL:-10}"
TIMEOUT="${FERRETDB_WATCH_TIMEOUT:-5}"
FAILURES="${FERRETDB_WATCH_FAILURES:-2}"
STOP_GRACE="${FERRETDB_WATCH_STOP_GRACE:-5}"
seconds='^[0-9]+([.][0-9]+)?$'
[[ $INTERVAL =~ $seconds ]] || die "FERRETDB_WATCH_INTERVAL must be a number of seconds (0 turns the watch off), got '$INTERVAL'"
[[ $TIMEOUT =~ $seconds ]] && [[ ! $TIMEOUT =~ ^0*([.]0*)?$ ]] || die "FERRETDB_WATCH_TIMEOUT must be a number of seconds above 0, got '$TIMEOUT'"
[[ $FAILURES =~ ^[1-9][0-9]*$ ]] || die "FERRETDB_WATCH_FAILURES must be a whole number above 0, got '$FAILURES'"
[[ $STOP_GRACE =~ ^[1-9][0-9]*$ ]] || die "FERRETDB_WATCH_STOP_GRACE must be a whole number of seconds above 0, got '$STOP_GRACE'"
if [[ $INTERVAL =~ ^0*([.]0*)?$ ]]; then log "FerretDB watch off (FERRETDB_WATCH_INTERVAL=0)"; exit 0; fi

say() { log "$(date +%T) $*"; }

URI="mongodb://127.0.0.1:$FERRETDB_PORT"
TIMEOUT_MS=$(awk -v s="$TIMEOUT" 'BEGIN { printf "%d", s * 1000 }')
PING_ERR=$(mktemp)

# Signals: end at once while waiting (the child waited for is ended too), but never in the middle of a restart, which
# would leave FerretDB stopped.
CHILD=""
RESTARTING=""
STOP=""
on_signal() {
  STOP=1
  if [ -n "$CHILD" ]; then kill "$CHILD" 2>/dev/null || true; fi
  if [ -z "$RESTARTING" ]; then exit 0; fi
}
trap on_signal INT TERM
trap 'rm -f "$PING_ERR"' EXIT

# Runs a command in the background and waits for it, so that a signal is handled without waiting for the command.
run() {
  local rc=0
  "$@" &
  CHILD=$!
  wait "$CHILD" || rc=$?
  CHILD=""
  return "$rc"
}

restart() {
  local pid
  RESTARTING=1
  if pid=$(ferretdb_started_pid); then
    say "stopping FerretDB (pid $pid)"
    if ! stop_pid "$pid" "$STOP_GRACE"; then
      say "FerretDB (pid $pid) did not end; trying again at the next failed ping"
      RESTARTING=""
      return
    fi
  elif port_open "$FERRETDB_PORT"; then
    say "port $FERRETDB_PORT is held by a process these scripts did not start: left alone"
    RESTARTING=""
    return
  else
    say "FerretDB (pid file $RUN_DIR/ferretdb.pid) is gone"
  fi
  if start_ferretdb; then
    say "FerretDB restarted (pid $(cat "$RUN_DIR/ferretdb.pid")); log: $RUN_DIR/ferretdb.log"
  else
    say "FerretDB did not start again (see $RUN_DIR/ferretdb.log); trying again at the next failed ping"
  fi
  RESTARTING=""
  if [ -n "$STOP" ]; then exit 0; fi
}

if ! pid=$(ferretdb_started_pid); then
  log "FerretDB on 127.0.0.1:$FERRETDB_PORT was not started by these scripts ($RUN_DIR/ferretdb.pid): not watched"
  exit 0
fi
log "watching FerretDB (pid $pid): a ping every ${INTERVAL}s, restarted after $FAILURES unanswered in a row (${TIMEOUT}s each)"

failed=0
while :; do
  run sleep "$INTERVAL" || true
  if run node "$ROOT/scripts/ferretdb-ping.js" "$URI" "$TIMEOUT_MS" 2>"$PING_ERR"; then
    if [ "$failed" -gt 0 ]; then say "FerretDB answers again"; fi
    failed=0
    continue
  fi
  failed=$((failed + 1))
  say "FerretDB ping failed ($failed/$FAILURES): $(head -c 300 "$PING_ERR" | tr '\n' ' ' | sed 's/ *$//')"
  if [ "$failed" -ge "$FAILURES" ]; then
    restart
    failed=0
  fi
done
