import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '@agentplatform/service-kit';
import { suiteFixture, waitFor } from '@agentplatform/testing';
import { claimsSettled, createActive, executionsOf, scheduleWorkflow, startTwoReplicas } from './schedules.support';

jest.setTimeout(180_000);

/**
 * A workflow replica killed (SIGKILL) while schedules tick: the surviving replica goes on, claims
 * the dead one left unstarted are taken over, and every tick of the window has exactly one claim
 * and exactly one execution: none lost, none doubled.
 */
describe('schedules survive a killed replica', () => {
  // Short leases, so the dead replica's claims and executions move within seconds.
  const setup = suiteFixture(
    () =>
      startTwoReplicas({
        SCHEDULER_CLAIM_LEASE_MS: '2000',
        EXECUTION_LEASE_MS: '2000',
        EXECUTION_POLL_INTERVAL_MS: '200',
      }),
    240_000,
  );

  /** What a replica killed between its claim and its run leaves behind: a claim in `starting`. */
  const staleClaim = (workflowId: string, tick: number, executionId: string, now: number) => ({
    _id: `${workflowId}@${tick}` as never,
    tenant_id: setup.tenantId,
    workflow_id: workflowId,
    tick_at: new Date(tick),
    execution_id: executionId,
    state: 'starting',
    owner: 'a-dead-replica',
    claimed_at: new Date(now - 60_000),
    expires_at: new Date(now + 86_400_000),
  });

  /**
   * The ledger entries of a run's credit (identity's, keyed `run:<execution id>`), once its settle
   * is written: a run taken over is charged once, like any other.
   */
  const chargesOf = async (executionId: string) => {
    const entries = setup.mongo.db(setup.platform.database('identity')).collection('credit_entries');
    const ofRun = () =>
      entries.find({ tenant_id: setup.tenantId, idempotency_key: { $regex: `^run:${executionId}(:|$)` } }).toArray();
    await waitFor(async () => (await ofRun()).some((e) => e.type === 'settle') || undefined, {
      timeoutMs: 30_000,
      what: `the credit of run ${executionId} to settle`,
    });
    const found = await ofRun();
    return { types: found.map((e) => e.type as string).sort(), spent: -found.reduce((n, e) => n + e.amount, 0) };
  };

  it('runs each tick once across the kill window', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await createActive(setup.http, scheduleWorkflow('* * * * * *')));
    await sleep(4_000);
    const killedAt = Date.now();
    await setup.second.kill();
    await sleep(8_000);
    const pausedAt: number[] = [];
    for (const id of ids) {
      expect((await setup.http.post(`/api/v1/workflows/${id}/pause`, {})).status).toBe(200);
      pausedAt.push(Date.now());
    }

    for (const [k, id] of ids.entries()) {
      const claims = await claimsSettled(setup, id);
      const ticks = claims.map((c) => new Date(c.tick_at).getTime());
      // Every second from the first tick to the pause, each claimed once: none lost, none doubled.
      expect(new Set(ticks).size).toBe(ticks.length);
      for (let i = 1; i < ticks.length; i++) expect(ticks[i]! - ticks[i - 1]!).toBe(1_000);
      expect(ticks[0]!).toBeLessThan(killedAt - 2_000);
      // The survivor went on after the kill (pauses begin 8 s after it).
      expect(ticks[ticks.length - 1]!).toBeGreaterThan(killedAt + 5_000);
      expect(ticks[ticks.length - 1]!).toBeLessThan(pausedAt[k]!);
      // Each claim started its own execution, and nothing else ran; only the tick claimed while
      // the pause was being written may have been cancelled by it.
      const notStarted = claims.filter((c) => c.state !== 'started');
      expect(notStarted.length).toBeLessThanOrEqual(1);
      for (const c of notStarted) {
        expect(c.state).toBe('cancelled');
        expect(c).toBe(claims[claims.length - 1]);
      }
      const started = claims.filter((c) => c.state === 'started').map((c) => c.execution_id);
      const executions = await executionsOf(setup.http, id);
      expect(executions.map((e) => e.execution_id).sort()).toEqual(started.sort());
      for (const e of executions) expect(e.trigger).toBe('schedule');
    }
  });

  it('takes over a claim a dead replica left unstarted, and starts its execution once', async () => {
    const id = await createActive(setup.http, scheduleWorkflow('0 0 1 1 *'));
    const claims = setup.mongo.db(setup.platform.database('workflow')).collection('schedule_claims');
    const now = Date.now();
    const stale = (tick: number, executionId: string) => staleClaim(id, tick, executionId, now);
    const lost = newId('exe');
    await claims.insertOne(stale(now - 61_000, lost));

    const taken = await waitFor(
      async () => {
        const claim = await claims.findOne({ _id: `${id}@${now - 61_000}` as never });
        return claim?.state === 'started' ? claim : undefined;
      },
      { timeoutMs: 30_000, what: 'the stale claim to be taken over' },
    );
    expect(taken.owner).not.toBe('a-dead-replica');
    const executions = await executionsOf(setup.http, id);
    expect(executions.map((e) => e.execution_id)).toEqual([lost]);
    const run = await setup.http.get(`/api/v1/workflows/${id}/executions/${lost}`);
    expect(run.body).toMatchObject({ trigger: 'schedule', input: { source: 'clock' } });
    expect(await chargesOf(lost)).toEqual({ types: ['reserve', 'settle'], spent: 1 });

    // A claim whose execution was stored before the replica died is settled without a second run.
    await claims.insertOne(stale(now - 62_000, lost));
    await waitFor(async () => (await claims.findOne({ _id: `${id}@${now - 62_000}` as never }))?.state === 'started', {
      timeoutMs: 30_000,
      what: 'the second stale claim to settle',
    });
    expect((await executionsOf(setup.http, id)).map((e) => e.execution_id)).toEqual([lost]);
    // ... and without a second charge.
    expect(await chargesOf(lost)).toEqual({ types: ['reserve', 'settle'], spent: 1 });
  });

  it('starts the run of a claim whose replica died after writing its entries, before storing it', async () => {
    const id = await createActive(setup.http, scheduleWorkflow('0 0 1 1 *'));
    const db = setup.mongo.db(setup.platform.database('workflow'));
    const now = Date.now();
    const tick = now - 63_000;
    const executionId = newId('exe');
    // A replica writes a run's entries (its credit to settle, its lease's due time) before the run
    // itself; killed in between, it leaves them and the claim in `starting`.
    await db.collection('credit_due').insertOne({
      _id: executionId as never,
      tenant_id: setup.tenantId,
      created_at: new Date(now - 60_000),
    });
    await db.collection('execution_due').insertOne({
      _id: executionId as never,
      due_at: new Date(now - 58_000),
      tenant_id: setup.tenantId,
    });
    await db.collection('schedule_claims').insertOne(staleClaim(id, tick, executionId, now));

    await waitFor(
      async () =>
        (await db.collection('schedule_claims').findOne({ _id: `${id}@${tick}` as never }))?.state === 'started',
      { timeoutMs: 30_000, what: 'the stale claim to be taken over' },
    );
    // The run exists: the entries it found were its own, not a sign that it was stored.
    expect((await executionsOf(setup.http, id)).map((e) => e.execution_id)).toEqual([executionId]);
    const run = await setup.http.get(`/api/v1/workflows/${id}/executions/${executionId}`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ trigger: 'schedule' });
    // Charged once: the entry left for it is settled, not doubled.
    expect(await chargesOf(executionId)).toEqual({ types: ['reserve', 'settle'], spent: 1 });
  });
});
