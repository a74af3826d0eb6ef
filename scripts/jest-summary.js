// Prints "N passed, N failed" from jest's JSON result files (a suite that failed without a failing test, e.g. in
// beforeAll, counts as one failure). Exits 1 on any failure, on nothing passed, or on a missing file.
const { existsSync, readFileSync } = require('node:fs');

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    failed += 1;
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests + (r.numFailedTestSuites > 0 && r.numFailedTests === 0 ? r.numFailedTestSuites : 0);
  if (r.numRuntimeErrorTestSuites > 0 && r.numFailedTestSuites === 0) failed += r.numRuntimeErrorTestSuites;
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
