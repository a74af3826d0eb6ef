#!/usr/bin/env bash
# The chaos suites (test/chaos): PostgreSQL stopped under FerretDB, Redis restarted, a worker killed, each in the
# middle of a burst of signed triggers against real service processes. Each suite takes away only stores and processes
# of its own, so two lanes run at once: the suites that keep the machine busy (replica sets under traffic, cron
# replicas, Redis Cluster) one after another in one lane, and those that mostly wait for a stopped store to come back
# in the other. With arguments, jest runs what they name, one file at a time.
# Ends with "N passed, N failed" from jest's JSON results.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bash scripts/infra.sh
pnpm install --frozen-lockfile --prefer-offline >/dev/null
pnpm run build >/dev/null
export FERRETDB_BIN="$(ferretdb_bin)"
export MONGODB_URI="mongodb://127.0.0.1:${FERRETDB_PORT}"
export REDIS_URL="redis://127.0.0.1:${REDIS_PORT}"
export FERRETDB_POSTGRESQL_URL="$PG_URL" # where libs/db's FerretDB adapter takes its locks and reads (libs/db README)
export JEST_CHAOS=1

rm -f "$RUN_DIR"/jest-chaos*.json
LIMIT="${TEST_TIME_LIMIT_S:-1800}"
if [ "$#" -gt 0 ]; then
  set +e
  timeout --kill-after=30 "$LIMIT" npx jest --runInBand --json --outputFile="$RUN_DIR/jest-chaos.json" test/chaos "$@"
  status=$?
  set -e
  node scripts/jest-summary.js "$RUN_DIR/jest-chaos.json" || exit 1
  exit $status
fi

BUSY='/(replicas|cron-replicas|cron-replicas\.broken|cluster)\.chaos\.test\.ts$'
busy=() waiting=()
for f in test/chaos/*.chaos.test.ts; do
  if [[ "/$f" =~ $BUSY ]]; then busy+=("$f"); else waiting+=("$f"); fi
done
# lane <name> <files...>: one jest, one file at a time, its results in jest-chaos-<name>.json and its output in .log.
lane() {
  local name="$1"
  shift
  timeout --kill-after=30 "$LIMIT" npx jest --runInBand --json --outputFile="$RUN_DIR/jest-chaos-$name.json" \
    --runTestsByPath "$@" >"$RUN_DIR/jest-chaos-$name.log" 2>&1
}
set +e
lane busy "${busy[@]}" &
busy_pid=$!
lane waiting "${waiting[@]}"
status=$?
wait "$busy_pid" || status=1
set -e
# Each lane's jest output, one after the other.
for name in busy waiting; do
  echo "--- chaos lane: $name" >&2
  cat "$RUN_DIR/jest-chaos-$name.log" >&2
done
node scripts/jest-summary.js "$RUN_DIR"/jest-chaos-busy.json "$RUN_DIR"/jest-chaos-waiting.json || exit 1
exit $status
