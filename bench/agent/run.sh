#!/usr/bin/env bash
# The agent service alone against its floor, alternating rounds (see bench/README.md). Run by `pnpm bench`
# (scripts/bench.sh builds the workspace and starts FerretDB + Redis first).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}" REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
node dist/bench/agent/agent.bench.js
