#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * `npm start`: builds what changed, starts the local infrastructure unless MONGODB_URI /
 * KAFKA_BROKERS point at running servers, starts the four services and the gateway, and prints
 * the base URL once /readyz answers 200. Ctrl-C or SIGTERM stops everything, JVMs included.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const DATA = path.resolve(process.env.DATA_DIR || path.join(ROOT, '.data'));
const PORT = Number(process.env.PORT || 8080);
require('./ensure-install').ensureInstalled();

const SERVICES = [
  { name: 'identity', port: 50051, metrics: 9461, addrVar: 'IDENTITY_GRPC_ADDR' },
  {
    name: 'agent-memory',
    port: 50052,
    metrics: 9462,
    addrVar: 'AGENT_MEMORY_GRPC_ADDR',
    // As deploy/ runs it: glibc gives the embedding model's freed memory back (docs/configuration.md).
    env: { MALLOC_TRIM_THRESHOLD_: '131072' },
  },
  { name: 'workflow', port: 50053, metrics: 9463, addrVar: 'WORKFLOW_GRPC_ADDR' },
  { name: 'webhook', port: 50054, metrics: 9464, addrVar: 'WEBHOOK_GRPC_ADDR' },
];

const COLORS = { identity: 36, 'agent-memory': 35, workflow: 33, webhook: 32, gateway: 34 };

function printer(name) {
  const tag = process.stdout.isTTY ? `\x1b[${COLORS[name]}m${name.padEnd(12)}\x1b[0m` : name.padEnd(12);
  return (line) => {
    let text = line;
    try {
      const entry = JSON.parse(line);
      const { level, time, service, msg, ...rest } = entry;
      const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
      text = `${level.padEnd(5)} ${msg}${extra}`;
    } catch {
      // plain text line
    }
    process.stdout.write(`${tag} ${text}\n`);
  };
}

/**
 * The keyring that encrypts secrets at rest locally (docs/security.md): created once in the data
 * folder (ignored by git, readable only by its owner) and reused, so what is stored stays readable.
 */
function localDataEncryptionKey() {
  const file = path.join(DATA, 'data-encryption-key');
  if (!fs.existsSync(file)) {
    const { SecretBox } = require(path.join(ROOT, 'packages/service-kit/dist'));
    const keyring = SecretBox.generateKeyring('local1');
    // 'wx': of two starts racing, one writes and the other reads what it wrote.
    try {
      fs.writeFileSync(file, `${keyring}\n`, { mode: 0o600, flag: 'wx' });
      console.log(`created a local DATA_ENCRYPTION_KEY in ${file}`);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
    }
  }
  return fs.readFileSync(file, 'utf8').trim();
}

async function main() {
  console.log('building…');
  execFileSync(process.execPath, [require.resolve('nx/bin/nx'), 'run-many', '-t', 'build', '--outputStyle=static'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  const { ServiceProcess, serviceMallocArenas } = require(path.join(ROOT, 'packages/testing/dist'));
  const infra = require(path.join(ROOT, 'deploy/local/infra.js'));

  const stoppers = [];
  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    for (const s of stoppers.reverse()) await s().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));

  /** @type {NodeJS.ProcessEnv} */
  // As deploy/ runs them: two malloc arenas (docs/configuration.md, "Malloc arenas").
  const env = {
    ...process.env,
    EXIT_WITH_PARENT: 'true',
    MALLOC_ARENA_MAX: serviceMallocArenas(process.env.MALLOC_ARENA_MAX),
  };
  fs.mkdirSync(path.join(DATA, 'logs'), { recursive: true });
  if (!env.DATA_ENCRYPTION_KEY) env.DATA_ENCRYPTION_KEY = localDataEncryptionKey();
  if (!env.MONGODB_URI || !env.KAFKA_BROKERS) await infra.fetchArtifacts({ quiet: false });
  // agent-memory's embedding model; without it the service runs on its hashing fallback.
  await require(path.join(ROOT, 'deploy/local/model.js'))
    .fetchModel({ quiet: false })
    .catch((error) => console.error(`[start] ${error.message}`));
  if (!env.MONGODB_URI) {
    const mongo = await infra.startMongo({
      port: Number(process.env.LOCAL_MONGO_PORT || 27017),
      dataDir: path.join(DATA, 'mongo'),
      logFile: path.join(DATA, 'logs', 'mongo.log'),
    });
    stoppers.push(() => mongo.stop());
    env.MONGODB_URI = mongo.uri;
    console.log(`mongodb (local stand-in) at ${mongo.uri}`);
  }
  if (!env.KAFKA_BROKERS) {
    const kafka = await infra.startKafka({
      port: Number(process.env.LOCAL_KAFKA_PORT || 9092),
      dataDir: path.join(DATA, 'kafka'),
      logFile: path.join(DATA, 'logs', 'kafka.log'),
    });
    stoppers.push(() => kafka.stop());
    env.KAFKA_BROKERS = kafka.brokers.join(',');
    console.log(`kafka at ${env.KAFKA_BROKERS}`);
  }

  const addresses = {};
  await Promise.all(
    SERVICES.map(async (service) => {
      const proc = new ServiceProcess(
        service.name,
        {
          ...env,
          GRPC_HOST: '127.0.0.1',
          GRPC_PORT: String(service.port),
          METRICS_PORT: String(service.metrics),
          ...('env' in service ? service.env : {}),
        },
        path.join(DATA, 'logs', `${service.name}.log`),
        printer(service.name),
      );
      stoppers.push(() => proc.stop());
      await proc.start();
      addresses[service.addrVar] = `127.0.0.1:${service.port}`;
    }),
  );
  const gateway = new ServiceProcess(
    'gateway',
    { ...env, ...addresses, HOST: '127.0.0.1', PORT: String(PORT), METRICS_PORT: '9460' },
    path.join(DATA, 'logs', 'gateway.log'),
    printer('gateway'),
  );
  stoppers.push(() => gateway.stop());
  await gateway.start();

  const url = `http://127.0.0.1:${PORT}`;
  for (let i = 0; i < 100; i += 1) {
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  console.log(`\nAgent Platform is ready: ${url}\n(Ctrl-C stops everything)\n`);
}

main().catch((error) => {
  console.error(`npm start failed: ${error.message}`);
  process.kill(process.pid, 'SIGTERM');
});
