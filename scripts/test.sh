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
export FERRETDB_POSTGRESQL_URL="$PG_URL" # where libs/db's FerretDB adapter takes its locks and reads (libs/db README)

RESULTS="$RUN_DIR/jest-results.json"
DISCIPLINE="$RUN_DIR/jest-index-discipline.json"
rm -f "$RESULTS" "$DISCIPLINE"
# Every process the suites start records the shape of each query it sends (libs/db query-log.ts), for the
# index-discipline check that follows the whole run; and libs/db's own lines are measured (coverage of the path
# MongoDB takes: everything but the development server's adapter, at least 95%).
QUERY_LOG="$RUN_DIR/query-log"
rm -rf "$QUERY_LOG"
whole_run=1
[ "$#" -gt 0 ] && whole_run=0
set +e
DB_QUERY_LOG="$QUERY_LOG" DB_COVERAGE=$whole_run timeout --kill-after=30 "${TEST_TIME_LIMIT_S:-2700}" \
  npx jest --maxWorkers=2 --json --outputFile="$RESULTS" "$@"
status=$?
set -e
[ "$status" -eq 124 ] && echo "jest did not end within ${TEST_TIME_LIMIT_S:-2700} s (a test left something running?)" >&2
if [ "$whole_run" = 1 ]; then
  # Over what every suite sent: each filter and sort served by a declared index (test/index-discipline).
  QUERY_LOG_DIR="$QUERY_LOG" npx jest --json --outputFile="$DISCIPLINE" test/index-discipline/queries.check.test.ts \
    || status=1
  node scripts/jest-summary.js "$RESULTS" "$DISCIPLINE" || exit 1
else
  node scripts/jest-summary.js "$RESULTS" || exit 1
fi
exit $status
