#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * `npm run test:unit`: builds the libraries the specs import (Nx, cached), then runs the unit specs
 * (jest.unit.config.js): no global setup, so no JVM, Kafka or MongoDB. Extra arguments go to jest.
 */
const path = require('node:path');
const { ROOT, run, runJest } = require('./run-step');

require('./ensure-install').ensureInstalled();

const LIBRARIES = ['contracts', 'events', 'service-kit', 'sdk', 'testing'];
run(process.execPath, [
  require.resolve('nx/bin/nx'),
  'run-many',
  '-t',
  'build',
  '-p',
  ...LIBRARIES,
  '--outputStyle=static',
]);
runJest(['-c', path.join(ROOT, 'jest.unit.config.js'), ...process.argv.slice(2)]);
