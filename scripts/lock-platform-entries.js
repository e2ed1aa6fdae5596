#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * The npm registry mirror of our machines lacks other platforms' optional binaries (for example
 * @bufbuild/buf-darwin-arm64), so `npm install` leaves them out of package-lock.json and `npm ci`
 * then refuses the lock as out of sync. This adds the entries `npm ci` asks for, marked optional
 * with the os/cpu their names say, so npm skips them on other platforms without fetching them.
 *
 * Run after `npm install` changed the lock:  node scripts/lock-platform-entries.js
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', 'package-lock.json');
const check = spawnSync('npm', ['ci', '--dry-run', '--no-audit', '--no-fund'], {
  cwd: path.dirname(lockPath),
  encoding: 'utf8',
});
const missing = [...`${check.stdout}${check.stderr}`.matchAll(/Missing: (.+?)@ from lock file/g)].map((m) => m[1]);
if (missing.length === 0) {
  console.log('package-lock.json already satisfies npm ci');
  process.exit(0);
}
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openharmony'];
const CPU = {
  arm64: 'arm64',
  aarch64: 'arm64',
  x64: 'x64',
  armv7: 'arm',
  arm: 'arm',
  ia32: 'ia32',
  ppc64: 'ppc64',
  s390x: 's390x',
  loong64: 'loong64',
  riscv64: 'riscv64',
};
for (const name of missing) {
  const parent = Object.entries(lock.packages).find(([, p]) => p.optionalDependencies && p.optionalDependencies[name]);
  if (!parent) throw new Error(`no parent for ${name}`);
  const [, info] = parent;
  const parts = (name.split('/').pop() ?? name).split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  const libc =
    parts.includes('musl') || parts.includes('musleabihf')
      ? 'musl'
      : parts.includes('gnu') || parts.includes('gnueabihf')
        ? 'glibc'
        : undefined;
  /** @type {{ version: string, dev?: boolean, optional: boolean, os?: string[], cpu?: string[], libc?: string[] }} */
  const entry = {
    version: info.optionalDependencies[name].replace(/^[\^~]/, ''),
    ...(info.dev ? { dev: true } : {}),
    optional: true,
  };
  if (os) entry.os = [os];
  if (cpu) entry.cpu = [cpu];
  if (libc) entry.libc = [libc];
  lock.packages[`node_modules/${name}`] = entry;
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${missing.length} platform entries to package-lock.json`);
