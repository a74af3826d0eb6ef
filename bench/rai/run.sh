#!/usr/bin/env bash
# RAI checks on the labelled evaluation set (services/rai/bench): precision, recall, F1 and p50/p99 latency per check.
# Needs no infrastructure: the checks are pure functions. RAI_EVAL_ERRORS=1 also lists the examples a check got wrong.
set -euo pipefail
cd "$(dirname "$0")/../.."
pnpm --silent --filter @platform/rai-service run bench
