import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { api, startPlatform, waitFor, type Http, type Platform } from '@agentplatform/testing';
import { tenantOnPlan } from './schedules.support';
import { hookIdOf } from './workflows.support';

/**
 * Runs over the tenant's bound on executions in flight queue (docs/design.md section 5,
 * docs/workflows.md "Queued runs"): hooks are answered 202 and their runs start in arrival order as
 * earlier ones end, never more than the bound at once, while another tenant's runs start at once.
 * The bound is lowered to 3 for every plan (EXECUTIONS_IN_FLIGHT_MAX).
 */
jest.setTimeout(120_000);

const BOUND = 3;
const HOOKS = 9;
const DELAY_MS = 3_000;

describe('queued hook runs', () => {
  let platform: Platform;
  let mongo: MongoClient;
  let busy: Http;
  let other: Http;

  beforeAll(async () => {
    platform = await startPlatform({
      services: ['identity', 'workflow'],
      serviceEnv: { workflow: { EXECUTIONS_IN_FLIGHT_MAX: String(BOUND), EXECUTION_POLL_INTERVAL_MS: '200' } },
    });
    mongo = await MongoClient.connect(platform.mongoUri);
    // On the plan without a request rate limit: the test polls the executions API often.
    busy = (await tenantOnPlan(platform, mongo, 'enterprise')).http;
    other = (await tenantOnPlan(platform, mongo, 'enterprise')).http;
  }, 90_000);

  /** Stops what a test left running (its sampler) when it failed half-way. */
  let afterTest = (): unknown => undefined;
  afterEach(() => afterTest());

  afterAll(async () => {
    await mongo?.close();
    await platform?.stop();
  });

  /** An active workflow started by its hook that waits `delayMs`: a run that stays in flight. */
  async function hooked(http: Http, delayMs = DELAY_MS): Promise<{ id: string; hook: string }> {
    const created = await http.post('/api/v1/workflows', {
      name: 'slow hook',
      nodes: [
        { id: 'in', type: 'webhook', config: {} },
        { id: 'wait', type: 'delay', config: { ms: delayMs } },
      ],
      edges: [{ source: 'in', target: 'wait' }],
    });
    expect(created.status).toBe(201);
    expect((await http.post(`/api/v1/workflows/${created.body.id}/resume`, {})).status).toBe(200);
    return { id: created.body.id, hook: `/hooks/${hookIdOf(created.body)}` };
  }

  async function statuses(http: Http, workflowId: string): Promise<Record<string, number>> {
    const res = await http.get(`/api/v1/workflows/${workflowId}/executions?limit=100`);
    expect(res.status).toBe(200);
    const counts: Record<string, number> = {};
    for (const e of res.body.items) counts[e.status] = (counts[e.status] ?? 0) + 1;
    return counts;
  }

  it('queues hooks over the bound, runs them in arrival order within the bound, and lets another tenant run at once', async () => {
    const slow = await hooked(busy);
    const bystander = await hooked(other);
    const anonymous = api(platform.url);

    // Sampled through the API from the first hook until every run has finished: never more than
    // the bound in flight.
    let most = 0;
    let sawQueued = false;
    let sampling = true;
    afterTest = () => (sampling = false);
    const sampler = (async () => {
      while (sampling && platform) {
        const counts = await statuses(busy, slow.id);
        most = Math.max(most, counts.running ?? 0);
        sawQueued ||= (counts.queued ?? 0) > 0;
        await sleep(50);
      }
    })();

    const ids: string[] = [];
    for (let i = 0; i < HOOKS; i++) {
      const res = await anonymous.post(slow.hook, { i });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ execution_id: expect.stringMatching(/^exe_/) });
      ids.push(res.body.execution_id);
    }
    // Another tenant is not held back by this one's line.
    const sentAt = Date.now();
    const theirs = await anonymous.post(bystander.hook, {});
    expect(theirs.status).toBe(202);
    const theirRun = await other.get(`/api/v1/workflows/${bystander.id}/executions/${theirs.body.execution_id}`);
    expect(theirRun.body.status).toBe('running');
    // Before any of the busy tenant's runs could have ended (one round of its line is DELAY_MS).
    expect(Date.parse(theirRun.body.started_at) - sentAt).toBeLessThan(DELAY_MS);

    // The first run past the bound was queued; once started it has a due entry for the lease takeover.
    const due = mongo.db(platform.database('workflow')).collection<{ _id: string }>('execution_due');
    const firstQueued = ids[BOUND]!;
    await waitFor(
      async () =>
        (await busy.get(`/api/v1/workflows/${slow.id}/executions/${firstQueued}`)).body.status === 'running'
          ? true
          : undefined,
      { timeoutMs: 30_000, intervalMs: 50, what: 'the first queued run to start' },
    );
    expect(await due.findOne({ _id: firstQueued })).not.toBeNull();

    await waitFor(async () => ((await statuses(busy, slow.id)).completed === HOOKS ? true : undefined), {
      timeoutMs: 90_000,
      intervalMs: 200,
      what: 'every queued run to complete',
    });
    sampling = false;
    await sampler;
    expect(sawQueued).toBe(true);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(BOUND);

    const runs = await Promise.all(
      ids.map(async (id) => (await busy.get(`/api/v1/workflows/${slow.id}/executions/${id}`)).body),
    );
    for (const run of runs) expect(run).toMatchObject({ status: 'completed', trigger: 'webhook' });
    // ... and lost it when it ended.
    expect(await due.countDocuments({ _id: { $in: ids } })).toBe(0);
    // Started in the order the hooks arrived.
    const starts = runs.map((r) => Date.parse(r.started_at));
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    // The last of nine runs started after at least two rounds of the bound had finished.
    expect(starts[HOOKS - 1]! - starts[0]!).toBeGreaterThanOrEqual(2 * DELAY_MS - 200);
  });

  it('refuses a manual execute over the bound with 429, and cancels a queued run', async () => {
    // Runs long enough that the last one is still queued when it is cancelled.
    const slow = await hooked(busy, 20_000);
    const anonymous = api(platform.url);
    const ids: string[] = [];
    for (let i = 0; i < BOUND + 1; i++) ids.push((await anonymous.post(slow.hook, {})).body.execution_id);
    const refused = await busy.post(`/api/v1/workflows/${slow.id}/execute`, { input: {}, async: true });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'rate_limit_exceeded', retry_after: 5 });

    const last = ids[BOUND]!;
    // The running runs have due entries for the lease takeover; the queued one has none (it has no
    // lease: a replica's takeover must never start it), and is still queued, not taken over.
    const due = mongo.db(platform.database('workflow')).collection<{ _id: string }>('execution_due');
    const entries = new Set((await due.find({ _id: { $in: ids } }).toArray()).map((d) => d._id));
    expect([...entries].sort()).toEqual(ids.slice(0, BOUND).sort());
    expect((await busy.get(`/api/v1/workflows/${slow.id}/executions/${last}`)).body.status).toBe('queued');
    const cancelled = await busy.post(`/api/v1/workflows/${slow.id}/executions/${last}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    await sleep(1_000);
    expect((await busy.get(`/api/v1/workflows/${slow.id}/executions/${last}`)).body.status).toBe('cancelled');
  });
});
