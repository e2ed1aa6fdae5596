import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localInfra } from './paths.js';

type Stoppable = { stop(): Promise<void> };

const started: Stoppable[] = [];

/**
 * Starts the real infrastructure once per jest run: the MongoDB-compatible server (in memory) and
 * a Kafka broker, unless MONGODB_URI / KAFKA_BROKERS already point at running ones. Workers
 * inherit the addresses through the environment.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.AP_TEST_INFRA === 'ready') return;
  const infra = localInfra();
  const workDir = mkdtempSync(path.join(tmpdir(), 'agentplatform-test-'));
  process.env.AP_TEST_WORKDIR = workDir;
  await infra.fetchArtifacts({ quiet: true });
  const [mongo, kafka] = await Promise.all([
    process.env.MONGODB_URI
      ? undefined
      : infra.startMongo({ port: 0, dataDir: null, logFile: path.join(workDir, 'mongo.log') }),
    process.env.KAFKA_BROKERS
      ? undefined
      : infra.startKafka({ port: 0, dataDir: path.join(workDir, 'kafka'), logFile: path.join(workDir, 'kafka.log') }),
  ]);
  if (mongo) {
    started.push(mongo);
    process.env.MONGODB_URI = mongo.uri;
  }
  if (kafka) {
    started.push(kafka);
    process.env.KAFKA_BROKERS = kafka.brokers.join(',');
  }
  process.env.AP_TEST_INFRA = 'ready';
  (globalThis as { __apInfra?: Stoppable[] }).__apInfra = started;
}
