#!/usr/bin/env bash
# Execution intake on an empty collection vs at its steady size with the retention sweep running (see bench/README.md).
# Run by `pnpm bench` (scripts/bench.sh builds the workspace and starts FerretDB + Redis first), or alone:
# `bash bench/retention/run.sh` (BENCH_RETENTION_STEADY, BENCH_INTAKE_SECONDS, BENCH_CONCURRENCY to change its size).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}" REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
# The repository adds the GIN indexes FerretDB's PostgreSQL needs (libs/db README); a no-op on MongoDB.
export FERRETDB_POSTGRESQL_URL="${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/ferretdb}"
node dist/bench/retention/retention.bench.js
