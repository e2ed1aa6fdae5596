#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * Local infrastructure for the Agent Platform: a real Apache Kafka broker (KRaft, single node) and
 * mongo-java-server (a MongoDB wire-protocol stand-in on H2), both JVMs fetched from Maven Central.
 * No Docker, no native MongoDB/Kafka install. See docs/local-infrastructure.md.
 *
 * Library (CommonJS, no npm deps; `kafkajs` is required lazily for the Kafka readiness probe):
 *   fetchArtifacts({ quiet })                                   -> Promise<void>
 *   startMongo({ port, dataDir, logFile, serverVersion, oplog, timeoutMs, jvmOpts })
 *       -> Promise<{ uri, port, stop(), process, logFile }>
 *   startKafka({ port, dataDir, logFile, partitions, controllerPort, timeoutMs, jvmOpts })
 *       -> Promise<{ brokers, port, stop(), process, logFile, dataDir }>
 *
 * CLI:
 *   node deploy/local/infra.js fetch
 *   node deploy/local/infra.js up [--mongo-port 27017] [--kafka-port 9092] [--data-dir deploy/local/.data]
 *                                 [--partitions 3]
 *
 * The modules behind it, in infra/: artifacts (download and cache), jvm (process control), mongo
 * (the stand-in), kafka, with paths and helpers.
 */

const path = require('node:path');
const { fetchArtifacts } = require('./infra/artifacts.js');
const { startKafka } = require('./infra/kafka.js');
const { startMongo } = require('./infra/mongo.js');
const { CACHE, HERE } = require('./infra/paths.js');

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const [k, inline] = a.slice(2).split('=', 2);
    const v = inline !== undefined ? inline : argv[++i];
    if (v === undefined) throw new Error(`missing value for --${k}`);
    opts[k] = v;
  }
  return opts;
}

async function cli(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === 'fetch') {
    const t0 = Date.now();
    await fetchArtifacts({ quiet: false });
    console.log(`artifacts ready in ${path.relative(process.cwd(), CACHE) || CACHE} (${Date.now() - t0} ms)`);
    return;
  }
  if (cmd === 'up') {
    const o = parseArgs(rest);
    const dataDir = path.resolve(o['data-dir'] || path.join(HERE, '.data'));
    const mongoPort = Number(o['mongo-port'] || 27017);
    const kafkaPort = Number(o['kafka-port'] || 9092);
    await fetchArtifacts({ quiet: false });
    const started = [];
    let shuttingDown = false;
    const shutdown = async (code) => {
      if (shuttingDown) return;
      shuttingDown = true;
      console.error('[local-infra] stopping ...');
      await Promise.all(started.map((s) => s.stop()));
      clearInterval(keepAlive);
      process.exit(code);
    };
    const keepAlive = setInterval(() => {}, 60 * 60 * 1000); // the JVM children are unref'd
    process.on('SIGINT', () => shutdown(0));
    process.on('SIGTERM', () => shutdown(0));
    try {
      const [mongo, kafka] = await Promise.all([
        startMongo({ port: mongoPort, dataDir: path.join(dataDir, 'mongo') }).then((m) => (started.push(m), m)),
        startKafka({
          port: kafkaPort,
          dataDir: path.join(dataDir, 'kafka'),
          partitions: Number(o.partitions || 3),
        }).then((k) => (started.push(k), k)),
      ]);
      console.error(
        `[local-infra] mongo-java-server ready in ${mongo.startupMs} ms (log ${mongo.logFile}),` +
          ` kafka ready in ${kafka.startupMs} ms (log ${kafka.logFile}); Ctrl-C to stop`,
      );
      console.log(`MONGODB_URI=${mongo.uri}`);
      console.log(`KAFKA_BROKERS=${kafka.brokers.join(',')}`);
      // Leave if one of them dies on its own.
      const first = await Promise.race(
        [mongo, kafka].map((s) => new Promise((resolve) => s.process.once('exit', () => resolve(s)))),
      );
      if (!shuttingDown) {
        console.error(
          `[local-infra] ${first === mongo ? 'mongo-java-server' : 'kafka'} exited unexpectedly, see ${first.logFile}`,
        );
        await shutdown(1);
      }
    } catch (err) {
      console.error(`[local-infra] ${err instanceof Error ? err.message : String(err)}`);
      await shutdown(1);
    }
    return;
  }
  console.error(
    'usage: node deploy/local/infra.js fetch\n' +
      '       node deploy/local/infra.js up [--mongo-port 27017] [--kafka-port 9092] [--data-dir deploy/local/.data] [--partitions 3]',
  );
  process.exitCode = 2;
}

module.exports = { fetchArtifacts, startMongo, startKafka };

if (require.main === module) {
  cli(process.argv.slice(2)).catch((err) => {
    console.error(`[local-infra] ${err.stack || err.message}`);
    process.exit(1);
  });
}
