import { setTimeout as sleep } from 'node:timers/promises';
import { EventTap, suiteFixture, waitFor } from '@agentplatform/testing';
import {
  claimsSettled,
  createActive,
  executionsOf,
  scheduleWorkflow,
  startTwoReplicas,
  tenantOnPlan,
} from './schedules.support';

/**
 * Schedule triggers through the gateway, with two workflow replicas on one database: each tick
 * runs exactly once, pausing stops it, next_run_at moves, and bad or too-frequent schedules are
 * refused naming the field.
 */
jest.setTimeout(120_000);

describe('schedules', () => {
  const setup = suiteFixture(() => startTwoReplicas(), 240_000);
  let tap: EventTap;

  beforeAll(async () => {
    tap = await EventTap.start(setup.platform, 'schedules');
  }, 60_000);

  afterAll(async () => {
    await tap?.stop();
  });

  it('runs a 6-field schedule every 2 s once per tick across two replicas, until paused', async () => {
    const created = await setup.http.post('/api/v1/workflows', scheduleWorkflow('*/2 * * * * *'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ trigger_type: 'schedule', status: 'draft', next_run_at: null });
    const id = created.body.id;

    const resumedAt = Date.now();
    expect((await setup.http.post(`/api/v1/workflows/${id}/resume`, {})).status).toBe(200);
    const answeredAt = Date.now();
    const first = (await setup.http.get(`/api/v1/workflows/${id}`)).body.next_run_at;
    expect(new Date(first).getTime() % 2_000).toBe(0);
    expect(new Date(first).getTime()).toBeGreaterThan(resumedAt - 1_000);
    // The next even second after the server took the resume, which was before it answered.
    expect(new Date(first).getTime()).toBeLessThanOrEqual(answeredAt + 2_000);

    await sleep(10_500);
    const moved = (await setup.http.get(`/api/v1/workflows/${id}`)).body.next_run_at;
    expect(new Date(moved).getTime()).toBeGreaterThan(new Date(first).getTime() + 8_000);

    const pause = await setup.http.post(`/api/v1/workflows/${id}/pause`, {});
    expect(pause.status).toBe(200);
    const pausedAt = Date.now();
    const atPause = await executionsOf(setup.http, id);
    expect((await setup.http.get(`/api/v1/workflows/${id}`)).body.next_run_at).toBeNull();

    // Every even second from the first tick to the pause, each exactly once (the tick at the
    // pause itself may or may not have made it).
    const expected = Math.floor((pausedAt - new Date(first).getTime()) / 2_000) + 1;
    expect(atPause.length).toBeGreaterThanOrEqual(expected - 1);
    expect(atPause.length).toBeLessThanOrEqual(expected);
    for (const execution of atPause) expect(execution.trigger).toBe('schedule');

    const claims = await claimsSettled(setup, id);
    const ticks = claims.map((c) => new Date(c.tick_at).getTime());
    expect(new Set(ticks).size).toBe(ticks.length);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i]! - ticks[i - 1]!).toBe(2_000);
    const started = claims.filter((c) => c.state === 'started').map((c) => c.execution_id);
    expect(started.sort()).toEqual(atPause.map((e) => e.execution_id).sort());

    const one = await setup.http.get(`/api/v1/workflows/${id}/executions/${atPause[0].execution_id}`);
    expect(one.body).toMatchObject({ trigger: 'schedule', input: { source: 'clock' }, output: { seen: 'clock' } });
    const completed = await tap.wait(
      'workflow.execution.completed',
      (e) => e.data.execution_id === atPause[0].execution_id,
    );
    expect(completed.data.trigger).toBe('schedule');
    const startedEvent = await tap.wait(
      'workflow.execution.started',
      (e) => e.data.execution_id === atPause[0].execution_id,
    );
    expect(startedEvent.data.trigger).toBe('schedule');

    // Nothing runs after the pause answered.
    await sleep(5_000);
    expect(await executionsOf(setup.http, id)).toHaveLength(atPause.length);
  });

  it('stops at once when the workflow is deleted', async () => {
    const id = await createActive(setup.http, scheduleWorkflow('* * * * * *'));
    await waitFor(async () => (await executionsOf(setup.http, id)).length >= 2, { timeoutMs: 10_000 });
    expect((await setup.http.delete(`/api/v1/workflows/${id}`)).status).toBe(200);
    await sleep(3_000);
    expect((await setup.http.get(`/api/v1/workflows/${id}`)).status).toBe(404);
    const claims = await claimsSettled(setup, id);
    const stored = await setup.mongo
      .db(setup.platform.database('workflow'))
      .collection('executions')
      .countDocuments({ workflow_id: id });
    expect(stored).toBe(0);
    expect(claims.length).toBeGreaterThanOrEqual(2);
  });

  it('moves next_run_at when the schedule changes, and keeps it for other edits', async () => {
    const id = await createActive(setup.http, scheduleWorkflow('0 0 1 1 *', { timezone: 'Europe/Berlin' }));
    const before = (await setup.http.get(`/api/v1/workflows/${id}`)).body;
    expect(new Date(before.next_run_at).getUTCHours()).toBe(23);
    expect((await setup.http.put(`/api/v1/workflows/${id}`, { name: 'renamed' })).body.next_run_at).toBe(
      before.next_run_at,
    );
    const nodes = scheduleWorkflow('30 4 * * *').nodes;
    const changed = (await setup.http.put(`/api/v1/workflows/${id}`, { nodes })).body;
    expect(changed.next_run_at).toMatch(/T04:30:00/);
    expect((await setup.http.post(`/api/v1/workflows/${id}/pause`, {})).status).toBe(200);
  });

  it('refuses an invalid cron or timezone, a second trigger and an edge into the schedule, naming the field', async () => {
    const badCron = await setup.http.post('/api/v1/workflows', scheduleWorkflow('61 * * * *'));
    expect(badCron.status).toBe(400);
    expect(badCron.body.details).toEqual([
      { field: 'nodes[0].config.cron', message: expect.stringMatching(/^invalid cron expression/) },
    ]);
    const sevenFields = await setup.http.post('/api/v1/workflows', scheduleWorkflow('0 0 0 * * * 2030'));
    expect(sevenFields.status).toBe(400);
    expect(sevenFields.body.details[0].field).toBe('nodes[0].config.cron');

    const badZone = await setup.http.post(
      '/api/v1/workflows',
      scheduleWorkflow('0 9 * * *', { timezone: 'Mars/Olympus' }),
    );
    expect(badZone.status).toBe(400);
    expect(badZone.body.details).toEqual([
      { field: 'nodes[0].config.timezone', message: "unknown IANA timezone 'Mars/Olympus'" },
    ]);

    const twoTriggers = await setup.http.post('/api/v1/workflows', {
      name: 'two triggers',
      nodes: [
        { id: 'hook', type: 'webhook', config: {} },
        { id: 'tick', type: 'schedule', config: { cron: '0 9 * * *' } },
      ],
    });
    expect(twoTriggers.status).toBe(400);
    expect(twoTriggers.body.details[0]).toMatchObject({ field: 'nodes[1].type' });

    const body = scheduleWorkflow('0 9 * * *');
    const incoming = await setup.http.post('/api/v1/workflows', {
      ...body,
      edges: [{ source: 'mark', target: 'tick' }],
    });
    expect(incoming.status).toBe(400);
    expect(incoming.body.details[0].field).toBe('edges[0].target');
  });

  it("refuses a schedule finer than the plan's minimum interval, on create and on update", async () => {
    const pro = await tenantOnPlan(setup.platform, setup.mongo, 'pro');
    const tooFine = await pro.http.post('/api/v1/workflows', scheduleWorkflow('*/2 * * * * *'));
    expect(tooFine.status).toBe(400);
    expect(tooFine.body.details).toEqual([
      {
        field: 'nodes[0].config.cron',
        message: 'fires 2s apart at its closest; the pro plan allows at most one run every 10s',
      },
    ]);
    // Usually a minute apart, but 1 s across each minute boundary: measured at its closest.
    const sneaky = await pro.http.post('/api/v1/workflows', scheduleWorkflow('0,59 * * * * *'));
    expect(sneaky.status).toBe(400);

    const ok = await pro.http.post('/api/v1/workflows', scheduleWorkflow('*/10 * * * * *'));
    expect(ok.status).toBe(201);
    const update = await pro.http.put(`/api/v1/workflows/${ok.body.id}`, {
      nodes: scheduleWorkflow('*/5 * * * * *').nodes,
    });
    expect(update.status).toBe(400);
    expect(update.body.details[0].field).toBe('nodes[0].config.cron');

    // The enterprise tenant of this suite may run every second.
    expect((await setup.http.post('/api/v1/workflows', scheduleWorkflow('* * * * * *'))).status).toBe(201);
  });

  it("runs a free tenant's schedule while its request window is spent, and charges each run", async () => {
    const free = await tenantOnPlan(setup.platform, setup.mongo, 'free');
    const balance = async () => (await free.http.get('/api/v1/billing/credits')).body.balance as number;
    const before = await balance();
    // Spends the minute's requests down to the two that create and resume the workflow. A window
    // with too little of it left for a tick and a check is waited out and spent anew.
    let resetAt = 0;
    for (let round = 0; round < 3; round++) {
      let remaining = Infinity;
      while (remaining > 2) {
        const res = await free.http.get('/api/v1/workflows');
        expect(res.status).toBe(200);
        remaining = Number(res.headers.get('x-ratelimit-remaining'));
        resetAt = Number(res.headers.get('x-ratelimit-reset')) * 1_000;
      }
      if (resetAt - Date.now() > 20_000) break;
      await sleep(resetAt - Date.now() + 1_000);
    }
    // Once a minute (the free plan's finest), at a whole second about 8 s from now.
    const tick = Math.ceil((Date.now() + 8_000) / 1_000) * 1_000;
    const id = await createActive(free.http, scheduleWorkflow(`${new Date(tick).getUTCSeconds()} * * * * *`));
    const refused = await free.http.get('/api/v1/workflows');
    expect(refused.status).toBe(429);

    // The tick runs all the same: a scheduled run is not an API request (docs/workflow-engine.md).
    const completed = await tap.wait('workflow.execution.completed', (e) => e.data.workflow_id === id);
    expect(completed.data.trigger).toBe('schedule');
    expect(Date.now()).toBeLessThan(resetAt);
    expect((await free.http.get('/api/v1/workflows')).status).toBe(429);

    // Once the window is over: paused, and each scheduled run cost a credit.
    await sleep(resetAt - Date.now() + 1_000);
    expect((await free.http.post(`/api/v1/workflows/${id}/pause`, {})).status).toBe(200);
    const runs = await executionsOf(free.http, id);
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(runs.every((r) => r.trigger === 'schedule')).toBe(true);
    expect(await balance()).toBe(before - runs.length);
  }, 240_000);
});
