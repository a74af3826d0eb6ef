#!/usr/bin/env bash
# Knowledge-graph figures (see services/graph/README.md): pages per second crawled and trained from a local site of
# BENCH_GRAPH_PAGES (1,000) pages, and retrieval latency over BENCH_GRAPH_CHUNKS (100,000) chunks, each beside the
# stack's own ceiling measured in the same run. Run by `pnpm bench` (scripts/bench.sh builds and starts the infra).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
# On the development server, libs/db's adapter works in the PostgreSQL database FerretDB stores in (README "FerretDB
# and MongoDB"); MongoDB ignores it.
export FERRETDB_POSTGRESQL_URL="${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/ferretdb}"
node dist/bench/graph/extract.bench.js
node dist/bench/graph/graph.bench.js
