// @ts-check
'use strict';
/** One step of an npm script (test, test:unit): runs in the repository root; a failure ends the script. */
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** @param {string} command @param {string[]} args */
function run(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NX_DAEMON: 'false' } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

module.exports = { ROOT, run };
