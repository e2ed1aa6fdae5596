import { InsufficientCreditsError, NotFoundError } from '@agentplatform/service-kit';
import type { ChainHead, LedgerEntry, Movement } from '../domain/credit-chain.js';
import { InMemoryCredits } from '../testing/in-memory.js';
import { ChainedLedger } from './credit-ledger.js';

/**
 * The ledger collection as the writer sees it (the in-memory store's rules: unique ids and unique
 * (tenant, key), ordered inserts that stop at the first duplicate), with a yield before each
 * answer so writers interleave.
 */
class FakeLedger extends InMemoryCredits {
  /** Entries read by key (each call), for the reads a writer can spare. */
  keyReads = 0;
  readonly closed: string[] = [];
  constructor(accounts: Map<string, number>) {
    super();
    for (const [tenantId, balance] of accounts) this.accounts.set(tenantId, balance);
  }

  private tick = () => new Promise((resolve) => setImmediate(resolve));

  override async head(tenantId: string): Promise<ChainHead | undefined> {
    await this.tick();
    return super.head(tenantId);
  }

  override async findByKeys(tenantId: string, keys: string[]): Promise<LedgerEntry[]> {
    await this.tick();
    this.keyReads++;
    return super.findByKeys(tenantId, keys);
  }

  override async closeHolds(
    tenantId: string,
    holds: ReadonlyArray<Pick<LedgerEntry, 'id' | 'idempotencyKey'>>,
  ): Promise<void> {
    await this.tick();
    this.closed.push(
      ...holds.filter((h) => this.entries.some((e) => e.id === h.id && e.tenantId === tenantId)).map((h) => h.id),
    );
    await super.closeHolds(tenantId, holds);
  }

  override async append(entries: LedgerEntry[]): Promise<{ stored: number; conflict: boolean }> {
    await this.tick();
    return super.append(entries);
  }
}

function charge(key: string, amount: number): Movement {
  return { key, type: 'charge', amount: -amount, description: '', whenShort: 'refuse' };
}

function purchase(key: string, amount: number): Movement {
  return { key, type: 'purchase', amount, description: '', whenShort: 'refuse' };
}

function reserve(key: string, amount: number): Movement {
  return { key, type: 'reserve', amount: -amount, description: '', whenShort: 'refuse' };
}

describe('ChainedLedger', () => {
  it('keeps the chain exact with two replicas writing the same tenant and retrying the same keys', async () => {
    const ledger = new FakeLedger(new Map([['ten_1', 10]]));
    const replicas = [1, 2].map(() => new ChainedLedger(ledger));
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
    const writer = new ChainedLedger(ledger);
    const answers = await Promise.all(
      [1, 2, 3].map((i) => writer.write('ten_1', charge(`c${i}`, 1)).catch((e: unknown) => e)),
    );
    expect(answers.filter((a) => a instanceof InsufficientCreditsError)).toHaveLength(2);
    await expect(writer.write('ten_missing', charge('x', 1))).rejects.toBeInstanceOf(NotFoundError);
  });

  it('does not refuse on a remembered balance another replica has since raised', async () => {
    const ledger = new FakeLedger(new Map([['ten_1', 1]]));
    const [a, b] = [1, 2].map(() => new ChainedLedger(ledger));
    await a.write('ten_1', charge('c1', 1));
    await b.write('ten_1', purchase('p1', 5));
    await expect(a.write('ten_1', charge('c2', 2))).resolves.toMatchObject({ balanceAfter: 3 });
  });

  it('answers a retried key with its first entry, even when the balance could no longer cover it', async () => {
    const ledger = new FakeLedger(new Map([['ten_1', 3]]));
    const writer = new ChainedLedger(ledger);
    const first = await writer.write('ten_1', reserve('r1', 3));
    // The chain end is remembered now and the balance is 0: the retry must not be refused.
    await expect(writer.write('ten_1', reserve('r1', 3))).resolves.toEqual(first);
    await writer.write('ten_1', purchase('p1', 2));
    await expect(writer.write('ten_1', purchase('p1', 2))).resolves.toMatchObject({ seq: 2, balanceAfter: 2 });
    expect(ledger.entries.map((e) => e.idempotencyKey)).toEqual(['r1', 'p1']);
  });

  it('reads keys only when it has no chain end of its own or lost a link', async () => {
    const ledger = new FakeLedger(new Map([['ten_1', 100]]));
    const [a, b] = [1, 2].map(() => new ChainedLedger(ledger));
    await a.write('ten_1', charge('c1', 1));
    expect(ledger.keyReads).toBe(1);
    for (let i = 2; i <= 5; i++) await a.write('ten_1', charge(`c${i}`, 1));
    expect(ledger.keyReads).toBe(1);
    // Another replica takes the next link: a's insert conflicts, and a reads before it retries.
    await b.write('ten_1', charge('b1', 1));
    await expect(a.write('ten_1', charge('c6', 1))).resolves.toMatchObject({ seq: 7, balanceAfter: 93 });
    expect(ledger.entries).toHaveLength(7);
  });

  it('finds a reservation it wrote without reading it, and reads it again once closed', async () => {
    const ledger = new FakeLedger(new Map([['ten_1', 10]]));
    const writer = new ChainedLedger(ledger);
    const hold = await writer.write('ten_1', reserve('chat:1', 4));
    const reads = ledger.keyReads;
    await expect(writer.findHold('ten_1', 'chat:1')).resolves.toEqual(hold);
    expect(ledger.keyReads).toBe(reads);
    await expect(writer.findHold('ten_2', 'chat:1')).resolves.toBeUndefined();
    await writer.closeHold(hold);
    expect(ledger.closed).toEqual([hold.id]);
    await expect(writer.findHold('ten_1', 'chat:1')).resolves.toEqual(hold);
    expect(ledger.keyReads).toBe(reads + 2);
    // Another replica knows nothing of it and reads it from the ledger.
    const other = new ChainedLedger(ledger);
    await expect(other.findHold('ten_1', 'chat:1')).resolves.toEqual(hold);
  });

  it('finds expired reservations from their due entries only, and tidies entries that need no release', async () => {
    const ledger = new FakeLedger(new Map([['ten_1', 10]]));
    const writer = new ChainedLedger(ledger);
    const base = Date.now();
    const at = (ms: number) => new Date(base + ms);
    const hold = (key: string, lifetimeMs: number): Movement => ({ ...reserve(key, 1), holdMs: lifetimeMs });
    const open = await writer.write('ten_1', hold('open', 100));
    const closed = await writer.write('ten_1', hold('closed', 100));
    await writer.closeHold(closed);
    const retried = await writer.write('ten_1', hold('retried', 900));
    // Left by writes that lost their link: an entry due early, and one whose reservation never came.
    ledger.due.set('ten_1/retried', { tenantId: 'ten_1', key: 'retried', dueAt: at(0) });
    await ledger.addDue([{ tenantId: 'ten_1', key: 'ghost', dueAt: at(0) }]);
    expect([...ledger.due.keys()].sort()).toEqual(['ten_1/ghost', 'ten_1/open', 'ten_1/retried']);

    await expect(writer.expiredHolds(at(500), 10)).resolves.toEqual([open]);
    // The ghost is gone, the early one waits for its reservation's expiry, the open one its close.
    expect([...ledger.due.keys()].sort()).toEqual(['ten_1/open', 'ten_1/retried']);
    await writer.closeHold(open);
    await expect(writer.expiredHolds(at(1_000), 10)).resolves.toEqual([retried]);
    expect(ledger.due.get('ten_1/retried')?.dueAt).toEqual(retried.holdExpiresAt);
  });
});
