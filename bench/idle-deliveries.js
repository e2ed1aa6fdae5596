#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * `node bench/idle-deliveries.js [--count 20000] [--seconds 30] [--main services/webhook/dist/main.js]`
 *
 * The MongoDB stand-in's CPU while the webhook service sits idle on a history of deliveries (issue
 * 38: 65% of a core on 23,000 deliveries, from the retry poller's scan each second). Starts the
 * stand-in on disk (H2, as `npm start` runs it) and Kafka, writes `--count` finished deliveries
 * straight into the webhook database, starts the webhook service (built, or the `--main` given),
 * lets it settle for 30 s, then measures the CPU of the stand-in's JVM and of the service over
 * `--seconds` from /proc (utime + stime: the share of one core over the window, not `ps`'s
 * average since start) and the commands the service sent meanwhile (its `mongo_commands_total`).
 * Prints one JSON line.
 */
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { MongoClient } = require('mongodb');
const infra = require('../deploy/local/infra.js');

const ROOT = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const option = (/** @type {string} */ name, /** @type {string} */ fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? args[at + 1] : fallback;
};
const COUNT = Number(option('count', '20000'));
const SECONDS = Number(option('seconds', '30'));
const MAIN = path.resolve(ROOT, option('main', 'services/webhook/dist/main.js'));
const TICKS = 100; // USER_HZ on Linux
/** Start-up work (index builds, the first pruning run) is over by then. */
const SETTLE_MS = 30_000;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** utime + stime of a process, in clock ticks. */
function cpuTicks(/** @type {number} */ pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** `mongo_commands_total` of a service's /metrics, by `collection.command`. */
async function commandCounts(/** @type {number} */ port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  /** @type {Record<string, number>} */
  const counts = {};
  for (const m of text.matchAll(/^mongo_commands_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    counts[`${labels.collection}.${labels.command}`] = Number(m[2]);
  }
  return counts;
}

/** Finished deliveries of three tenants, shaped as the service stores them. */
function history(/** @type {number} */ count) {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const created = new Date(now - (count - i) * 60_000);
    const failed = i % 100 === 0;
    return {
      _id: `dlv_${randomBytes(12).toString('hex')}`,
      tenant_id: `ten_${i % 3}`,
      webhook_id: `whk_${i % 3}`,
      event_id: `evt_${i}`,
      event_type: 'agent.message.completed',
      status: failed ? 'failed' : 'delivered',
      test: false,
      body: JSON.stringify({ id: `evt_${i}`, type: 'agent.message.completed', data: { text: 'x'.repeat(400) } }),
      attempts: 1,
      round_attempts: 1,
      attempt_log: [
        {
          number: 1,
          attempted_at: created,
          duration_ms: 12,
          response_status: failed ? 410 : 200,
          response_headers: { 'content-type': 'text/plain' },
          response_body: 'ok',
          error: null,
          success: !failed,
        },
      ],
      next_attempt_at: null,
      lease_until: new Date(0),
      lease_token: null,
      response_status: failed ? 410 : 200,
      response_time_ms: 12,
      delivered_at: failed ? null : created,
      last_error: failed ? 'Gone' : null,
      created_at: created,
      updated_at: created,
    };
  });
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'idle-deliveries-'));
  const [mongo, kafka] = await Promise.all([
    infra.startMongo({ port: 0, dataDir: path.join(work, 'mongo') }),
    infra.startKafka({ port: 0, dataDir: path.join(work, 'kafka') }),
  ]);
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let service;
  try {
    const client = await MongoClient.connect(mongo.uri);
    const deliveries = client.db('webhook').collection('deliveries');
    const docs = history(COUNT);
    for (let i = 0; i < docs.length; i += 1_000)
      await deliveries.insertMany(/** @type {any[]} */ (docs.slice(i, i + 1_000)));
    await client.close();

    service = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        MONGODB_URI: mongo.uri,
        MONGODB_DATABASE: 'webhook',
        KAFKA_BROKERS: kafka.brokers.join(','),
        KAFKA_TOPIC: 'platform.events',
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: '0',
        METRICS_PORT: '0',
        DATA_ENCRYPTION_KEY: `bench:${randomBytes(32).toString('base64')}`,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const metricsPort = await new Promise((resolve, reject) => {
      let out = '';
      service?.stdout?.on('data', (chunk) => {
        out += chunk;
        const ready = out.match(/"metrics_port":(\d+)/);
        if (ready) resolve(Number(ready[1]));
      });
      service?.once('exit', (code) => reject(new Error(`the webhook service exited with ${code}`)));
    });
    await sleep(SETTLE_MS);
    const javaPid = /** @type {number} */ (mongo.process.pid);
    const servicePid = /** @type {number} */ (service.pid);
    const before = { java: cpuTicks(javaPid), service: cpuTicks(servicePid), at: Date.now() };
    const countsBefore = await commandCounts(metricsPort);
    await sleep(SECONDS * 1_000);
    const countsAfter = await commandCounts(metricsPort);
    /** @type {Record<string, number>} */
    const commands = {};
    for (const [key, value] of Object.entries(countsAfter)) {
      const delta = value - (countsBefore[key] ?? 0);
      if (delta > 0) commands[key] = delta;
    }
    const elapsed = (Date.now() - before.at) / 1_000;
    const share = (/** @type {number} */ ticks) => Math.round((ticks / TICKS / elapsed) * 1_000) / 10;
    console.log(
      JSON.stringify({
        deliveries: COUNT,
        seconds: Math.round(elapsed),
        main: path.relative(ROOT, MAIN),
        standInCpuPercent: share(cpuTicks(javaPid) - before.java),
        webhookCpuPercent: share(cpuTicks(servicePid) - before.service),
        commands,
        loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
      }),
    );
  } finally {
    service?.kill('SIGTERM');
    await Promise.all([mongo.stop(), kafka.stop()]);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
