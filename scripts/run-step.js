// @ts-check
'use strict';
/** One step of an npm script (test, test:unit): runs in the repository root; a failure ends the script. */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** @param {string} command @param {string[]} args */
function spawn(command, args) {
  return spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NX_DAEMON: 'false' } });
}

/** @param {string} command @param {string[]} args */
function run(command, args) {
  const result = spawn(command, args);
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/**
 * Runs jest with `args`, then ends the output with one plain line, `tests: N passed, N failed,
 * N skipped`, that any CI reads without knowing jest's own summary; exits with jest's status.
 * @param {string[]} args
 */
function runJest(args) {
  const results = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'jest-')), 'results.json');
  const result = spawn(process.execPath, [
    require.resolve('jest/bin/jest'),
    ...args,
    '--json',
    `--outputFile=${results}`,
  ]);
  try {
    /** @type {{ numPassedTests: number, numFailedTests: number, numPendingTests: number, numTodoTests: number, numRuntimeErrorTestSuites: number }} */
    const summary = JSON.parse(fs.readFileSync(results, 'utf8'));
    // A suite that fails to load counts no test: name it a failure so the line never reads green.
    const failed = summary.numFailedTests + summary.numRuntimeErrorTestSuites;
    const skipped = summary.numPendingTests + summary.numTodoTests;
    console.log(`tests: ${summary.numPassedTests} passed, ${failed} failed, ${skipped} skipped`);
  } catch {
    console.log('tests: jest wrote no results (see its output above)');
  } finally {
    fs.rmSync(path.dirname(results), { recursive: true, force: true });
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

module.exports = { ROOT, run, runJest };
