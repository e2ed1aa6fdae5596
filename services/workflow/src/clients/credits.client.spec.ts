import {
  DomainError,
  InsufficientCreditsError,
  createLogger,
  type ReserveInput,
  type SettleInput,
} from '@agentplatform/service-kit';
import { InMemoryExecutions, newExecution } from '../testing/in-memory.js';
import { settlePendingRunCredits, settleRunCredit } from '../use-cases/settle-run-credits.js';
import { runCreditLedger, type RunCredits } from './credits.client.js';

/**
 * A fake of identity's batch credit calls with a balance per tenant: answers each item as
 * identity would (a reservation once per operation id, refused above the balance), and records
 * every call so a test sees how the runs were grouped.
 */
class FakeIdentity implements RunCredits {
  readonly balances = new Map<string, number>();
  readonly held = new Set<string>();
  readonly settled = new Set<string>();
  readonly reserveCalls: ReserveInput[][] = [];
  readonly settleCalls: SettleInput[][] = [];
  /** Settles of these operations fail (identity unavailable for them) this many more times. */
  readonly failSettles = new Map<string, number>();
  private gate?: Promise<void>;
  private open?: () => void;

  /** Holds every call until `release()`: the runs that arrive meanwhile queue behind it. */
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  releaseCalls(): void {
    this.open?.();
    this.gate = undefined;
  }

  async reserveMany(items: ReserveInput[]): Promise<Array<Error | undefined>> {
    this.reserveCalls.push(items);
    await this.gate;
    return items.map((item) => {
      if (this.held.has(item.operationId)) return undefined;
      const balance = this.balances.get(item.tenantId) ?? 0;
      if (balance < item.amount) return new InsufficientCreditsError();
      this.balances.set(item.tenantId, balance - item.amount);
      this.held.add(item.operationId);
      return undefined;
    });
  }

  async settleMany(items: SettleInput[]): Promise<Array<Error | undefined>> {
    this.settleCalls.push(items);
    await this.gate;
    return items.map((item) => {
      const failures = this.failSettles.get(item.operationId) ?? 0;
      if (failures > 0) {
        this.failSettles.set(item.operationId, failures - 1);
        return new DomainError('service_unavailable', 'identity is restarting');
      }
      this.settled.add(item.operationId);
      return undefined;
    });
  }

  async release(item: Parameters<RunCredits['release']>[0]): Promise<void> {
    this.held.delete(item.operationId);
  }
}

const logger = createLogger('workflow-test', 'silent');

describe('run credits, grouped per tenant', () => {
  it('sends the reserves that arrive while a call is in flight as one call, each answered for itself', async () => {
    const identity = new FakeIdentity();
    identity.balances.set('t1', 5);
    const ledger = runCreditLedger(identity);
    identity.hold();
    const first = ledger.reserveRun('t1', 'exe_0', 'wf_1');
    const rest = Array.from({ length: 7 }, (_, i) => ledger.reserveRun('t1', `exe_${i + 1}`, 'wf_1'));
    identity.releaseCalls();
    const answers = await Promise.allSettled([first, ...rest]);

    // The first run went out alone (no added latency), the other seven together.
    expect(identity.reserveCalls.map((call) => call.length)).toEqual([1, 7]);
    // Five credits: five runs reserved, the other three refused with 402, each on its own.
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(5);
    const refused = answers.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.reason).toBeInstanceOf(InsufficientCreditsError);
    expect(identity.balances.get('t1')).toBe(0);
  });

  it('never puts two tenants in one call, so one tenant never waits for another', async () => {
    const identity = new FakeIdentity();
    identity.balances.set('t1', 10);
    identity.balances.set('t2', 10);
    const ledger = runCreditLedger(identity);
    identity.hold();
    const runs = ['t1', 't2', 't1', 't2', 't1'].map((tenant, i) => ledger.reserveRun(tenant, `exe_${i}`, 'wf'));
    identity.releaseCalls();
    await Promise.all(runs);
    for (const call of identity.reserveCalls) expect(new Set(call.map((item) => item.tenantId)).size).toBe(1);
    expect(identity.balances.get('t1')).toBe(7);
    expect(identity.balances.get('t2')).toBe(8);
  });

  it('settles each run once; a run identity could not settle stays pending until a later pass', async () => {
    const identity = new FakeIdentity();
    identity.balances.set('t1', 10);
    const deps = { credits: runCreditLedger(identity), executions: new InMemoryExecutions(), logger };
    const ids = ['exe_a', 'exe_b', 'exe_c'];
    for (const id of ids) {
      await deps.credits.reserveRun('t1', id, 'wf');
      await deps.executions.insert(newExecution([], { id, tenantId: 't1', creditPending: true }));
    }
    identity.failSettles.set('run:exe_b', 1);
    const first = await Promise.all(ids.map((id) => settleRunCredit(deps, { tenantId: 't1', id })));
    expect(first).toEqual([true, false, true]);
    expect(await deps.executions.pendingCredits(10)).toEqual([{ id: 'exe_b', tenantId: 't1' }]);

    await expect(settlePendingRunCredits(deps)).resolves.toEqual({ settled: 1, failed: false });
    expect(await deps.executions.pendingCredits(10)).toEqual([]);
    expect(identity.settled).toEqual(new Set(ids.map((id) => `run:${id}`)));
    // exe_b was asked again after its failure; the others were not.
    const asked = identity.settleCalls.flat().map((item) => item.operationId);
    expect(asked.filter((op) => op === 'run:exe_b')).toHaveLength(2);
    expect(asked.filter((op) => op === 'run:exe_a')).toHaveLength(1);
  });
});
