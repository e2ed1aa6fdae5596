// @ts-check
/**
 * Shared jest settings. Unit specs live beside the code (src/**\/*.spec.ts); e2e specs under
 * test/ run against real processes, so they get a longer timeout. The real infrastructure
 * (MongoDB-compatible server, Kafka) is started once per run by the global setup.
 */
const path = require('node:path');

module.exports = (displayName, rootDir) => ({
  displayName,
  rootDir,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  globalSetup: path.join(__dirname, 'packages/testing/dist/global-setup.js'),
  globalTeardown: path.join(__dirname, 'packages/testing/dist/global-teardown.js'),
  // Sources import siblings as './x.js' (node16 resolution); jest resolves them to the .ts file.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 60_000,
});
