#!/usr/bin/env bash
# RAI checks on public labelled data: precision, recall, F1 and p50/p99 latency (2 KB) per check family, on the
# held-out and the cross-dataset splits (services/rai/bench/datasets/SOURCES.md), then the template regression set.
# The datasets are not committed: RAI_DATASETS_DIR names a folder of repository snapshots (<owner>+<name>/repo, bare
# git directories) holding the commits SOURCES.md pins; the splits are prepared from them into
# services/rai/.eval-data (or RAI_EVAL_DIR) on every run. Without RAI_DATASETS_DIR, splits prepared earlier are used.
# Needs no infrastructure: the checks are pure functions. RAI_EVAL_ERRORS=1 also lists the misses.
set -euo pipefail
cd "$(dirname "$0")/../.."
pnpm --silent --filter @platform/rai-service exec tsc -p tsconfig.bench.json
dist=services/rai/dist/bench/bench
if [ -n "${RAI_DATASETS_DIR:-}" ]; then
  # cross2 is deduplicated against the other prompt-injection splits, and the PurpleLlama splits against all of them,
  # so each is prepared after those.
  for script in prompt_injection prompt_injection_cross2 prompt_injection_purplellama toxicity secrets pii; do
    node "$dist/datasets/$script.js" >&2
  done
fi
node "$dist/rai.bench.js"
