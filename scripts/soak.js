#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * `npm run soak -- --minutes N --rate R [--overload RATE:MINUTES] [--idle MINUTES]`: a steady mixed load against
 * a whole platform started as `npm start` runs it (the MongoDB stand-in on disk, Kafka, the five
 * processes), for as long as an operator would leave it (docs/operations.md, "Soak"):
 *
 * - three tenants (on the plan DEFAULT_PLAN gives, enterprise here: the only one whose rate limit
 *   lets a tenant send R/3 requests/s), each with a webhook subscribed to every event, pointing at
 *   a local receiver that verifies every signature;
 * - the mixed load of bench/soak/load.js, open loop, for N minutes at R requests/s; with
 *   `--overload`, then RATE requests/s for MINUTES (default 120:2), then one minute at R again
 *   (the recovery); every overload answer must be 2xx, 429, or 503 with Retry-After;
 * - every 10 s: each process's CPU and RSS, the embedding backlog, calls shed, and per-collection
 *   query counts where a service's /metrics has them;
 * - after the load, up to two minutes for deliveries to arrive and charges to settle;
 * - with `--idle`, then MINUTES of no load at all, sampled the same way (the idle CPU on the data
 *   the load left), once the work the load left is done: the embedding backlog empty (reported
 *   with how long it took; at most DRAIN_WAIT_MS).
 *
 * The report opens with the issue 38 targets checked on the run (bench/soak/targets.js).
 *
 * Reports per minute p50/p99 per request kind, answers by status, delivery lag, lost and
 * duplicated deliveries, backlog, CPU and RSS, and charges left unsettled, as JSON and markdown
 * in bench/results/soak-<time>.{json,md} (ignored by git). Loopback only; bounded in time (the
 * phases plus the wait) and in requests in flight (bench/soak/load.js).
 * SOAK_SKIP_BUILD=1 uses the dist folders as they are.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
require('./ensure-install').ensureInstalled();
const { build, startLocalPlatform } = require('./local-platform');
const { runLoad, MIX } = require('../bench/soak/load');
const { createSampler } = require('../bench/soak/sampler');
const { startHostSpeed } = require('../bench/soak/host-speed');
const { createDeliveries } = require('../bench/soak/deliveries');
const { createTenant } = require('../bench/soak/tenants');
const { MinuteBuckets } = require('../bench/soak/stats');
const { checkTargets } = require('../bench/soak/targets');
const { minuteRows, processRows, report } = require('../bench/soak/report');

const ROOT = path.resolve(__dirname, '..');
const TENANTS = 3;
const SAMPLE_MS = 10_000;
const SETTLE_WAIT_MS = 120_000;
/** Longest wait for the work the load left (the embedding backlog) before the idle minutes. */
const DRAIN_WAIT_MS = 10 * 60_000;
const RECOVERY_MINUTES = 1;
const SERVICES = ['gateway', 'identity', 'agent-memory', 'workflow', 'webhook'];

function log(/** @type {unknown[]} */ ...args) {
  console.error('[soak]', ...args);
}

function options() {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '5' },
      rate: { type: 'string', default: '40' },
      overload: { type: 'string' },
      idle: { type: 'string', default: '0' },
    },
  });
  const minutes = Number(values.minutes);
  const rate = Number(values.rate);
  if (!(minutes > 0 && minutes <= 240)) throw new Error('--minutes must be a number from 0 to 240');
  if (!(rate > 0 && rate <= 400)) throw new Error('--rate must be a number from 0 to 400');
  let overload;
  if (values.overload !== undefined) {
    const [r, m] = (values.overload || '120:2').split(':').map(Number);
    if (!(r > 0 && r <= 400 && m > 0 && m <= 30)) throw new Error('--overload must be RATE:MINUTES, e.g. 120:2');
    overload = { rate: r, minutes: m };
  }
  const idle = Number(values.idle);
  if (!(idle >= 0 && idle <= 60)) throw new Error('--idle must be a number of minutes from 0 to 60');
  return { minutes, rate, overload, idle };
}

/** The charges not settled: open reservations, runs marked pending and chats' due charges. */
async function unsettled(platform) {
  const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/service-kit')] }));
  const client = await MongoClient.connect(platform.mongoUri);
  try {
    const db = (/** @type {string} */ name) => client.db(platform.database(name));
    const [holds, runs, chats] = await Promise.all([
      db('identity')
        .collection('credit_entries')
        .countDocuments({ hold_expires_at: { $exists: true } }),
      db('workflow').collection('executions').countDocuments({ credit_pending: true }),
      db('agent-memory').collection('chat_charges_due').countDocuments({}),
    ]);
    return { openReservations: holds, runsPending: runs, chatsPending: chats };
  } finally {
    await client.close();
  }
}

/**
 * Per tenant: runs stored (each costs one credit) and credits held by open reservations (work
 * whose reservation was answered too late to be used: released when it expires).
 */
async function ledgerFacts(platform) {
  const { MongoClient } = require(require.resolve('mongodb', { paths: [path.join(ROOT, 'packages/service-kit')] }));
  const client = await MongoClient.connect(platform.mongoUri);
  try {
    const group = (/** @type {string | number} */ value) => ({ $group: { _id: '$tenant_id', n: { $sum: value } } });
    const [runs, held] = await Promise.all([
      client
        .db(platform.database('workflow'))
        .collection('executions')
        .aggregate([group(1)])
        .toArray(),
      client
        .db(platform.database('identity'))
        .collection('credit_entries')
        .aggregate([{ $match: { hold_expires_at: { $exists: true } } }, group('$amount')])
        .toArray(),
    ]);
    return {
      runs: new Map(runs.map((r) => [r._id, r.n])),
      held: new Map(held.map((r) => [r._id, -r.n])),
    };
  } finally {
    await client.close();
  }
}

async function main() {
  const opts = options();
  if (process.env.SOAK_SKIP_BUILD === '1') log('using the existing build (SOAK_SKIP_BUILD=1)');
  else build(log);
  const { api, Receiver } = require(path.join(ROOT, 'packages/testing/dist'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplatform-soak-'));
  /** @type {Array<() => Promise<void>>} */
  const stoppers = [];
  const cleanup = async () => {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
    fs.rmSync(work, { recursive: true, force: true });
  };
  process.on('SIGINT', () => cleanup().then(() => process.exit(130)));

  try {
    const started = await startLocalPlatform({
      work,
      log,
      mongoDataDir: path.join(work, 'mongo'),
      env: { LOG_LEVEL: 'warn', DEFAULT_PLAN: 'enterprise' },
    });
    stoppers.push(started.stop);
    const { platform } = started;
    const receiver = await Receiver.start();
    stoppers.push(() => receiver.close());

    /** @type {{ phase: string, startedAt: number }} */
    const phase = { phase: 'setup', startedAt: Date.now() };
    const minuteOf = (/** @type {number} */ at) =>
      `${phase.phase} ${Math.floor(Math.max(0, at - phase.startedAt) / 60_000) + 1}`;
    const latency = new MinuteBuckets();
    const lag = new MinuteBuckets();
    const admitted = new MinuteBuckets();
    /** The recovery's latencies per 10 s: how soon after the overload each kind is back. */
    const recoverySlices = new MinuteBuckets();
    /** @type {Map<string, Record<string, number>>} answers by status, per minute */
    const statuses = new Map();
    /** @type {Map<string, Set<string>>} ids of answered work, by kind */
    const answered = new Map();
    /** @type {Map<number, number>} credits charged for answered chats, by tenant */
    const chatCredits = new Map();
    const overloadViolations = { count: 0, examples: /** @type {string[]} */ ([]) };

    const secrets = new Map();
    const deliveries = createDeliveries({ secrets, minuteOf, lagBuckets: lag });
    receiver.reply((/** @type {any} */ request) => {
      deliveries.record(request);
      return { status: 200, body: 'ok' };
    });
    const ctx = { url: platform.url, api, receiverUrl: (/** @type {string} */ p) => receiver.url(p) };
    const tenants = [];
    for (let i = 0; i < TENANTS; i++) tenants.push(await createTenant(ctx, i));
    for (const t of tenants) secrets.set(t.receiverPath, t.secret);
    log(`${TENANTS} tenants ready`);

    const processes = [
      ...SERVICES.map((name) => ({
        name,
        pid: platform.service(name).pid,
        metricsPort: platform.service(name).ready?.metrics_port,
      })),
      { name: 'mongo (stand-in)', pid: started.infra.mongo?.pid },
      { name: 'kafka', pid: started.infra.kafka?.pid },
    ];
    const hostSpeed = startHostSpeed(SAMPLE_MS / 2);
    stoppers.push(async () => hostSpeed.stop());
    const sampler = createSampler({ processes, hostSpeed });
    /** @type {Array<{ minute: string, at: number, loadAverage: number, hostMs?: number, processes: Record<string, any> }>} */
    const samples = [];
    await sampler.sample();
    const sampling = setInterval(() => {
      const minute = minuteOf(Date.now());
      sampler.sample().then(
        (s) => samples.push({ minute, ...s }),
        (error) => log(`sample failed: ${error.message}`),
      );
    }, SAMPLE_MS);
    stoppers.push(async () => clearInterval(sampling));

    /** @param {import('../bench/soak/load').Answer} answer */
    const onAnswer = (answer) => {
      const minute = minuteOf(answer.at);
      latency.add(minute, answer.kind, answer.ms);
      const byStatus = statuses.get(minute) ?? {};
      byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
      statuses.set(minute, byStatus);
      const ok = answer.status >= 200 && answer.status < 300;
      if (ok) admitted.add(minute, 'admitted', answer.ms);
      if (phase.phase === 'recovery') {
        const from = Math.floor(Math.max(0, answer.at - phase.startedAt) / 10_000) * 10;
        recoverySlices.add(`recovery ${from}-${from + 10} s`, answer.kind, answer.ms);
      }
      if (ok) {
        const id = answer.kind === 'hook' ? answer.body?.execution_id : answer.body?.id;
        if (id) {
          if (!answered.has(answer.kind)) answered.set(answer.kind, new Set());
          answered.get(answer.kind)?.add(id);
        }
        if (answer.kind === 'chat') {
          chatCredits.set(answer.tenant, (chatCredits.get(answer.tenant) ?? 0) + (answer.body?.credits_used ?? 0));
        }
      }
      if (phase.phase === 'overload') {
        const allowed = ok || answer.status === 429 || (answer.status === 503 && answer.retryAfter !== null);
        if (!allowed) {
          overloadViolations.count += 1;
          if (overloadViolations.examples.length < 5) {
            overloadViolations.examples.push(
              `${answer.kind} ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}`,
            );
          }
        }
      }
    };

    /** @type {Record<string, number>} */
    const skipped = {};
    const runPhase = async (/** @type {string} */ name, /** @type {number} */ rate, /** @type {number} */ minutes) => {
      phase.phase = name;
      phase.startedAt = Date.now();
      log(`${name}: ${rate} requests/s for ${minutes} min`);
      const result = await runLoad({ url: platform.url, tenants, rate, seconds: minutes * 60, onAnswer });
      skipped[name] = result.skipped;
    };
    await runPhase('steady', opts.rate, opts.minutes);
    if (opts.overload) {
      await runPhase('overload', opts.overload.rate, opts.overload.minutes);
      await runPhase('recovery', opts.rate, RECOVERY_MINUTES);
    }

    // After the load: deliveries arrive and charges settle (within two minutes, as targeted).
    const loadEnded = Date.now();
    phase.phase = 'after';
    phase.startedAt = loadEnded;
    const atEnd = await unsettled(platform);
    let after = atEnd;
    for (;;) {
      const lost = Object.values(deliveries.missing(answered)).reduce((a, b) => a + b, 0);
      after = await unsettled(platform);
      const open = after.openReservations + after.runsPending + after.chatsPending;
      if ((lost === 0 && open === 0) || Date.now() - loadEnded > SETTLE_WAIT_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
    const waitedS = Math.round((Date.now() - loadEnded) / 1000);
    const lost = deliveries.missing(answered);

    // Each tenant's balance went down by its runs, its answered chats' credits and what open
    // reservations hold, no more.
    const { runs, held } = await ledgerFacts(platform);
    const ledger = [];
    for (const t of tenants) {
      const balance = (await t.http.get('/api/v1/billing/credits')).body.balance;
      const expected = (runs.get(t.tenantId) ?? 0) + (chatCredits.get(t.index) ?? 0) + (held.get(t.tenantId) ?? 0);
      ledger.push({
        tenant: t.index,
        spent: t.startBalance - balance,
        runs: runs.get(t.tenantId) ?? 0,
        chatCredits: chatCredits.get(t.index) ?? 0,
        held: held.get(t.tenantId) ?? 0,
        drift: t.startBalance - balance - expected,
      });
    }

    /** @type {{ items: number, seconds: number, done: boolean } | undefined} */
    let drain;
    if (opts.idle > 0) {
      // Idle is the platform with nothing left to do on the data it holds: the memories the load
      // stored still waiting for vectors are work, so the idle minutes start once they have them.
      phase.phase = 'drain';
      phase.startedAt = Date.now();
      const backlog = () => samples[samples.length - 1]?.processes['agent-memory']?.backlog ?? 0;
      const items = backlog();
      log(`drain: ${items} memories waiting for vectors`);
      while (backlog() > 0 && Date.now() - phase.startedAt < DRAIN_WAIT_MS) {
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
      drain = { items, seconds: Math.round((Date.now() - phase.startedAt) / 1000), done: backlog() === 0 };
      phase.phase = 'idle';
      phase.startedAt = Date.now();
      log(`idle: no load for ${opts.idle} min`);
      await new Promise((resolve) => setTimeout(resolve, opts.idle * 60_000 + SAMPLE_MS / 2));
    }

    const loads = samples.map((s) => s.loadAverage);
    const hostMs = samples.flatMap((s) => (s.hostMs === undefined ? [] : [s.hostMs]));
    const result = {
      date: new Date().toISOString(),
      loadAverage: {
        min: Math.min(...loads),
        max: Math.max(...loads),
        cores: os.cpus().length,
      },
      hostSpeed: hostMs.length ? { min: Math.min(...hostMs), max: Math.max(...hostMs) } : undefined,
      machine: `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      options: opts,
      mix: MIX,
      minutes: minuteRows([latency, lag, admitted], statuses),
      recovery: opts.overload ? minuteRows([recoverySlices], new Map()) : undefined,
      processes: processRows(samples),
      samples,
      deliveries: { ...deliveries.counts(), lost },
      charges: { atEndOfLoad: atEnd, after: after, waitedSeconds: waitedS, ledger },
      overload: opts.overload ? overloadViolations : undefined,
      drain,
      skipped,
    };
    result.targets = checkTargets(result);
    const dir = path.join(ROOT, 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const stem = path.join(dir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    fs.writeFileSync(`${stem}.json`, `${JSON.stringify(result, null, 2)}\n`);
    const markdown = report(result);
    fs.writeFileSync(`${stem}.md`, markdown);
    console.log(markdown);
    log(`results written to ${path.relative(ROOT, stem)}.{json,md}`);
  } finally {
    await cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
