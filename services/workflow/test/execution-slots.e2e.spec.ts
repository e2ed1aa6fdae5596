import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { startPlatform, waitFor, type Http, type Platform } from '@agentplatform/testing';
import { tenantOnPlan } from './schedules.support';
import { createWorkflow, percentile } from './workflows.support';

/**
 * Fair execution slots (issue 34, item 4; docs/workflow-engine.md "Execution slots"): one tenant's
 * execute that fans out to 1,000 leaf runs (three levels of foreach, delay leaves) does not hold
 * up another tenant's trivial asynchronous runs, and the fan-out itself still completes in full.
 * The replica has 100 slots instead of 500: the same attack (more runs than slots, parents waiting
 * on children), ten times cheaper.
 */
jest.setTimeout(240_000);

const SLOTS = 100;
const LEAF_DELAY_MS = 1_000;
const WIDTH = 10;

describe('execution slots shared between tenants', () => {
  let platform: Platform;
  let mongo: MongoClient;
  let attacker: Http;
  let bystander: Http;

  beforeAll(async () => {
    platform = await startPlatform({
      services: ['identity', 'workflow'],
      serviceEnv: {
        // 1,111 runs for the fan-out, one credit each.
        identity: { WELCOME_CREDITS: '5000' },
        workflow: { MAX_CONCURRENT_EXECUTIONS: String(SLOTS), EXECUTION_POLL_INTERVAL_MS: '200' },
        gateway: { GRPC_DEADLINE_MS: '20000' },
      },
    });
    mongo = await MongoClient.connect(platform.mongoUri);
    // Both on the plan without a request rate limit: the test measures slots, not the gateway's window.
    attacker = (await tenantOnPlan(platform, mongo, 'enterprise')).http;
    bystander = (await tenantOnPlan(platform, mongo, 'enterprise')).http;
  }, 120_000);

  afterAll(async () => {
    await mongo?.close();
    await platform?.stop();
  });

  /** A foreach over `input.item` (or `input.tree` at the top) running `child` 16 at a time. */
  function level(name: string, child: string, items = 'input.item') {
    return {
      name,
      nodes: [{ id: 'each', type: 'foreach', config: { workflow_id: child, items, concurrency: 16 } }],
    };
  }

  /** Starts the bystander's trivial run and answers the time from the request to its completion. */
  async function bystanderRun(workflowId: string): Promise<number> {
    const sentAt = Date.now();
    const res = await bystander.post(`/api/v1/workflows/${workflowId}/execute`, { input: { n: 1 }, async: true });
    expect(res.status).toBe(202);
    const done = await waitFor(
      async () => {
        const got = await bystander.get(`/api/v1/workflows/${workflowId}/executions/${res.body.execution_id}`);
        return got.body.status === 'running' ? undefined : got.body;
      },
      { timeoutMs: 60_000, intervalMs: 25, what: 'the bystander run to finish' },
    );
    expect(done).toMatchObject({ status: 'completed', output: { m: 2 } });
    return Date.parse(done.completed_at) - sentAt;
  }

  /** `count` bystander runs, two at a time (as hooks arrive), answering their latencies. */
  async function bystanderLatencies(workflowId: string, count: number): Promise<number[]> {
    const latencies: number[] = [];
    const lane = async () => {
      while (latencies.length < count) {
        latencies.push(await bystanderRun(workflowId));
        await sleep(50);
      }
    };
    await Promise.all([lane(), lane()]);
    return latencies;
  }

  it("keeps another tenant's trivial runs fast while one execute fans out to 1,000 leaf runs", async () => {
    const leaf = await createWorkflow(attacker, {
      name: 'leaf',
      nodes: [{ id: 'wait', type: 'delay', config: { ms: LEAF_DELAY_MS } }],
    });
    const low = await createWorkflow(attacker, level('low', leaf));
    const mid = await createWorkflow(attacker, level('mid', low));
    const root = await createWorkflow(attacker, level('root', mid, 'input.tree'));
    const tree = Array.from({ length: WIDTH }, (_, a) =>
      Array.from({ length: WIDTH }, (_, b) => Array.from({ length: WIDTH }, (_, c) => a * 100 + b * 10 + c)),
    );

    const trivial = await createWorkflow(bystander, {
      name: 'trivial',
      nodes: [{ id: 't', type: 'transform', config: { fields: { m: 'input.n + 1' } } }],
    });
    const alone = await bystanderLatencies(trivial, 20);

    const started = await attacker.post(`/api/v1/workflows/${root}/execute`, { input: { tree }, async: true });
    expect(started.status).toBe(202);
    // Until the leaves hold most of the attacker's share of the slots (four fifths of them).
    await waitFor(
      async () => {
        const res = await attacker.get(`/api/v1/workflows/${leaf}/executions?limit=1&status=running`);
        return res.body.total >= SLOTS * 0.6 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: 'the fan-out to fill the slots' },
    );
    const attacked = await bystanderLatencies(trivial, 20);

    const rootRun = await waitFor(
      async () => {
        const res = await attacker.get(`/api/v1/workflows/${root}/executions/${started.body.execution_id}`);
        return res.body.status === 'running' ? undefined : res.body;
      },
      { timeoutMs: 200_000, intervalMs: 500, what: 'the fan-out to finish' },
    );
    const p99Alone = percentile(alone, 99);
    const p99Attacked = percentile(attacked, 99);
    process.stdout.write(
      `bystander p50/p99 alone ${percentile(alone, 50)}/${p99Alone} ms, under the fan-out ${percentile(attacked, 50)}/${p99Attacked} ms; fan-out ${rootRun.duration_ms} ms\n`,
    );

    expect(rootRun.status).toBe('completed');
    const leaves = (rootRun.output.results as any[]).flatMap((m) =>
      (m.results as any[]).flatMap((l) => l.results as any[]),
    );
    expect(leaves).toHaveLength(WIDTH ** 3);
    expect(leaves.map((l) => l.item)).toEqual(Array.from({ length: WIDTH ** 3 }, (_, i) => i));
    // Measured while the leaves filled the slots: the bystander did not wait for them.
    expect(p99Attacked).toBeLessThan(Math.max(1_000, 5 * p99Alone));
  });

  it("refuses a manual execute over the plan's executions in flight, and lets the fan-out's own children queue", async () => {
    const free = (await tenantOnPlan(platform, mongo, 'free')).http;
    const leaf = await createWorkflow(free, {
      name: 'leaf',
      nodes: [{ id: 'wait', type: 'delay', config: { ms: 3_000 } }],
    });
    const mid = await createWorkflow(free, level('mid', leaf));
    const root = await createWorkflow(free, level('root', mid, 'input.tree'));
    // 1 + 4 + 64 runs in flight from one execute: more than the free plan's 50.
    const tree = Array.from({ length: 4 }, (_, a) => Array.from({ length: 16 }, (_, b) => a * 16 + b));
    const started = await free.post(`/api/v1/workflows/${root}/execute`, { input: { tree }, async: true });
    expect(started.status).toBe(202);
    await waitFor(
      async () => {
        const res = await free.get(`/api/v1/workflows/${leaf}/executions?limit=1&status=running`);
        return res.body.total >= 50 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the fan-out to have 50 runs in flight' },
    );

    const refused = await free.post(`/api/v1/workflows/${leaf}/execute`, { input: {}, async: true });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'rate_limit_exceeded', retry_after: 5 });
    expect(refused.body.message).toMatch(/50 executions in flight/);
    expect(refused.headers.get('retry-after')).toBe('5');

    const rootRun = await waitFor(
      async () => {
        const res = await free.get(`/api/v1/workflows/${root}/executions/${started.body.execution_id}`);
        return res.body.status === 'running' ? undefined : res.body;
      },
      { timeoutMs: 120_000, intervalMs: 1_000, what: 'the fan-out to finish' },
    );
    expect(rootRun.status).toBe('completed');
    expect((rootRun.output.results as any[]).flatMap((m) => m.results as any[])).toHaveLength(64);
    // Once it has finished, the tenant may execute again.
    expect((await free.post(`/api/v1/workflows/${leaf}/execute`, { input: {}, async: true })).status).toBe(202);
  });
});
