#!/usr/bin/env node
'use strict';
/**
 * `node scripts/credits-fault-loop.js [rounds]` (default 20): runs the credits fault test
 * (services/identity/test/credits-fault.e2e.spec.ts) `rounds` times in a row in one jest run,
 * each round a new tenant: identity is SIGKILLed at random points while 200 chats (reserve, then
 * settle or release) and purchases are retried, then balance = sum of the ledger and each
 * operation appears once. Build first (`npx nx run-many -t build -p identity testing`).
 * Exits non-zero on the first failing round; prints one line per round.
 */
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const rounds = Number(process.argv[2] ?? 20);
if (!Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write('usage: node scripts/credits-fault-loop.js [rounds >= 1]\n');
  process.exit(2);
}

const started = Date.now();
const result = spawnSync(
  process.execPath,
  [
    require.resolve('jest/bin/jest'),
    '-c',
    'services/identity/jest.config.js',
    'services/identity/test/credits-fault.e2e.spec.ts',
  ],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, CREDITS_FAULT_ROUNDS: String(rounds) } },
);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
process.stdout.write(
  `credits fault loop: ${rounds} rounds ${result.status === 0 ? 'passed' : 'FAILED'} in ${minutes} min\n`,
);
process.exit(result.status ?? 1);
