#!/usr/bin/env bash
# Reproduces the shipped toxicity model (src/checks/models/toxicity.json) byte for byte: prepares the splits from the
# pinned public datasets (bench/datasets/toxicity.ts), then trains on the train split only (scripts/train-toxicity.ts).
# Needs RAI_DATASETS_DIR, a folder of repository snapshots (see bench/datasets/SOURCES.md).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${RAI_DATASETS_DIR:?set RAI_DATASETS_DIR to the folder of dataset snapshots (see bench/datasets/SOURCES.md)}"
TS_NODE=${TS_NODE:-npx ts-node --transpile-only}
$TS_NODE bench/datasets/toxicity.ts
$TS_NODE scripts/train-toxicity.ts
