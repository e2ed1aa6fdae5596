#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * `npm run test:unit`: builds what the specs need (Nx, cached; not even started when every
 * build is newer than its sources), then runs the unit specs (jest.unit.config.js):
 * no global setup, so no JVM, Kafka or MongoDB. Extra arguments go to jest.
 */
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, run, runJest } = require('./run-step');

require('./ensure-install').ensureInstalled();

/**
 * The builds the specs need, by folder: the libraries they import, and the workflow service,
 * whose expression sandbox spec runs the compiled worker in real threads.
 */
const BUILDS = {
  contracts: 'packages/contracts',
  events: 'packages/events',
  'service-kit': 'packages/service-kit',
  sdk: 'packages/sdk',
  testing: 'packages/testing',
  workflow: 'services/workflow',
};

/**
 * The newest modification time of a build's inputs below `file` (Nx's `production` inputs: specs
 * do not count), or 0 when it is missing.
 * @param {string} file
 * @returns {number}
 */
function newestInput(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return file.endsWith('.spec.ts') ? 0 : stat.mtimeMs;
  return Math.max(
    0,
    ...fs
      .readdirSync(file)
      .filter((name) => name !== 'dist' && name !== 'node_modules')
      .map((name) => newestInput(path.join(file, name))),
  );
}

/**
 * True when every build's last run is newer than all its inputs: then Nx, which would find
 * every build in its cache, is not started (it costs about 2.5 s of this command's time even so).
 * A checkout, an edit or a restored cache entry all leave newer files, so a doubt runs Nx.
 */
function librariesBuilt() {
  const shared = Math.max(
    ...['tsconfig.base.json', 'package-lock.json', 'proto'].map((f) => newestInput(path.join(ROOT, f))),
  );
  return Object.values(BUILDS).every((folder) => {
    const dir = path.join(ROOT, folder);
    const built = newestInput(path.join(dir, 'dist', 'tsconfig.lib.tsbuildinfo'));
    return built > Math.max(shared, newestInput(dir));
  });
}

if (!librariesBuilt())
  run(process.execPath, [
    require.resolve('nx/bin/nx'),
    'run-many',
    '-t',
    'build',
    '-p',
    ...Object.keys(BUILDS),
    '--outputStyle=static',
  ]);
runJest(['-c', path.join(ROOT, 'jest.unit.config.js'), ...process.argv.slice(2)]);
