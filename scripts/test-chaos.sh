#!/usr/bin/env bash
# The chaos suites (test/chaos): PostgreSQL stopped under FerretDB, Redis restarted, a worker killed, each in the
# middle of a burst of signed triggers against real service processes. One file at a time (they load the machine).
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

RESULTS="$RUN_DIR/jest-chaos.json"
rm -f "$RESULTS"
set +e
timeout --kill-after=30 "${TEST_TIME_LIMIT_S:-1800}" npx jest --runInBand --json --outputFile="$RESULTS" test/chaos "$@"
status=$?
set -e
node scripts/jest-summary.js "$RESULTS" || exit 1
exit $status
