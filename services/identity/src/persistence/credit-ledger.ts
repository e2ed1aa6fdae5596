import { LRUCache } from 'lru-cache';
import { GroupCommit, InsufficientCreditsError, NotFoundError } from '@agentplatform/service-kit';
import { planLinks, type ChainHead, type LedgerEntry, type Movement } from '../domain/credit-chain.js';
import type { CreditRepository, DueHold } from './credit.repository.js';

/** What the ledger needs of its storage (credit.repository.ts; testing/in-memory.ts in specs). */
export type LedgerStore = Pick<
  CreditRepository,
  | 'openAccount'
  | 'insertEntry'
  | 'head'
  | 'append'
  | 'findByKeys'
  | 'closeHolds'
  | 'addDue'
  | 'dueHolds'
  | 'moveDue'
  | 'dropDue'
  | 'disarmLowAlert'
  | 'armLowAlert'
  | 'recent'
>;

/** Rounds of re-reading the chain after losing links to other writers before giving up. */
const MAX_ROUNDS = 50;
/** Chain ends remembered, the least recently used forgotten first (each is re-read on first use). */
const MAX_HEADS = 10_000;
/** Open reservations remembered, the least recently used forgotten first (re-read on first use). */
const MAX_HOLDS = 10_000;

function holdKey(tenantId: string, key: string): string {
  return `${tenantId}\u0000${key}`;
}

/**
 * The tenants' credit ledgers (the use cases' `CreditLedger` port) over the ledger collection
 * (docs/credits.md). Each movement is one inserted entry, so it and the
 * balance it produces are one atomic write keyed by the operation's id. A tenant's movements are
 * written one batch at a time by this process (one ordered insert for all that arrived meanwhile,
 * each still its own entry); other replicas are kept out of a link by its unique id, and the loser
 * re-reads the chain and tries again. One per process: its batches and chain ends are shared.
 */
export class ChainedLedger {
  /** Chain ends this process wrote last; forgotten on any conflict, so never trusted blindly. */
  private readonly heads = new LRUCache<string, ChainHead>({ max: MAX_HEADS });
  /**
   * Reservations this process wrote or read, until this process closes them. A reservation's
   * entry never changes (only its expiry mark is removed on close), so a settle on this replica
   * needs no read of it; on another replica, or after a restart, it is read from the ledger.
   */
  private readonly holds = new LRUCache<string, LedgerEntry>({ max: MAX_HOLDS });
  private readonly batches = new GroupCommit<Movement, LedgerEntry>((tenantId, movements) =>
    this.flush(tenantId, movements),
  );
  private readonly closings = new GroupCommit<LedgerEntry, true>(async (tenantId, holds) => {
    await this.store.closeHolds(tenantId, [...new Map(holds.map((h) => [h.id, h])).values()]);
    return holds.map(() => true as const);
  });

  constructor(private readonly store: LedgerStore) {}

  openAccount: LedgerStore['openAccount'] = (...args) => this.store.openAccount(...args);
  insertEntry: LedgerStore['insertEntry'] = (...args) => this.store.insertEntry(...args);
  head: LedgerStore['head'] = (tenantId) => this.store.head(tenantId);
  recent: LedgerStore['recent'] = (tenantId, limit) => this.store.recent(tenantId, limit);
  disarmLowAlert = (tenantId: string): Promise<boolean> => this.store.disarmLowAlert(tenantId);
  armLowAlert = (tenantId: string): Promise<void> => this.store.armLowAlert(tenantId);

  /** The movement's entry: a new one, or the one an earlier movement with its key made. */
  write(tenantId: string, movement: Movement): Promise<LedgerEntry> {
    return this.batches.submit(tenantId, movement);
  }

  /** The reservation entry with this operation id, or undefined when there is none. */
  async findHold(tenantId: string, key: string): Promise<LedgerEntry | undefined> {
    const known = this.holds.get(holdKey(tenantId, key));
    if (known) return known;
    const [entry] = await this.store.findByKeys(tenantId, [key]);
    if (entry) this.remember(entry);
    return entry;
  }

  /**
   * Removes a closed reservation's expiry mark and due entry (the closing entry is what counts;
   * this spares the expiry sweep a look), one write each for the tenant's reservations closed
   * meanwhile.
   */
  async closeHold(hold: LedgerEntry): Promise<void> {
    this.holds.delete(holdKey(hold.tenantId, hold.idempotencyKey));
    await this.closings.submit(hold.tenantId, hold);
  }

  /**
   * Open reservations past their expiry, from the due entries (never a look through the ledger):
   * each due entry's reservation is read by its key. An entry whose reservation is closed or was
   * never written is dropped; one that came due before its reservation's expiry (a key reserved
   * again after a refusal) is moved to it.
   */
  async expiredHolds(now: Date, limit: number): Promise<LedgerEntry[]> {
    const due = await this.store.dueHolds(now, limit);
    const byTenant = new Map<string, DueHold[]>();
    for (const hold of due) byTenant.set(hold.tenantId, [...(byTenant.get(hold.tenantId) ?? []), hold]);
    const expired: LedgerEntry[] = [];
    for (const [tenantId, holds] of byTenant) {
      const entries = await this.store.findByKeys(
        tenantId,
        holds.map((h) => h.key),
      );
      const open = new Map(
        entries.filter((e) => e.type === 'reserve' && e.holdExpiresAt).map((e) => [e.idempotencyKey, e]),
      );
      const gone = holds.filter((h) => !open.has(h.key)).map((h) => h.key);
      await this.store.dropDue(tenantId, gone);
      for (const entry of open.values()) {
        if (entry.holdExpiresAt! <= now) expired.push(entry);
        else await this.store.moveDue({ tenantId, key: entry.idempotencyKey, dueAt: entry.holdExpiresAt! });
      }
    }
    return expired.sort((a, b) => a.holdExpiresAt!.getTime() - b.holdExpiresAt!.getTime());
  }

  private remember(entry: LedgerEntry): void {
    if (entry.type === 'reserve') this.holds.set(holdKey(entry.tenantId, entry.idempotencyKey), entry);
  }

  private async flush(tenantId: string, movements: Movement[]): Promise<Array<LedgerEntry | Error>> {
    const results = await this.link(tenantId, movements);
    for (const result of results) if (!(result instanceof Error)) this.remember(result);
    return results;
  }

  private async link(tenantId: string, movements: Movement[]): Promise<Array<LedgerEntry | Error>> {
    const results: Array<LedgerEntry | Error | undefined> = movements.map(() => undefined);
    let open = movements.map((_, i) => i);
    for (let round = 0; open.length > 0; round++) {
      if (round === MAX_ROUNDS) {
        for (const i of open) results[i] = new Error('credit ledger: too many conflicting writers');
        break;
      }
      // With a chain end of its own, the first round inserts straight away: a key already used
      // fails the insert on the unique (tenant, key) index, which is a conflict like a lost link,
      // and the next round reads the keys. Without one (and in every later round) it reads them
      // first. A refusal is only given after the keys were read (below).
      if (round > 0 || !this.heads.has(tenantId)) {
        const made = await this.store.findByKeys(tenantId, [...new Set(open.map((i) => movements[i]!.key))]);
        const byKey = new Map(made.map((entry) => [entry.idempotencyKey, entry]));
        open = open.filter((i) => {
          const entry = byKey.get(movements[i]!.key);
          if (entry) results[i] = entry;
          return !entry;
        });
        if (open.length === 0) break;
      }

      const cached = this.heads.get(tenantId);
      const head = cached ?? (await this.store.head(tenantId));
      if (!head) {
        for (const i of open) results[i] = new NotFoundError('Tenant');
        break;
      }
      const plan = planLinks(
        tenantId,
        head,
        open.map((i) => movements[i]!),
        new Date(),
      );
      if (cached && plan.outcomes.some((o) => 'refused' in o)) {
        // Refuse only on what the database says: another replica may have added credits.
        this.heads.delete(tenantId);
        round--;
        continue;
      }
      // Due entries before the reservations: the sweep can always find an open one.
      await this.store.addDue(
        plan.entries.flatMap((e) =>
          e.holdExpiresAt ? [{ tenantId, key: e.idempotencyKey, dueAt: e.holdExpiresAt }] : [],
        ),
      );
      const { stored, conflict } = await this.store.append(plan.entries).catch((error: unknown) => {
        this.heads.delete(tenantId);
        throw error;
      });
      const storedIds = new Set(plan.entries.slice(0, stored).map((e) => e.id));
      open = open.filter((i, at) => {
        const outcome = plan.outcomes[at]!;
        if ('refused' in outcome) {
          if (conflict) return true;
          results[i] = new InsufficientCreditsError();
          return false;
        }
        if (!storedIds.has(outcome.entry.id)) return true;
        results[i] = outcome.entry;
        return false;
      });
      if (conflict) this.heads.delete(tenantId);
      else this.heads.set(tenantId, plan.head);
    }
    return results.map((r) => r ?? new Error('credit ledger: movement left unwritten'));
  }
}
