// @ts-check
'use strict';
const { Worker } = require('node:worker_threads');
const authMe = require('./10-auth-me-jwt.js');

/**
 * Nested-body bystander (issue 34 item 1, bounded JSON depth): a bystander tenant's authenticated
 * reads (GET /api/v1/auth/me with a JWT, at a fixed rate), first alone, then while anonymous
 * clients keep posting 1 MiB of deeply nested JSON to /hooks/hk_<32 random characters>. The
 * gateway refuses an unknown hook id before reading its body (404, then 429 once the address's
 * budget is spent, with `Connection: close`); before that it read and scanned every megabyte
 * (400). Both rows come from one run on one platform, so the difference is the attack's doing;
 * the attack's own answers are counted.
 *
 * - BENCH_NESTED_CLIENTS (default 8): attacking clients, each posting again once answered.
 * - BENCH_NESTED_RATE (default 200): the bystander's requests per second.
 */
const CLIENTS = Number(process.env.BENCH_NESTED_CLIENTS || 8);
const RATE = Number(process.env.BENCH_NESTED_RATE || 200);
/**
 * The attacking clients, in a worker thread: building and sending their bodies in the bench's own
 * thread would slow autocannon there, and the figure would be the load generator's.
 */
const ATTACKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { randomBytes } = require('node:crypto');
// 1 MiB of nesting: half a mebibyte of '[' and as many ']', about 524,000 levels.
const body = Buffer.from('['.repeat(512 * 1024) + ']'.repeat(512 * 1024));
const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const hookPath = () => '/hooks/hk_' + [...randomBytes(32)].map((b) => alphabet[b % alphabet.length]).join('');
let stopped = false;
const statuses = {};
const latencies = [];
parentPort.on('message', () => (stopped = true));
const client = async () => {
  while (!stopped) {
    const sentAt = Date.now();
    const status = await fetch(workerData.url + hookPath(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(120000),
    }).then(
      async (res) => (await res.arrayBuffer(), String(res.status)),
      (error) => (error instanceof Error ? error.name : 'error'),
    );
    latencies.push(Date.now() - sentAt);
    statuses[status] = (statuses[status] || 0) + 1;
  }
};
Promise.all(Array.from({ length: workerData.clients }, client)).then(() => parentPort.postMessage({ statuses, latencies }));
`;

/** Starts the attack; `stop()` ends it and answers the statuses seen and the answers' latencies. */
function attack(url) {
  const worker = new Worker(ATTACKER, { eval: true, workerData: { url, clients: CLIENTS } });
  const done = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      /** @type {any} */
      const { statuses, latencies } = await done;
      await worker.terminate();
      return { statuses: new Map(Object.entries(statuses)), latencies: latencies.sort((a, b) => a - b) };
    },
  };
}

module.exports = {
  id: 'nested-body-bystander',
  title: 'bystander reads beside 1 MiB nested hook bodies',
  // A logged-in user whose credentials the gateway caches, as in the /auth/me scenario.
  setup: authMe.setup,
  async run(ctx, state) {
    const options = {
      url: `${ctx.url}/api/v1/auth/me`,
      headers: { authorization: `Bearer ${state.accessToken}` },
      connections: 10,
      overallRate: RATE,
    };
    // The gateway's CPU per second of each phase: on a machine shared with other loads the
    // bystander's figures move with the neighbours, the gateway's own CPU much less.
    const gateway = ctx.platform.service('gateway').pid;
    const cpuPerSecond = async (/** @type {() => Promise<any>} */ phase) => {
      const [cpu, started] = [authMe.cpuMs(gateway), performance.now()];
      const figures = await phase();
      return { figures, cpu: Math.round(((authMe.cpuMs(gateway) - cpu) / (performance.now() - started)) * 1000) };
    };
    const alone = await cpuPerSecond(() => ctx.measure(options));
    const attacking = attack(ctx.url);
    // Let the first bodies arrive before measuring.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const attacked = await cpuPerSecond(() => ctx.measure(options));
    const { statuses, latencies } = await attacking.stop();
    const answers = [...statuses].map(([status, count]) => `${count} x ${status}`).join(', ');
    const p50 = latencies[Math.floor(latencies.length / 2)] ?? '-';
    return {
      rows: [
        {
          label: 'bystander reads alone',
          ...alone.figures,
          note: `GET /api/v1/auth/me at ${RATE}/s; gateway CPU ${alone.cpu} ms/s`,
        },
        {
          label: 'bystander reads during the attack',
          ...attacked.figures,
          note: `${CLIENTS} anonymous clients posting 1 MiB nested JSON to random hook ids: ${answers}; their p50 ${p50} ms; gateway CPU ${attacked.cpu} ms/s`,
        },
      ],
    };
  },
};
