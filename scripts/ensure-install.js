// @ts-check
'use strict';
/**
 * Makes `npm start`, `npm test` and `npm run bench` work as the first command on a fresh clone:
 * when node_modules is missing or older than package-lock.json, installs the locked packages
 * (visibly) before anything needs them. Uses only Node's built-ins, since nothing else is there yet.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** @param {string} file */
function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function ensureInstalled() {
  const installed = mtime(path.join(ROOT, 'node_modules', '.package-lock.json'));
  if (installed && installed >= mtime(path.join(ROOT, 'package-lock.json'))) return;
  console.log(
    installed ? 'package-lock.json changed: installing packages (npm ci)…' : 'first run: installing packages (npm ci)…',
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = ['--no-audit', '--no-fund'];
  // onnxruntime-node's install script fetches optional CUDA libraries (from a host that may be
  // unreachable); its CPU binary is in the npm package.
  const env = { ...process.env, ONNXRUNTIME_NODE_INSTALL: process.env.ONNXRUNTIME_NODE_INSTALL ?? 'skip' };
  let result = spawnSync(npm, ['ci', ...args], { cwd: ROOT, stdio: 'inherit', env });
  // The lock carries other platforms' optional binaries that some registry mirrors lack
  // (scripts/lock-platform-entries.js); `npm install` still installs the locked versions then.
  if (result.status !== 0) result = spawnSync(npm, ['install', ...args], { cwd: ROOT, stdio: 'inherit', env });
  if (result.status !== 0) {
    console.error('npm could not install the packages (see above); nothing else can run without them.');
    process.exit(result.status ?? 1);
  }
}

module.exports = { ensureInstalled };
