#!/usr/bin/env bash
# Knowledge-base figures (see libs/retrieval/README.md): the vector store alone (search p50/p99 over
# BENCH_RAG_VECTORS vectors beside a brute-force scan), then the rag service as a process (ingest pages/s through
# POST /v3/train/pdf/ beside the OCR extractor alone; retrieval p50/p99 over BENCH_RAG_CHUNKS chunks beside /healthz).
# BENCH_QUICK=1 runs a tenth of the sizes. Run by `pnpm bench` (scripts/bench.sh builds and starts the infra).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ../scripts/install-ocr.sh
# Only this benchmark (and what it imports): another one that does not compile must not stop it.
npx tsc -p rag/tsconfig.json
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:27017}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export FERRETDB_POSTGRESQL_URL="${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/ferretdb}"
# The PDF fixtures are built with pdf-lib, a dependency of the OCR service's tests, not of this package.
NODE_PATH="$(cd ../services/ocr && pwd)/node_modules" node dist/bench/rag/rag.bench.js
