#!/usr/bin/env bash
# Transcript list and stats latency over 1,000,000 transcripts of one organization, 100,000 of one agent
# (see services/voice/README.md). Run by `pnpm bench` (scripts/bench.sh builds the workspace and starts FerretDB).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}"
# On FerretDB, libs/db's adapter (in the service and in the seeding) works in the PostgreSQL database FerretDB
# stores in; MongoDB ignores it.
export FERRETDB_POSTGRESQL_URL="${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/ferretdb}"
node dist/bench/voice/voice.bench.js
