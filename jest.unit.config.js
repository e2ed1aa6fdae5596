// @ts-check
/**
 * `npm run test:unit`: the unit specs beside the code (src/**\/*.spec.ts) with no global setup, so
 * no JVM, Kafka or MongoDB starts. Specs that need the real infrastructure run only in `npm test`.
 */
const fs = require('node:fs');
const os = require('node:os');
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
 * One and a half workers per core: jest's default (cores - 1) leaves one of a 2-core machine idle,
 * and a few specs (the embedding backlog's bursts, the CEL budget) spend seconds waiting on real
 * timers, which a third worker fills. On 2 cores, 513 specs: 31.9-33.5 s with 2 workers, 28.8-30.6
 * s with 3 (2026-11-24, quiet machine).
 * @type {import('jest').Config}
 */
module.exports = {
  projects,
  // jest reads a percentage above 100% as a count, so the number is computed here.
  maxWorkers: Math.ceil(os.availableParallelism() * 1.5),
  testTimeout: 10_000,
  passWithNoTests: true,
};
