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
# lane <name> <jest arguments...>: one jest, one file at a time; results in jest-chaos-<name>.json, output in .log.
# --forceExit: a chaos case that fails midway can leave a socket or timer open, and jest would then wait out the whole
# time limit after writing its results (a CI run lost 30 minutes so). The processes the tests started are ended by
# jest's global teardown all the same, and .ci/run fails when any of them outlives it.
lane() {
  local name="$1"
  shift
  timeout --kill-after=30 "${TEST_TIME_LIMIT_S:-1800}" npx jest --runInBand --forceExit --json \
    --outputFile="$RUN_DIR/jest-chaos-$name.json" "$@" >"$RUN_DIR/jest-chaos-$name.log" 2>&1
}
set +e
if [ "$#" -gt 0 ]; then
  lanes=(named)
  lane named test/chaos "$@"
  status=$?
else
  lanes=(busy waiting)
  BUSY='/(replicas|cron-replicas|cron-replicas\.broken|cluster)\.chaos\.test\.ts$'
  busy=() waiting=()
  for f in test/chaos/*.chaos.test.ts; do
    if [[ "/$f" =~ $BUSY ]]; then busy+=("$f"); else waiting+=("$f"); fi
  done
  lane busy --runTestsByPath "${busy[@]}" &
  busy_pid=$!
  lane waiting --runTestsByPath "${waiting[@]}"
  status=$?
  wait "$busy_pid" || status=1
fi
set -e
results=()
for name in "${lanes[@]}"; do
  echo "--- chaos lane: $name" >&2
  cat "$RUN_DIR/jest-chaos-$name.log" >&2
  results+=("$RUN_DIR/jest-chaos-$name.json")
done
node scripts/jest-summary.js "${results[@]}" || exit 1
exit $status
