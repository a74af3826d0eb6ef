#!/usr/bin/env bash
# Runs every test on real FerretDB and Redis: installs, starts what is missing, then jest. Extra args go to jest.
# Ends with "N passed, N failed" from jest's JSON results. Jest must end on its own: a test that leaves a handle
# open hangs it, and the time limit below turns that into a failure instead of a stuck run.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bash scripts/infra.sh
bash scripts/install-ocr.sh # poppler, tesseract and the fixture tools of the OCR service's tests
bash scripts/install-graph.sh # Debian's Chromium, for the graph service's playwright:chromium crawls
bash scripts/install-k8s-tools.sh # kustomize + kubeconform (pinned, built from their Go modules into .tools/bin) for test/deploy
pnpm install --frozen-lockfile --prefer-offline >/dev/null
pnpm run build >/dev/null
export FERRETDB_BIN="$(ferretdb_bin)"
export MONGODB_URI="mongodb://127.0.0.1:${FERRETDB_PORT}"
export REDIS_URL="redis://127.0.0.1:${REDIS_PORT}"
export FERRETDB_POSTGRESQL_URL="$PG_URL" # GIN indexes for FerretDB equality lookups (libs/db README)

RESULTS="$RUN_DIR/jest-results.json"
rm -f "$RESULTS"
set +e
timeout --kill-after=30 "${TEST_TIME_LIMIT_S:-2400}" npx jest --maxWorkers=2 --json --outputFile="$RESULTS" "$@"
status=$?
set -e
[ "$status" -eq 124 ] && echo "jest did not end within ${TEST_TIME_LIMIT_S:-2400} s (a test left something running?)" >&2
node scripts/jest-summary.js "$RESULTS" || exit 1
exit $status
