#!/usr/bin/env bash
# Signed webhook triggers against the scheduler, worker and agent service (see bench/README.md).
# Run by `pnpm bench` (scripts/bench.sh builds the workspace and starts FerretDB + Redis first).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}" REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export BENCH_RESULTS
BENCH_RESULTS="$(mktemp)"
trap 'rm -f "$BENCH_RESULTS"' EXIT
tracing() { BENCH_PRESEED_EXECUTIONS="${BENCH_PRESEED_EXECUTIONS:-100000}" node dist/bench/trigger/tracing.js; }
# BENCH_TRACING=only: the tracing comparison alone (below).
if [ "${BENCH_TRACING:-1}" = only ]; then
  tracing
  exit
fi
# Growth: on an empty store first (BENCH_GROWTH=0 skips it), then on a store in use (BENCH_PRESEED_EXECUTIONS,
# default 100,000 executions of other webhooks), compared; then with BENCH_PRESEED_LARGE (default 1,000,000) stored.
if [ "${BENCH_GROWTH:-1}" != 0 ]; then
  BENCH_PRESEED_EXECUTIONS=0 node dist/bench/trigger/trigger.bench.js
fi
BENCH_PRESEED_EXECUTIONS="${BENCH_PRESEED_EXECUTIONS:-100000}" node dist/bench/trigger/trigger.bench.js
node dist/bench/kit/growth.js "$BENCH_RESULTS" trigger intake_per_s:higher runs_per_s:higher
# Tracing (issue 45): the same stack with tracing off, on (a private Jaeger, always_on) and sampled out (always_off),
# alternating rounds on stores of BENCH_PRESEED_EXECUTIONS each (trigger/tracing.ts; BENCH_TRACING=0 skips it).
if [ "${BENCH_TRACING:-1}" != 0 ]; then
  tracing
fi
if [ "${BENCH_PRESEED_LARGE:-1000000}" != 0 ]; then
  BENCH_PRESEED_EXECUTIONS="${BENCH_PRESEED_LARGE:-1000000}" node dist/bench/trigger/trigger.bench.js
fi
