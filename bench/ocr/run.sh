#!/usr/bin/env bash
# Text and scanned PDFs through the real OCR service process (see bench/README.md).
# Run by `pnpm bench` (scripts/bench.sh builds the workspace and starts FerretDB + Redis first).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ../scripts/install-ocr.sh
# Only this benchmark (and what it imports): another one that does not compile must not stop it.
npx tsc -p ocr/tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}"
# The fixtures are built with pdf-lib, a dependency of the OCR service's tests, not of this package.
NODE_PATH="$(cd ../services/ocr && pwd)/node_modules" node dist/bench/ocr/ocr.bench.js
