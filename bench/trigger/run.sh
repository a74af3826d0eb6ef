#!/usr/bin/env bash
# Signed webhook triggers against the scheduler, worker and agent service (see bench/README.md).
# Run by `pnpm bench` (scripts/bench.sh builds the workspace and starts FerretDB + Redis first).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}" REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
# Intake on a store in use (BENCH_PRESEED_EXECUTIONS, default 100,000 executions of other webhooks), then with
# BENCH_PRESEED_LARGE (default 1,000,000) already stored.
BENCH_PRESEED_EXECUTIONS="${BENCH_PRESEED_EXECUTIONS:-100000}" node dist/bench/trigger/trigger.bench.js
if [ "${BENCH_PRESEED_LARGE:-1000000}" != 0 ]; then
  BENCH_PRESEED_EXECUTIONS="${BENCH_PRESEED_LARGE:-1000000}" node dist/bench/trigger/trigger.bench.js
fi
