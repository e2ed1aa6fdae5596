import { DomainError, InsufficientCreditsError } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types';
import type { Workflow } from '../domain/workflow.types';
import type { ScheduleClaim } from '../domain/schedule-claim.types';
import { recoverStaleClaims, runScheduledTicks, type SchedulerDeps } from './run-scheduled-ticks';

/** In-memory fakes of the scheduler's ports, shared by several "replicas". */
function world(options: { noCredits?: boolean; identityDownOnce?: boolean; busy?: boolean } = {}) {
  let identityDown = options.identityDownOnce ?? false;
  const workflows = new Map<string, Workflow>();
  const claims = new Map<string, ScheduleClaim>();
  const executions = new Map<string, Execution>();
  const deps = {
    workflows: {
      async due(now: Date) {
        return [...workflows.values()].filter((w) => w.nextRunAt && w.nextRunAt <= now).map((w) => ({ ...w }));
      },
      async advance(moves: Array<{ id: string; from: Date; to: Date | null }>) {
        for (const m of moves) {
          const w = workflows.get(m.id);
          if (w?.nextRunAt?.getTime() === m.from.getTime()) w.nextRunAt = m.to;
        }
      },
      async statuses(ids: string[]) {
        return new Map(ids.filter((id) => workflows.has(id)).map((id) => [id, workflows.get(id)!.status]));
      },
      async get(_tenant: string, id: string) {
        return workflows.get(id);
      },
    },
    claims: {
      async claim(list: ScheduleClaim[]) {
        return list.map((c) => (claims.has(c.id) ? false : (claims.set(c.id, { ...c }), true)));
      },
      async settle(ids: string[], state: ScheduleClaim['state'], error?: string) {
        for (const id of ids) Object.assign(claims.get(id)!, { state, error });
      },
      async takeOverStale(owner: string, staleBefore: Date, now: Date) {
        const stale = [...claims.values()].find((c) => c.state === 'starting' && c.claimedAt < staleBefore);
        if (!stale) return undefined;
        Object.assign(stale, { owner, claimedAt: now });
        return { ...stale };
      },
    },
    executions: {
      async existing(ids: string[]) {
        return new Set(ids.filter((id) => executions.has(id)));
      },
      markCredited: async () => undefined,
    },
    engine: {
      /** With `busy`, the tenant is at its bound on executions in flight. */
      async submit(execution: Execution, submitOptions: { whenBusy?: string } = {}) {
        if (executions.has(execution.id)) throw Object.assign(new Error('duplicate'), { code: 11000 });
        if (options.busy && submitOptions.whenBusy !== 'queue') throw new Error('refused: busy');
        const stored: Execution = options.busy ? { ...execution, status: 'queued' } : execution;
        executions.set(execution.id, stored);
        return stored;
      },
    },
    credits: {
      async reserveRun() {
        if (options.noCredits) throw new InsufficientCreditsError();
        if (identityDown) {
          identityDown = false;
          throw new DomainError('service_unavailable', 'The service did not answer in time; please retry');
        }
      },
      settleRun: async () => undefined,
      releaseRun: async () => undefined,
    },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    settings: { maxExecutionDurationMs: 60_000, retentionDays: 30 },
  } as unknown as SchedulerDeps;
  const add = (id: string, cron: string, next: Date, status: Workflow['status'] = 'active') =>
    workflows.set(id, {
      id,
      tenantId: 'ten_1',
      hookId: 'hk_x',
      name: id,
      description: '',
      status,
      version: 1,
      nodes: [{ id: 'tick', type: 'schedule', config: { cron, input: { from: id } } }],
      edges: [],
      nextRunAt: next,
      createdAt: next,
      updatedAt: next,
    });
  return { deps, workflows, claims, executions, add };
}

const at = (iso: string) => new Date(iso);

describe('runScheduledTicks', () => {
  it('starts each tick once when two replicas poll together, with the node input and trigger schedule', async () => {
    const w = world();
    w.add('wf_a', '*/2 * * * * *', at('2026-01-01T00:00:02Z'));
    w.add('wf_b', '*/2 * * * * *', at('2026-01-01T00:00:02Z'));
    for (const second of [2, 3, 4, 5, 6]) {
      const now = at(`2026-01-01T00:00:0${second}.100Z`);
      await Promise.all([runScheduledTicks(w.deps, 'r1', now, 100), runScheduledTicks(w.deps, 'r2', now, 100)]);
    }
    const runs = [...w.executions.values()];
    expect(runs).toHaveLength(6);
    expect(new Set([...w.claims.values()].map((c) => c.executionId)).size).toBe(6);
    expect(runs.every((r) => r.trigger === 'schedule' && r.input.from === r.workflowId)).toBe(true);
    expect(w.workflows.get('wf_a')!.nextRunAt).toEqual(at('2026-01-01T00:00:08Z'));
  });

  it("queues a tick's run while the tenant has its executions in flight: the tick is not lost", async () => {
    const w = world({ busy: true });
    w.add('wf_a', '*/2 * * * * *', at('2026-01-01T00:00:02Z'));
    await runScheduledTicks(w.deps, 'r1', at('2026-01-01T00:00:02.100Z'), 100);
    expect([...w.executions.values()].map((e) => e.status)).toEqual(['queued']);
    expect([...w.claims.values()].map((c) => c.state)).toEqual(['started']);
  });

  it('cancels a claimed tick when the workflow was paused before the run started', async () => {
    const w = world();
    w.add('wf_a', '*/2 * * * * *', at('2026-01-01T00:00:02Z'));
    const statuses = w.deps.workflows.statuses.bind(w.deps.workflows);
    w.deps.workflows.statuses = async (ids) => {
      w.workflows.get('wf_a')!.status = 'paused';
      return statuses(ids);
    };
    const round = await runScheduledTicks(w.deps, 'r1', at('2026-01-01T00:00:02.100Z'), 100);
    expect(round.started).toBe(0);
    expect([...w.claims.values()].map((c) => c.state)).toEqual(['cancelled']);
    expect(w.executions.size).toBe(0);
  });

  it('records a failed claim for a tenant without credits and keeps the schedule going', async () => {
    const w = world({ noCredits: true });
    w.add('wf_a', '*/2 * * * * *', at('2026-01-01T00:00:02Z'));
    await runScheduledTicks(w.deps, 'r1', at('2026-01-01T00:00:02.100Z'), 100);
    expect([...w.claims.values()]).toEqual([
      expect.objectContaining({ state: 'failed', error: 'insufficient_credits' }),
    ]);
    expect(w.workflows.get('wf_a')!.nextRunAt).toEqual(at('2026-01-01T00:00:04Z'));
  });

  it('clears next_run_at of a due workflow that is no longer active or scheduled', async () => {
    const w = world();
    w.add('wf_a', '*/2 * * * * *', at('2026-01-01T00:00:02Z'), 'paused');
    await runScheduledTicks(w.deps, 'r1', at('2026-01-01T00:00:02.100Z'), 100);
    expect(w.workflows.get('wf_a')!.nextRunAt).toBeNull();
    expect(w.claims.size).toBe(0);
  });

  it('recovers a claim left starting by a dead replica without running it twice', async () => {
    const w = world();
    w.add('wf_a', '0 0 1 1 *', at('2027-01-01T00:00:00Z'));
    const claim = (id: string, execution: string): ScheduleClaim => ({
      id,
      tenantId: 'ten_1',
      workflowId: 'wf_a',
      tickAt: at('2026-01-01T00:00:00Z'),
      executionId: execution,
      state: 'starting',
      owner: 'dead',
      claimedAt: at('2026-01-01T00:00:00Z'),
      expiresAt: at('2026-01-02T00:00:00Z'),
    });
    await w.deps.claims.claim([claim('c1', 'exe_1'), claim('c2', 'exe_1')]);
    expect(await recoverStaleClaims(w.deps, 'r1', at('2026-01-01T00:01:00Z'), 10_000)).toBe(2);
    expect([...w.executions.keys()]).toEqual(['exe_1']);
    expect([...w.claims.values()].map((c) => c.state)).toEqual(['started', 'started']);
  });

  it('leaves a tick whose run could not start yet (identity timed out) to recovery, which starts it', async () => {
    const w = world({ identityDownOnce: true });
    w.add('wf_a', '*/2 * * * * *', at('2026-01-01T00:00:02Z'));
    await runScheduledTicks(w.deps, 'r1', at('2026-01-01T00:00:02.100Z'), 100);
    expect([...w.claims.values()].map((c) => c.state)).toEqual(['starting']);
    expect(w.executions.size).toBe(0);
    expect(await recoverStaleClaims(w.deps, 'r2', at('2026-01-01T00:00:20Z'), 10_000)).toBe(1);
    expect([...w.claims.values()].map((c) => c.state)).toEqual(['started']);
    expect(w.executions.size).toBe(1);
  });
});
