#!/usr/bin/env bash
# Cron schedules at scale: N HTTP schedules firing every minute, 1 scheduler + 2 workers (see bench/README.md).
# Runs N=1,000 then N=10,000, each with 1 and with 2 worker processes (CRON_BENCH_N="1000 10000",
# CRON_BENCH_WORKER_COUNTS="1 2"; CRON_BENCH_MINUTES=3 fire minutes observed each), on a store already holding
# CRON_BENCH_PRESEED (100,000) executions. Growth: the first of them runs once more on an empty store and the two
# passes are compared (BENCH_GROWTH=0 skips it).
# Run by `pnpm bench` (scripts/bench.sh builds the workspace and starts FerretDB + Redis first).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}" REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export BENCH_RESULTS
BENCH_RESULTS="$(mktemp)"
trap 'rm -f "$BENCH_RESULTS"' EXIT
first=1
for n in ${CRON_BENCH_N:-1000 10000}; do
  for w in ${CRON_BENCH_WORKER_COUNTS:-1 2}; do
    if [ "$first" = 1 ] && [ "${BENCH_GROWTH:-1}" != 0 ]; then
      CRON_BENCH_N="$n" CRON_BENCH_WORKERS="$w" CRON_BENCH_PRESEED=0 node dist/bench/cron/cron.bench.js
    fi
    first=0
    CRON_BENCH_N="$n" CRON_BENCH_WORKERS="$w" node dist/bench/cron/cron.bench.js
  done
done
node dist/bench/kit/growth.js "$BENCH_RESULTS" cron p99_lag_ms:lower
