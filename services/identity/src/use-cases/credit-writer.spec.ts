import { InsufficientCreditsError, NotFoundError } from '@agentplatform/service-kit';
import type { ChainHead, LedgerEntry, Movement } from '../domain/credit-chain.js';
import type { CreditRepository } from '../persistence/credit.repository.js';
import { CreditWriter } from './credit-writer.js';

/**
 * The ledger collection as the writer sees it: unique ids and unique (tenant, key), ordered
 * inserts that stop at the first duplicate, and a yield before each answer so writers interleave.
 */
class FakeLedger {
  readonly entries: LedgerEntry[] = [];
  constructor(private readonly accounts: Map<string, number>) {}

  private tick = () => new Promise((resolve) => setImmediate(resolve));

  async head(tenantId: string): Promise<ChainHead | undefined> {
    await this.tick();
    if (!this.accounts.has(tenantId)) return undefined;
    const chained = this.entries.filter((e) => e.tenantId === tenantId && e.seq !== undefined);
    const last = chained.sort((a, b) => b.seq! - a.seq!)[0];
    return last ? { seq: last.seq!, balance: last.balanceAfter } : { seq: 0, balance: this.accounts.get(tenantId)! };
  }

  async findByKeys(tenantId: string, keys: string[]): Promise<LedgerEntry[]> {
    await this.tick();
    return this.entries.filter((e) => e.tenantId === tenantId && keys.includes(e.idempotencyKey));
  }

  async append(entries: LedgerEntry[]): Promise<{ stored: number; conflict: boolean }> {
    await this.tick();
    let stored = 0;
    for (const entry of entries) {
      const taken = this.entries.some(
        (e) => e.id === entry.id || (e.tenantId === entry.tenantId && e.idempotencyKey === entry.idempotencyKey),
      );
      if (taken) return { stored, conflict: true };
      this.entries.push(entry);
      stored++;
    }
    return { stored, conflict: false };
  }
}

function charge(key: string, amount: number): Movement {
  return { key, type: 'charge', amount: -amount, description: '', whenShort: 'refuse' };
}

function purchase(key: string, amount: number): Movement {
  return { key, type: 'purchase', amount, description: '', whenShort: 'refuse' };
}

describe('CreditWriter', () => {
  it('keeps the chain exact with two replicas writing the same tenant and retrying the same keys', async () => {
    const ledger = new FakeLedger(new Map([['ten_1', 10]]));
    const replicas = [1, 2].map(() => new CreditWriter(ledger as unknown as CreditRepository));
    const work: Array<Promise<unknown>> = [];
    for (let i = 0; i < 60; i++) {
      const movement = i % 10 === 0 ? purchase(`p${i}`, 3) : charge(`c${i}`, 1);
      // Every movement is sent to both replicas, as a retry after a timeout would be.
      for (const replica of replicas) work.push(replica.write('ten_1', movement).catch((e: unknown) => e));
    }
    const outcomes = await Promise.all(work);
    const entries = ledger.entries;
    expect(new Set(entries.map((e) => e.idempotencyKey)).size).toBe(entries.length);
    const seqs = entries.map((e) => e.seq!).sort((a, b) => a - b);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const byseq = [...entries].sort((a, b) => a.seq! - b.seq!);
    let balance = 10;
    for (const entry of byseq) {
      balance += entry.amount;
      expect(entry.balanceAfter).toBe(balance);
      expect(balance).toBeGreaterThanOrEqual(0);
    }
    // Both copies of a movement got the same answer.
    for (let i = 0; i < outcomes.length; i += 2) {
      const [a, b] = [outcomes[i], outcomes[i + 1]];
      if (a instanceof Error) expect(b).toBeInstanceOf(InsufficientCreditsError);
      else expect(b).toEqual(a);
    }
  });

  it('refuses what the balance cannot cover and answers not_found for a tenant without an account', async () => {
    const ledger = new FakeLedger(new Map([['ten_1', 1]]));
    const writer = new CreditWriter(ledger as unknown as CreditRepository);
    const answers = await Promise.all(
      [1, 2, 3].map((i) => writer.write('ten_1', charge(`c${i}`, 1)).catch((e: unknown) => e)),
    );
    expect(answers.filter((a) => a instanceof InsufficientCreditsError)).toHaveLength(2);
    await expect(writer.write('ten_missing', charge('x', 1))).rejects.toBeInstanceOf(NotFoundError);
  });

  it('does not refuse on a remembered balance another replica has since raised', async () => {
    const ledger = new FakeLedger(new Map([['ten_1', 1]]));
    const [a, b] = [1, 2].map(() => new CreditWriter(ledger as unknown as CreditRepository));
    await a.write('ten_1', charge('c1', 1));
    await b.write('ten_1', purchase('p1', 5));
    await expect(a.write('ten_1', charge('c2', 2))).resolves.toMatchObject({ balanceAfter: 3 });
  });
});
