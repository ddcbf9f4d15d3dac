// Adds up the JSON reports of every jest run in a folder and prints the closing line
// "N passed, N failed, N skipped". A run that left no report (jest crashed, global setup failed)
// counts as one failed test, and so does a run whose jest exited non-zero with no failed test, and
// each failed non-test step, so nothing fails silently.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [dir, failedStepsArg = '0'] = process.argv.slice(2);
let passed = 0;
let failed = Number(failedStepsArg);
let skipped = 0;
for (const log of fs.readdirSync(dir).filter((f) => f.endsWith('.log'))) {
  const report = path.join(dir, log.replace(/\.log$/, '.json'));
  if (!fs.existsSync(report)) {
    console.error(`no report for ${log}: counted as one failure`);
    failed += 1;
    continue;
  }
  const r = JSON.parse(fs.readFileSync(report, 'utf8'));
  passed += r.numPassedTests;
  const ownFailures = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
  failed += ownFailures;
  skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  const exitFile = path.join(dir, log.replace(/\.log$/, '.exit'));
  if (fs.existsSync(exitFile) && ownFailures === 0) {
    const code = fs.readFileSync(exitFile, 'utf8').trim();
    console.error(`${log}: jest exited ${code} although no test failed: counted as one failure`);
    failed += 1;
  }
  if (r.numTotalTests === 0) {
    console.error(`${log}: jest ran no test: counted as one failure`);
    failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
