// @ts-check
/**
 * `npm run test:unit`: the unit specs beside the code (src/**\/*.spec.ts) with no global setup, so
 * no JVM, Kafka or MongoDB starts. Specs that need the real infrastructure run only in `npm test`.
 */
const fs = require('node:fs');
const path = require('node:path');
const preset = require('./jest.preset.js');

/** Specs under src/ that talk to the MongoDB-compatible server the global setup starts. */
const NEEDS_INFRA = [
  'packages/service-kit/src/mongo.spec.ts',
  'services/identity/src/persistence/login-throttle.repository.spec.ts',
  'services/identity/src/security/signing-key-ring.spec.ts',
  'services/webhook/src/persistence/webhook.repository.spec.ts',
];

const projects = ['packages', 'services'].flatMap((group) =>
  fs
    .readdirSync(path.join(__dirname, group))
    .filter((name) => fs.existsSync(path.join(__dirname, group, name, 'jest.config.js')))
    .map((name) => {
      const {
        globalSetup: _setup,
        globalTeardown: _teardown,
        ...config
      } = preset(name, path.join(__dirname, group, name));
      return {
        ...config,
        testMatch: ['<rootDir>/src/**/*.spec.ts'],
        testPathIgnorePatterns: ['/node_modules/', ...NEEDS_INFRA.map((file) => path.join(__dirname, file))],
      };
    }),
);

/**
 * Every core runs specs: jest's default (cores - 1) leaves one of a 2-core machine idle, and the
 * main process only collects results. On 2 cores this takes the run from about 37 s to 22 s.
 * @type {import('jest').Config}
 */
module.exports = { projects, maxWorkers: '100%', testTimeout: 10_000, passWithNoTests: true };
