import { createLogger } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types.js';
import { NO_LEASE } from '../domain/lease.js';
import { InMemoryExecutions, newExecution } from '../testing/in-memory.js';
import { LeaseKeeper, MAX_CLAIMS, type LeaseOptions } from './lease-keeper.js';
import { Abandoned, type Run } from './run.js';

/** The lease keeper against the in-memory execution store; its runs are held until a test ends them. */
function setup(options: Partial<LeaseOptions> = {}) {
  const store = new InMemoryExecutions();
  const runs: Run[] = [];
  const finish = new Map<string, () => void>();
  const givenUp: Array<{ id: string; reason: string }> = [];
  const keeper = new LeaseKeeper(
    {
      leases: store,
      logger: createLogger('lease-test', 'silent'),
      options: {
        leaseMs: 600,
        pollIntervalMs: 60_000,
        maxConcurrent: 10,
        maxConcurrentPerTenant: 10,
        stopGraceMs: 50,
        ...options,
      },
    },
    {
      run: (run) =>
        new Promise<void>((resolve, reject) => {
          runs.push(run);
          finish.set(run.execution.id, resolve);
          run.controller.signal.addEventListener('abort', () => reject(run.controller.signal.reason));
        }),
      async giveUp(execution, reason) {
        givenUp.push({ id: execution.id, reason });
      },
      ended: () => undefined,
    },
  );
  return { store, keeper, runs, finish, givenUp };
}

async function until(check: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** An execution another replica held until it died: its lease has run out. */
async function orphan(store: InMemoryExecutions): Promise<Execution> {
  const execution = newExecution([{ id: 'wait', type: 'delay', config: { ms: 10 } }]);
  await store.insert(execution, { owner: 'dead-replica', until: new Date(Date.now() - 1) });
  return execution;
}

describe('LeaseKeeper', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it("takes over a dead replica's execution and runs it under its own lease", async () => {
    const { store, keeper, runs } = setup();
    const execution = await orphan(store);
    keeper.start();
    stop = () => keeper.stop();
    await until(() => runs.length === 1);
    expect(runs[0]!.execution.id).toBe(execution.id);
    expect(store.ownerOf(execution.id)).toBe(keeper.owner);
    expect(keeper.activeCount).toBe(1);
  });

  it(`fails an execution taken over more than ${MAX_CLAIMS} times instead of running it again`, async () => {
    const { store, keeper, runs, givenUp } = setup();
    const execution = await orphan(store);
    store.leases.get(execution.id)!.claims = MAX_CLAIMS;
    keeper.start();
    stop = () => keeper.stop();
    await until(() => givenUp.length === 1);
    expect(givenUp[0]).toEqual({
      id: execution.id,
      reason: `execution was interrupted ${MAX_CLAIMS} times; giving up`,
    });
    expect(runs).toHaveLength(0);
  });

  it('aborts a run at the next renewal once another replica holds its lease', async () => {
    const { store, keeper, runs } = setup({ leaseMs: 600 });
    const execution = newExecution([{ id: 'wait', type: 'delay', config: { ms: 10 } }]);
    await store.insert(execution, { owner: keeper.owner, until: keeper.leaseUntil() });
    keeper.start();
    stop = () => keeper.stop();
    keeper.launch(execution);
    await until(() => runs.length === 1);
    store.leases.get(execution.id)!.owner = 'other-replica';
    // Renewals run every third of the lease (200 ms here).
    await until(() => runs[0]!.controller.signal.aborted);
    expect(runs[0]!.controller.signal.reason).toBeInstanceOf(Abandoned);
    await until(() => keeper.activeCount === 0);
  });

  it('renews the leases of the runs it holds, so no other replica takes them over', async () => {
    const { store, keeper } = setup({ leaseMs: 600 });
    const execution = newExecution([{ id: 'wait', type: 'delay', config: { ms: 10 } }]);
    const taken = keeper.leaseUntil();
    await store.insert(execution, { owner: keeper.owner, until: taken });
    keeper.start();
    stop = () => keeper.stop();
    keeper.launch(execution);
    await until(() => store.leases.get(execution.id)!.until > taken);
    expect(await store.claimExpired('other-replica', new Date(), new Date())).toBeUndefined();
  });

  it('on stop lets a run finish within the grace period and hands the others back at once', async () => {
    const { store, keeper, runs, finish } = setup({ stopGraceMs: 300 });
    const quick = newExecution([{ id: 'wait', type: 'delay', config: { ms: 10 } }]);
    const slow = newExecution([{ id: 'wait', type: 'delay', config: { ms: 10 } }]);
    for (const execution of [quick, slow]) {
      await store.insert(execution, { owner: keeper.owner, until: keeper.leaseUntil() });
      keeper.launch(execution);
    }
    await until(() => runs.length === 2);
    const stopped = keeper.stop();
    finish.get(quick.id)!();
    await stopped;
    expect(runs[0]!.controller.signal.aborted).toBe(false);
    expect(runs[1]!.controller.signal.reason).toBeInstanceOf(Abandoned);
    // The slow one is free for any replica now, not when its lease would have run out.
    expect(store.ownerOf(slow.id)).toBeNull();
    expect(await store.claimExpired('other-replica', new Date(), new Date(Date.now() + 1_000))).toMatchObject({
      execution: { id: slow.id },
    });
  });

  it('runs a queued execution as soon as a slot frees, without waiting for the next poll', async () => {
    const { store, keeper, runs, finish } = setup({ maxConcurrent: 1, pollIntervalMs: 60_000 });
    keeper.start();
    stop = () => keeper.stop();
    const first = newExecution([{ id: 'wait', type: 'delay', config: { ms: 10 } }]);
    await store.insert(first, { owner: keeper.owner, until: keeper.leaseUntil() });
    keeper.launch(first);
    expect(keeper.admit(first.tenantId)).toBe(false);
    const queued = newExecution([{ id: 'wait', type: 'delay', config: { ms: 10 } }]);
    await store.insert(queued, NO_LEASE);
    keeper.queued();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runs.map((r) => r.execution.id)).toEqual([first.id]);
    finish.get(first.id)!();
    await until(() => runs.length === 2);
    expect(runs[1]!.execution.id).toBe(queued.id);
    expect(store.ownerOf(queued.id)).toBe(keeper.owner);
  });
});
