#!/usr/bin/env bash
# Runs the clock-sensitive suites with every clock of the test processes moved (libfaketime): a year ahead, three
# years ahead, and a few minutes before a daylight-saving change (America/New_York, spring 2027), then the real-clock
# schedule suite once more so that its every-minute fire lands on that change. Ends with "N passed, N failed".
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bash scripts/infra.sh
if ! command -v faketime >/dev/null 2>&1; then
  log "installing faketime (libfaketime)"
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime >/dev/null 2>&1 || die "could not install faketime (apt-get install faketime)."
  else
    sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq faketime >/dev/null 2>&1 || die "faketime is required: apt-get install faketime"
  fi
fi
LIBFAKETIME="$(dpkg -L libfaketime 2>/dev/null | grep -m1 '/libfaketimeMT\.so\.1$' || true)"
[ -n "$LIBFAKETIME" ] || LIBFAKETIME="$(find /usr/lib* -name 'libfaketimeMT.so.1' 2>/dev/null | head -1)"
[ -f "$LIBFAKETIME" ] || die "libfaketimeMT.so.1 not found (apt-get install faketime)."

pnpm install --frozen-lockfile --prefer-offline >/dev/null
pnpm run build >/dev/null
export FERRETDB_BIN="$(ferretdb_bin)"
export MONGODB_URI="mongodb://127.0.0.1:${FERRETDB_PORT}"
export REDIS_URL="redis://127.0.0.1:${REDIS_PORT}"
export FERRETDB_POSTGRESQL_URL="$PG_URL" # where libs/db's FerretDB adapter takes its locks and reads (libs/db README)

# The suites whose subject is time: cron fires, retries and delays, signatures with timestamps, idempotency windows,
# secret grace periods, key caches, outbox ages, session ordering, liveness timers.
SUITES=(
  libs/auth/test
  libs/queue/test
  libs/scheduling/test
  services/scheduler/test
  services/worker/test
  services/agent/test/inference-memory
  services/agent/test/revocation
)

PHASE=0
rm -f "$RUN_DIR"/jest-any-date-*.json

# run_at <label> <FAKETIME value> <jest args...>
run_at() {
  local label="$1" faketime="$2"
  shift 2
  PHASE=$((PHASE + 1))
  local results="$RUN_DIR/jest-any-date-$PHASE.json"
  log "$label (FAKETIME=$faketime)"
  LD_PRELOAD="$LIBFAKETIME" FAKETIME="$faketime" timeout --kill-after=30 1200 \
    npx jest --maxWorkers=2 --json --outputFile="$results" "$@" >"$RUN_DIR/jest-any-date-$PHASE.log" 2>&1 || true
  [ -f "$results" ] || tail -50 "$RUN_DIR/jest-any-date-$PHASE.log" >&2
  printf '%s, ' "$label"
  node -e '
    const r = require(process.argv[1]);
    for (const s of r.testResults) if (s.status !== "passed") console.error(`FAIL ${s.name}\n${s.message}`);
    process.stdout.write(`clock at start ${new Date(r.startTime).toISOString()}: `);
  ' "$results" 2>&1 || true
  node scripts/jest-summary.js "$results" || true
}

# An offset that puts the clock at an absolute instant now, and keeps it ticking (all processes agree on it).
offset_to() { echo "$(( $(date -u -d "$1" +%s) - $(date -u +%s) ))s" | sed 's/^\([0-9]\)/+\1/'; }

run_at "+1 year" "+365d" "${SUITES[@]}"
run_at "+3 years" "+1096d" "${SUITES[@]}"
run_at "before a DST change" "$(offset_to 2027-03-14T06:55:00Z)" "${SUITES[@]}"
run_at "every-minute fire on the DST change" "$(offset_to 2027-03-14T06:59:10Z)" services/scheduler/test/schedule-realtime

node scripts/jest-summary.js "$RUN_DIR"/jest-any-date-*.json
