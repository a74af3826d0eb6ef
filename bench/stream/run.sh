#!/usr/bin/env bash
# Streaming chat: TTFB and latency added per delta by the agent service over the provider's own stream
# (see services/agent/README.md). Run by `pnpm bench` (scripts/bench.sh builds the workspace and starts the stores).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
node dist/bench/stream/stream.bench.js
