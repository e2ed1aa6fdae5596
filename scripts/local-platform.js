// @ts-check
'use strict';
/**
 * A whole platform for the scripts that drive one from outside (`npm run bench`, `npm run fuzz`):
 * builds unless told not to, starts the local MongoDB stand-in and Kafka (unless MONGODB_URI /
 * KAFKA_BROKERS name running ones) and the five processes on free ports.
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** @param {(line: string) => void} log */
function build(log) {
  log('building');
  execFileSync(process.execPath, [require.resolve('nx/bin/nx'), 'run-many', '-t', 'build', '--outputStyle=static'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NX_DAEMON: 'false' },
  });
}

/**
 * `mongoDataDir` keeps the MongoDB stand-in's data on disk (its H2 backend, as `npm start` runs
 * it); without it the stand-in keeps its data in memory. The answer names the infrastructure's
 * processes (undefined where MONGODB_URI / KAFKA_BROKERS name running ones), for measurements.
 * @param {{ work: string, env?: Record<string, string>, log: (line: string) => void, mongoDataDir?: string }} options
 * @returns {Promise<{ platform: any, stop: () => Promise<void>, infra: { mongo?: import('node:child_process').ChildProcess, kafka?: import('node:child_process').ChildProcess } }>}
 *   the started platform, how to stop everything, and the infrastructure's processes
 */
async function startLocalPlatform({ work, env = {}, log, mongoDataDir }) {
  const { Platform } = require(path.join(ROOT, 'packages/testing/dist'));
  const infra = require(path.join(ROOT, 'deploy/local/infra.js'));
  /** @type {Array<() => Promise<void>>} */
  const stoppers = [];
  const stop = async () => {
    for (const s of stoppers.reverse()) await s().catch(() => undefined);
  };
  try {
    await infra.fetchArtifacts({ quiet: true });
    // agent-memory's embedding model (its hashing fallback runs without it, with a warning).
    await require(path.join(ROOT, 'deploy/local/model.js'))
      .fetchModel({ quiet: true })
      .catch((/** @type {Error} */ error) => log(error.message));
    const mongo = process.env.MONGODB_URI
      ? { uri: process.env.MONGODB_URI }
      : await infra.startMongo({ port: 0, dataDir: mongoDataDir ?? null, logFile: path.join(work, 'mongo.log') });
    if (mongo.stop) stoppers.push(() => mongo.stop());
    const kafka = process.env.KAFKA_BROKERS
      ? { brokers: process.env.KAFKA_BROKERS.split(',') }
      : await infra.startKafka({ port: 0, dataDir: path.join(work, 'kafka'), logFile: path.join(work, 'kafka.log') });
    if (kafka.stop) stoppers.push(() => kafka.stop());
    process.env.AP_TEST_WORKDIR = work;
    const platform = new Platform({ mongoUri: mongo.uri, kafkaBrokers: kafka.brokers, env });
    stoppers.push(() => platform.stop());
    await platform.start();
    log(`platform at ${platform.url}`);
    return { platform, stop, infra: { mongo: mongo.process, kafka: kafka.process } };
  } catch (error) {
    await stop();
    throw error;
  }
}

module.exports = { build, startLocalPlatform };
