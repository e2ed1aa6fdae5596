import { InMemoryOutbox } from '@agentplatform/testing/in-memory';
import { SecretBox, createGuardedAgent, createLogger } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types.js';
import {
  InMemoryExecutions,
  InMemoryHeldRuns,
  InMemoryLimits,
  inlineExpressions,
  newExecution,
} from '../testing/in-memory.js';
import { ExecutionEngine } from './execution-engine.js';
import { ORPHAN_ENTRY_MS } from './held-runs.js';

/**
 * Runs over the tenant's bound on executions in flight queue (docs/workflows.md, "Queued runs"):
 * the engine and its line of held runs against the in-memory fakes of their ports.
 */
/** An engine (a replica) over these stores: new ones, or another replica's. */
function setup(
  bound: number,
  stores: { executions: InMemoryExecutions; line: InMemoryHeldRuns } = {
    executions: new InMemoryExecutions(),
    line: new InMemoryHeldRuns(),
  },
) {
  const { executions, line } = stores;
  const limits = new InMemoryLimits();
  limits.max = bound;
  const engine = new ExecutionEngine({
    executions,
    line,
    limits,
    outbox: new InMemoryOutbox(),
    runners: {
      agents: { agentExists: async () => true, chat: async () => Promise.reject(new Error('no agents here')) },
      http: createGuardedAgent({ allowPrivate: false }),
      expressions: inlineExpressions,
      box: SecretBox.fromKeyring(SecretBox.generateKeyring()),
    },
    logger: createLogger('held-runs-test', 'silent'),
    options: {
      leaseMs: 10_000,
      pollIntervalMs: 50,
      maxConcurrent: 50,
      maxConcurrentPerTenant: 40,
      defaultNodeTimeoutMs: 5_000,
      stopGraceMs: 10,
    },
  });
  return { engine, executions, line };
}

function delayed(tenantId: string, ms: number): Execution {
  return newExecution([{ id: 'wait', type: 'delay', config: { ms } }], { tenantId });
}

const running = (executions: InMemoryExecutions, tenantId: string) =>
  [...executions.byId.values()].filter((e) => e.tenantId === tenantId && e.status === 'running').length;

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('queued runs', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('queues runs over the bound and starts them in arrival order, never more than the bound at once', async () => {
    const { engine, executions, line } = setup(2);
    engine.start();
    stop = () => engine.stop();
    const runs = Array.from({ length: 6 }, () => delayed('t1', 60));
    const answered = [];
    for (const run of runs) answered.push(await engine.submit(run, { whenBusy: 'queue' }));
    expect(answered.map((e) => e.status)).toEqual(['running', 'running', 'queued', 'queued', 'queued', 'queued']);
    expect(line.entries.map((e) => e.executionId)).toEqual(runs.slice(2).map((r) => r.id));

    let most = 0;
    const startedOrder: string[] = [];
    await until(() => {
      most = Math.max(most, running(executions, 't1'));
      for (const run of runs) {
        if (executions.byId.get(run.id)?.status !== 'queued' && !startedOrder.includes(run.id))
          startedOrder.push(run.id);
      }
      return runs.every((r) => executions.byId.get(r.id)?.status === 'completed');
    });
    expect(most).toBe(2);
    expect(startedOrder).toEqual(runs.map((r) => r.id));
    expect(line.entries).toHaveLength(0);
  });

  it('decides runs that arrive together on one count, in arrival order', async () => {
    const { engine, executions } = setup(2);
    engine.start();
    stop = () => engine.stop();
    let counts = 0;
    const countRunning = executions.countRunning.bind(executions);
    executions.countRunning = (tenantId, atMost) => ((counts += 1), countRunning(tenantId, atMost));
    const runs = Array.from({ length: 5 }, () => delayed('t1', 50));
    const answered = await Promise.all(runs.map((run) => engine.submit(run, { whenBusy: 'queue' })));
    expect(answered.map((e) => e.status)).toEqual(['running', 'running', 'queued', 'queued', 'queued']);
    expect(counts).toBe(1);
  });

  it("lets another tenant start at once while one tenant's runs queue", async () => {
    const { engine } = setup(1);
    engine.start();
    stop = () => engine.stop();
    await engine.submit(delayed('busy', 200), { whenBusy: 'queue' });
    expect((await engine.submit(delayed('busy', 200), { whenBusy: 'queue' })).status).toBe('queued');
    expect((await engine.submit(delayed('other', 10), { whenBusy: 'queue' })).status).toBe('running');
  });

  it("starts a queued run left by a replica that died, on another replica's poll, once", async () => {
    const first = setup(1);
    first.engine.start();
    await first.engine.submit(delayed('t1', 100), { whenBusy: 'queue' });
    const queued = await first.engine.submit(delayed('t1', 10), { whenBusy: 'queue' });
    expect(queued.status).toBe('queued');
    // The first replica dies with the run in line: its runs' leases expire.
    await first.engine.stop();
    for (const id of first.executions.byId.keys()) first.executions.expire(id);

    const second = setup(1, first).engine;
    second.start();
    stop = () => second.stop();
    await until(() => first.executions.byId.get(queued.id)?.status === 'completed');
    expect(first.executions.writes.filter((w) => w.id === queued.id && w.kind === 'insert')).toHaveLength(1);
    expect(first.line.entries).toHaveLength(0);
  });

  it('keeps the place of an entry whose run is being stored, and drops one never stored', async () => {
    const { engine, executions, line } = setup(1);
    engine.start();
    stop = () => engine.stop();
    await line.add({ executionId: 'exe_storing', tenantId: 't1', heldAt: new Date() });
    await line.add({ executionId: 'exe_lost', tenantId: 't2', heldAt: new Date(Date.now() - ORPHAN_ENTRY_MS - 1) });
    const behind = await engine.submit(delayed('t1', 10), { whenBusy: 'queue' });
    expect(behind.status).toBe('queued');
    await until(() => !line.entries.some((e) => e.executionId === 'exe_lost'));
    expect(executions.byId.get(behind.id)?.status).toBe('queued');
    // Stored at last: it runs first, then the one behind it.
    await executions.insert({ ...delayed('t1', 10), id: 'exe_storing', status: 'queued' });
    await until(() => executions.byId.get(behind.id)?.status === 'completed');
    expect(executions.byId.get('exe_storing')?.status).toBe('completed');
  });
});
