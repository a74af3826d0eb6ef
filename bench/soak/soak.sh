#!/usr/bin/env bash
# One hour of mixed load with flat memory and handles (see bench/README.md). Not run by `pnpm bench` nor in CI:
# `pnpm soak` (SOAK_MINUTES, SOAK_SAMPLE_S, SOAK_CONCURRENCY, SOAK_MAX_GROWTH, SOAK_BACKLOG change it).
source "$(dirname "$0")/../../scripts/lib.sh"
cd "$ROOT"
bash scripts/infra.sh
pnpm run build >/dev/null
export FERRETDB_POSTGRESQL_URL="$PG_URL" # GIN indexes for FerretDB equality lookups (libs/db README)
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:${FERRETDB_PORT}}" REDIS_URL="${REDIS_URL:-redis://127.0.0.1:${REDIS_PORT}}"
cd bench
npx tsc -p tsconfig.json
node dist/bench/soak/soak.js
