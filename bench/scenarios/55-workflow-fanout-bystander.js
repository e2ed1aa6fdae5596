// @ts-check
'use strict';
/**
 * Fan-out bystander (issue 34 item 4, fair execution slots): a bystander tenant's trivial
 * asynchronous runs (as hooks and schedules start them), from the execute request to the run's
 * `completed_at`, first alone, then while another tenant's one execute fans out through three
 * levels of foreach (concurrency 16) to 1,000 delay leaves. Both rows come from one run on one
 * platform, so the difference is the fan-out's doing.
 *
 * - BENCH_FANOUT_SLOTS (default 100): the workflow service's MAX_CONCURRENT_EXECUTIONS for this
 *   scenario (it is restarted with it, and with its default after). Fewer slots than leaves is
 *   the attack; 100 proves it as well as 500 on a small machine, where 400 concurrent runs of one
 *   tenant saturate the CPU and every answer slows, whatever the sharing.
 * - BENCH_FANOUT_LEAF_MS (default 2000): each leaf's delay; longer leaves hold their slots longer.
 * - BENCH_FANOUT_RUNS (default 60): bystander runs per row, two at a time.
 */
const { workflowTenant } = require('./50-workflow-hook-transform.js');

const SLOTS = process.env.BENCH_FANOUT_SLOTS || '100';
const LEAF_MS = Number(process.env.BENCH_FANOUT_LEAF_MS || 2_000);
const RUNS = Number(process.env.BENCH_FANOUT_RUNS || 60);
const WIDTH = 10;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted, p) {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function create(http, body) {
  const created = await http.post('/api/v1/workflows', body);
  if (created.status !== 201) throw new Error(`create workflow: ${created.status} ${created.text}`);
  return created.body.id;
}

/** Polls an execution until it has left `running` (a 503 of a saturated machine is asked again). */
async function finished(http, workflowId, executionId, intervalMs) {
  for (;;) {
    const res = await http.get(`/api/v1/workflows/${workflowId}/executions/${executionId}`);
    if (res.status !== 200 && res.status !== 503) throw new Error(`get execution: ${res.status} ${res.text}`);
    if (res.status === 200 && res.body.status !== 'running') return res.body;
    await sleep(intervalMs);
  }
}

/** Restarts the workflow service with these variables. */
async function restartWorkflow(ctx, env) {
  const workflow = ctx.platform.service('workflow');
  workflow.setEnv(env);
  await workflow.stop();
  await workflow.start();
}

/**
 * RUNS bystander runs, two at a time: their latencies (request -> completed_at), sorted, and the
 * executes that were refused or timed out (counted as errors, retried after a second).
 */
async function bystanderLatencies(http, workflowId) {
  const latencies = [];
  const failures = [];
  let started = 0;
  const lane = async () => {
    while (started < RUNS) {
      started += 1;
      const sentAt = Date.now();
      const res = await http.post(`/api/v1/workflows/${workflowId}/execute`, { input: { n: 1 }, async: true });
      if (res.status !== 202) {
        failures.push(`${res.status} after ${Date.now() - sentAt} ms`);
        started -= 1;
        await sleep(1_000);
        continue;
      }
      const done = await finished(http, workflowId, res.body.execution_id, 25);
      if (done.status !== 'completed') throw new Error(`bystander run ${done.status}: ${done.error}`);
      latencies.push(Date.parse(done.completed_at) - sentAt);
      await sleep(50);
    }
  };
  await Promise.all([lane(), lane()]);
  return { latencies: latencies.sort((a, b) => a - b), failures };
}

function row(label, { latencies, failures }, note) {
  const refused = failures.length > 0 ? `; executes refused or timed out: ${failures.slice(0, 5).join(', ')}` : '';
  return {
    label,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    errors: failures.length,
    note: `${latencies.length} runs; latency: execute request -> completed_at; ${note}${refused}`,
  };
}

module.exports = {
  id: 'workflow-fanout-bystander',
  title: 'bystander runs beside a 1,000-leaf fan-out',
  async setup(ctx) {
    await restartWorkflow(ctx, { MAX_CONCURRENT_EXECUTIONS: SLOTS });
    const attacker = await workflowTenant(ctx);
    const bystander = await workflowTenant(ctx);
    const leaf = await create(attacker, {
      name: 'bench leaf',
      nodes: [{ id: 'wait', type: 'delay', config: { ms: LEAF_MS } }],
    });
    const level = (name, child, items) =>
      create(attacker, {
        name,
        nodes: [{ id: 'each', type: 'foreach', config: { workflow_id: child, items, concurrency: 16 } }],
      });
    const low = await level('bench low', leaf, 'input.item');
    const mid = await level('bench mid', low, 'input.item');
    const root = await level('bench root', mid, 'input.tree');
    const trivial = await create(bystander, {
      name: 'bench trivial',
      nodes: [{ id: 't', type: 'transform', config: { fields: { m: 'input.n + 1' } } }],
    });
    return { attacker, bystander, leaf, root, trivial };
  },
  async teardown(ctx) {
    await restartWorkflow(ctx, { MAX_CONCURRENT_EXECUTIONS: '500' });
  },
  async run(_ctx, { attacker, bystander, leaf, root, trivial }) {
    const alone = await bystanderLatencies(bystander, trivial);

    const tree = Array.from({ length: WIDTH }, (_, a) =>
      Array.from({ length: WIDTH }, (_, b) => Array.from({ length: WIDTH }, (_, c) => a * 100 + b * 10 + c)),
    );
    const startedAt = Date.now();
    const started = await attacker.post(`/api/v1/workflows/${root}/execute`, { input: { tree }, async: true });
    if (started.status !== 202) throw new Error(`fan-out execute: ${started.status} ${started.text}`);
    // Measured once the leaves hold most of the attacker's share of the slots.
    let leavesRunning = 0;
    while (leavesRunning < Number(SLOTS) * 0.6) {
      await sleep(200);
      leavesRunning = (await attacker.get(`/api/v1/workflows/${leaf}/executions?limit=1&status=running`)).body.total;
    }
    const attacked = await bystanderLatencies(bystander, trivial);
    const fanOut = await finished(attacker, root, started.body.execution_id, 500);
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    const leaves =
      fanOut.status === 'completed' ? fanOut.output.results.flatMap((m) => m.results.flatMap((l) => l.results)) : [];

    return {
      rows: [
        row('bystander alone', alone, 'trivial transform runs, async'),
        row(
          'bystander during the fan-out',
          attacked,
          `fan-out ${fanOut.status} in ${seconds} s with ${leaves.length} leaf results (${LEAF_MS} ms leaves, ${SLOTS} slots)`,
        ),
      ],
    };
  },
};
