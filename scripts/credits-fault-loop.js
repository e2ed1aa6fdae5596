#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * `node scripts/credits-fault-loop.js [rounds]` (default 20): runs the credits fault test
 * (services/identity/test/credits-fault.e2e.spec.ts) `rounds` times in a row in one jest run,
 * each round a new tenant: identity is SIGKILLed at random points while 200 chats (reserve, then
 * settle or release) and purchases are retried, then balance = sum of the ledger and each
 * operation appears once. Build first (`npx nx run-many -t build -p identity testing`).
 * Each round that passes appends a line to the report file (CREDITS_FAULT_REPORT, default
 * credits-fault-report.txt in the OS temp folder), so progress shows while it runs; exits
 * non-zero when any round failed.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const rounds = Number(process.argv[2] ?? 20);
if (!Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write('usage: node scripts/credits-fault-loop.js [rounds >= 1]\n');
  process.exit(2);
}

const report = process.env.CREDITS_FAULT_REPORT ?? path.join(os.tmpdir(), 'credits-fault-report.txt');
fs.writeFileSync(report, '');
process.stdout.write(`credits fault loop: ${rounds} rounds, progress in ${report}\n`);
const started = Date.now();
const result = spawnSync(
  process.execPath,
  [
    require.resolve('jest/bin/jest'),
    '-c',
    'services/identity/jest.config.js',
    'services/identity/test/credits-fault.e2e.spec.ts',
  ],
  {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, CREDITS_FAULT_ROUNDS: String(rounds), CREDITS_FAULT_REPORT: report },
  },
);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
const passed = fs.readFileSync(report, 'utf8').split('\n').filter(Boolean).length;
process.stdout.write(
  `credits fault loop: ${passed} of ${rounds} rounds passed${result.status === 0 ? '' : ' (FAILED)'} in ${minutes} min\n`,
);
process.exit(result.status ?? 1);
