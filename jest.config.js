// @ts-check
/** The whole suite in one jest run, so the infrastructure starts once. */
const path = require('node:path');

/** @type {import('jest').Config} */
module.exports = {
  projects: ['<rootDir>/packages/*/jest.config.js', '<rootDir>/services/*/jest.config.js'],
  globalSetup: path.join(__dirname, 'packages/testing/dist/global-setup.js'),
  globalTeardown: path.join(__dirname, 'packages/testing/dist/global-teardown.js'),
  testTimeout: 60_000,
  passWithNoTests: true,
};
