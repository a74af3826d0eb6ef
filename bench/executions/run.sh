#!/usr/bin/env bash
# Execution list latency over 1,000,000 executions, 100,000 of one webhook (see bench/README.md).
# Run by `pnpm bench` (scripts/bench.sh builds the workspace and starts FerretDB + Redis first).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}" REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
# The scheduler (and the seeding) add the GIN indexes FerretDB's PostgreSQL needs (libs/db README); a no-op on MongoDB.
export FERRETDB_POSTGRESQL_URL="${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/ferretdb}"
node dist/bench/executions/executions.bench.js
