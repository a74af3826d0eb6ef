#!/usr/bin/env bash
# Runs every test on real FerretDB and Redis: installs, starts what is missing, then jest. Extra args go to jest.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

bash scripts/infra.sh
pnpm install --frozen-lockfile --prefer-offline >/dev/null
pnpm run build >/dev/null
export FERRETDB_BIN="$(ferretdb_bin)"
export MONGODB_URI="mongodb://127.0.0.1:${FERRETDB_PORT}"
export REDIS_URL="redis://127.0.0.1:${REDIS_PORT}"

RESULTS="$RUN_DIR/jest-results.json"
rm -f "$RESULTS"
set +e
npx jest --maxWorkers=2 --forceExit --json --outputFile="$RESULTS" "$@"
status=$?
set -e
if [ ! -f "$RESULTS" ]; then
  echo "0 passed, 1 failed"
  exit 1
fi
node -e '
  const r = require(process.argv[1]);
  const failedSuites = r.numFailedTestSuites - 0;
  const failed = r.numFailedTests + (failedSuites > 0 && r.numFailedTests === 0 ? failedSuites : 0);
  console.log(`${r.numPassedTests} passed, ${failed} failed`);
  process.exit(failed > 0 || r.numPassedTests === 0 ? 1 : 0);
' "$RESULTS" || exit 1
exit $status
