// @ts-check
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const { execSync } = require('node:child_process');
const { MongoClient } = require('mongodb');
const { workflowTenant } = require('./50-workflow-hook-transform');

const SCHEDULES = Number(process.env.BENCH_SCHEDULES || 10_000);
const IDLE_WINDOW_MS = 30_000;
const TICK_WINDOW_MS = 60_000;
/** Requests in flight while seeding (an API key has no session to outlast). */
const SEED_PARALLEL = Number(process.env.BENCH_SEED_PARALLEL || 16);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `task(i)` for i in [0, n) with `parallel` in flight. */
async function each(n, parallel, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

/** CPU seconds (user + system) the process has used, from /proc. */
function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(execSync('getconf CLK_TCK').toString().trim());
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

/** The pid of the local MongoDB stand-in (listening on the URI's port), or undefined (another server). */
function standInPid(mongoUri) {
  const port = new URL(mongoUri).port;
  try {
    const line = execSync(`ss -ltnpH "sport = :${port}"`).toString();
    const pid = /pid=(\d+)/.exec(line)?.[1];
    return pid && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('java') ? Number(pid) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU share of a core the processes used over a window: call once to start, again to read. */
function cpuMeter(pids) {
  const startedAt = Date.now();
  const before = pids.map((pid) => (pid ? cpuSeconds(pid) : 0));
  return () => {
    const seconds = (Date.now() - startedAt) / 1000;
    return pids.map((pid, i) => (pid ? (cpuSeconds(pid) - before[i]) / seconds : undefined));
  };
}

const share = (value) => (value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`);

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * A request retried as a client would: after a 429 as long as its Retry-After says, after a 503
 * (a loaded machine; while the schedules already updated tick, on a shared machine the workflow
 * service can miss the gateway's deadline for a while) with a growing pause, for up to 2 minutes.
 */
async function withRetry(call) {
  for (let attempt = 1; ; attempt++) {
    const res = await call();
    if ((res.status !== 503 && res.status !== 429) || attempt === 30) return res;
    const retryAfter = Number(res.headers.get('retry-after'));
    await sleep(res.status === 429 && retryAfter > 0 ? retryAfter * 1_000 : Math.min(1_000 * attempt, 5_000));
  }
}

/** Runs `task(i)` for every i with SEED_PARALLEL in flight, logging the rate every 1,000. */
async function seed(ctx, what, task) {
  const started = Date.now();
  let done = 0;
  await each(SCHEDULES, SEED_PARALLEL, async (i) => {
    await task(i);
    if (++done % 1_000 === 0) ctx.log(`${what}: ${done} (${Math.round(done / ((Date.now() - started) / 1000))}/s)`);
  });
  return { seconds: (Date.now() - started) / 1000, perSecond: SCHEDULES / ((Date.now() - started) / 1000) };
}

function scheduleBody(i, cron) {
  return {
    name: `bench schedule ${i}`,
    nodes: [{ id: 'tick', type: 'schedule', config: { cron, input: { i } } }],
  };
}

/**
 * 10,000 active schedules on one workflow replica (docs/workflow-engine.md, "Schedules"). First every
 * schedule fires once a year, so none is due: the workflow process's CPU over 30 s is the
 * scheduler's idle cost. Then each fires every minute at second i % 60 (about 167 runs a second,
 * spread over the minute): over one minute, tick-to-start is each run's execution start minus its
 * tick, from the claims and executions in MongoDB.
 */
module.exports = {
  id: 'workflow-schedules',
  title: `${SCHEDULES} schedules on one workflow replica`,
  target: 'tick-to-start p99 < 1 s at ~170 runs/s; idle scheduler < 5% of a core',
  async setup(ctx) {
    // An API key, not the login's access token: seeding 10,000 schedules outlasts the token.
    const owner = await workflowTenant(ctx);
    const key = await withRetry(() =>
      owner.post('/api/v1/auth/api-keys', {
        name: 'bench schedules',
        scopes: ['workflows:read', 'workflows:write'],
      }),
    );
    if (key.status !== 201) throw new Error(`api key: ${key.status} ${key.text}`);
    const http = ctx.api(ctx.url, key.body.key);
    const ids = new Array(SCHEDULES);
    // Through the public API as a tenant would: created (as draft), then resumed.
    const seeded = await seed(ctx, 'created and resumed', async (i) => {
      const created = await withRetry(() => http.post('/api/v1/workflows', scheduleBody(i, '0 0 1 1 *')));
      if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
      const resumed = await withRetry(() => http.post(`/api/v1/workflows/${created.body.id}/resume`));
      if (resumed.status !== 200) throw new Error(`resume: ${resumed.status} ${resumed.text}`);
      ids[i] = created.body.id;
    });
    ctx.log(`${SCHEDULES} yearly schedules active in ${seeded.seconds.toFixed(0)} s`);
    const mongo = await MongoClient.connect(ctx.platform.mongoUri);
    return { http, ids, seeded, mongo, db: mongo.db(ctx.platform.database('workflow')) };
  },
  async run(ctx, state) {
    const pids = [ctx.platform.service('workflow').pid, standInPid(ctx.platform.mongoUri)];
    await sleep(5_000);
    const idle = cpuMeter(pids);
    await sleep(IDLE_WINDOW_MS);
    const [idleShare, idleStandIn] = idle();
    const idleLoad = os.loadavg()[0];

    const updated = await seed(ctx, 'updated', async (i) => {
      const res = await withRetry(() =>
        state.http.put(`/api/v1/workflows/${state.ids[i]}`, { nodes: scheduleBody(i, `${i % 60} * * * * *`).nodes }),
      );
      if (res.status !== 200) throw new Error(`update: ${res.status} ${res.text}`);
    });
    ctx.log('schedules now fire every minute; warming up for 20 s');
    await sleep(20_000);
    const from = new Date(Math.ceil(Date.now() / 1000) * 1000);
    const to = new Date(from.getTime() + TICK_WINDOW_MS);
    const ticking = cpuMeter(pids);
    await sleep(to.getTime() - Date.now() + 10_000);
    const [busyShare, busyStandIn] = ticking();
    const tickLoad = os.loadavg()[0];

    const claims = await state.db
      .collection('schedule_claims')
      .find({ tick_at: { $gte: from, $lt: to } })
      .toArray();
    const started = claims.filter((c) => c.state === 'started');
    const executions = await state.db
      .collection('executions')
      .find({ _id: { $in: started.map((c) => c.execution_id) } }, { projection: { started_at: 1 } })
      .toArray();
    const startedAt = new Map(executions.map((e) => [e._id, e.started_at.getTime()]));
    const lags = started
      .filter((c) => startedAt.has(c.execution_id))
      .map((c) => startedAt.get(c.execution_id) - c.tick_at.getTime())
      .sort((a, b) => a - b);
    const expected = SCHEDULES * (TICK_WINDOW_MS / 60_000);
    // CPU per started run (ms): the share of a core over the runs started per second. The load of a
    // shared machine changes it least (it slows the runs down more than it makes each cost more).
    const perRun = (cpuShare) =>
      cpuShare === undefined || lags.length === 0
        ? 'n/a'
        : `${((cpuShare * 1000) / (lags.length / (TICK_WINDOW_MS / 1000))).toFixed(2)} ms`;
    return {
      rows: [
        {
          label: 'scheduled runs started/s',
          rps: Math.round(lags.length / (TICK_WINDOW_MS / 1000)),
          p50: percentile(lags, 50),
          p99: percentile(lags, 99),
          errors: expected - lags.length,
          note:
            `tick-to-start in ms over ${TICK_WINDOW_MS / 1000} s: ${lags.length} of ${expected} ticks started ` +
            `(${claims.length - started.length} claims not started), max ${lags[lags.length - 1]} ms; ` +
            `CPU while ticking: workflow process ${share(busyShare)} of a core (${perRun(busyShare)} per run), ` +
            `MongoDB stand-in ${share(busyStandIn)} (${perRun(busyStandIn)} per run); ` +
            `load average ${tickLoad.toFixed(1)}`,
        },
        {
          label: `idle scheduler, ${SCHEDULES} active schedules not due`,
          note:
            `workflow process CPU ${share(idleShare)} of a core over ${IDLE_WINDOW_MS / 1000} s ` +
            `(MongoDB stand-in ${share(idleStandIn)}); load average ${idleLoad.toFixed(1)}`,
        },
        {
          label: `seeding through the API, ${SEED_PARALLEL} in flight`,
          note:
            `create + resume: ${state.seeded.perSecond.toFixed(0)} workflows/s (${state.seeded.seconds.toFixed(0)} s); ` +
            `update to every minute: ${updated.perSecond.toFixed(0)}/s (${updated.seconds.toFixed(0)} s); ` +
            `load average at the end ${os
              .loadavg()
              .map((l) => l.toFixed(1))
              .join(' ')}`,
        },
      ],
    };
  },
  async teardown(_ctx, state) {
    // Cleanup only: stop the schedules so later scenarios do not run beside 170 runs a second.
    await state.db
      .collection('workflows')
      .updateMany({ _id: { $in: state.ids } }, { $set: { status: 'paused', next_run_at: null } });
    await state.mongo.close();
  },
};
