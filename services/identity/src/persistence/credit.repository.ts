import type { ClientSession, Connection, Model } from 'mongoose';
import { documentsOf, isDuplicateKeyError, perOperationErrors } from '@agentplatform/service-kit';
import { chainEntryId, type ChainHead, type LedgerEntry } from '../domain/credit-chain.js';
import {
  creditAccountSchema,
  creditEntrySchema,
  creditHoldDueSchema,
  type CreditAccountDocument,
  type CreditEntryDocument,
  type CreditHoldDueDocument,
} from './credit.schema.js';

export type { ChainHead, LedgerEntry, LedgerEntryType } from '../domain/credit-chain.js';

/** Seqs looked up at once while narrowing down where a chain ends (`lastLink`). */
const PROBES = 64;

function toEntry(doc: CreditEntryDocument): LedgerEntry {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    ...(doc.seq === undefined || doc.seq === null ? {} : { seq: doc.seq }),
    type: doc.type,
    amount: doc.amount,
    balanceAfter: doc.balance_after,
    idempotencyKey: doc.idempotency_key,
    description: doc.description,
    createdAt: doc.created_at,
    ...(doc.hold_expires_at ? { holdExpiresAt: doc.hold_expires_at } : {}),
  };
}

function fromEntry(entry: LedgerEntry): CreditEntryDocument {
  return {
    _id: entry.id,
    tenant_id: entry.tenantId,
    ...(entry.seq === undefined ? {} : { seq: entry.seq }),
    type: entry.type,
    amount: entry.amount,
    balance_after: entry.balanceAfter,
    idempotency_key: entry.idempotencyKey,
    description: entry.description,
    created_at: entry.createdAt,
    ...(entry.holdExpiresAt ? { hold_expires_at: entry.holdExpiresAt } : {}),
  };
}

/** A reservation's due entry id: one per (tenant, operation id). */
function dueId(tenantId: string, key: string): string {
  return `${tenantId}/${key}`;
}

/** A reservation the expiry sweep should look at: which, and from when. */
export interface DueHold {
  tenantId: string;
  key: string;
  dueAt: Date;
}

/** Credit accounts and the ledger; every query names its tenant (the expiry sweep reads its due entries, then the ledger by key). */
export class CreditRepository {
  private readonly accounts: Model<CreditAccountDocument>;
  private readonly entries: Model<CreditEntryDocument>;
  private readonly due: Model<CreditHoldDueDocument>;

  constructor(connection: Connection) {
    this.accounts = connection.model<CreditAccountDocument>('CreditAccount', creditAccountSchema);
    this.entries = connection.model<CreditEntryDocument>('CreditEntry', creditEntrySchema);
    this.due = connection.model<CreditHoldDueDocument>('CreditHoldDue', creditHoldDueSchema);
  }

  /** Opens a tenant's account; its first ledger entry (the welcome grant) is `seq` 1. */
  async openAccount(tenantId: string, balance: number, armed: boolean, session?: ClientSession): Promise<void> {
    await this.accounts.create([{ _id: tenantId, balance, low_alert_armed: armed, updated_at: new Date() }], {
      session,
    });
  }

  /**
   * The end of the tenant's chain, or undefined when the tenant has no account. An account
   * without chained entries (opened before the chain, or whose grant was never written) starts
   * the chain at seq 0 from the balance it stored.
   */
  async head(tenantId: string): Promise<ChainHead | undefined> {
    const [last, account] = await Promise.all([
      this.lastLink(tenantId),
      documentsOf<CreditAccountDocument>(this.accounts).findOne({ _id: tenantId }, { projection: { balance: 1 } }),
    ]);
    if (!account) return undefined;
    if (last) return { seq: last.seq, balance: last.balance_after };
    return { seq: 0, balance: account.balance };
  }

  /**
   * The chain's last entry, found by `_id` alone. A tenant's chain is `led_<tenant>_1` to `_N`
   * with no gap (each link is won by one writer, an ordered insert stops at its first failure, and
   * entries are never deleted), so N is narrowed down by rounds of `$in` look-ups of spaced seqs,
   * which every MongoDB-compatible server answers from the `_id` index: a few hundred look-ups in
   * five rounds for a million entries. A sort by `seq` scans the whole ledger on the local
   * stand-in (320 ms of its CPU at 50,000 entries, docs/queries.md).
   */
  private async lastLink(tenantId: string): Promise<{ seq: number; balance_after: number } | undefined> {
    /** The largest of these seqs in the chain (all those up to the chain's end are). */
    const largest = async (seqs: number[]) => {
      const docs = await documentsOf<CreditEntryDocument>(this.entries)
        .find(
          { _id: { $in: seqs.map((seq) => chainEntryId(tenantId, seq)) } },
          { projection: { seq: 1, balance_after: 1 } },
        )
        .toArray();
      const links = docs.flatMap((d) =>
        typeof d.seq === 'number' ? [{ seq: d.seq, balance_after: d.balance_after }] : [],
      );
      return links.sort((a, b) => b.seq - a.seq)[0];
    };
    // Seqs 1, 2, 4, 8...: the largest found is in the chain, twice it is not.
    let last = await largest(Array.from({ length: 48 }, (_, i) => 2 ** i));
    if (!last) return undefined;
    let beyond = 2 * last.seq;
    // Then up to PROBES seqs spread evenly between the two, until none lies between.
    while (beyond - last.seq > 1) {
      const from = last.seq;
      const count = Math.min(PROBES, beyond - from - 1);
      const seqs = Array.from({ length: count }, (_, i) => from + Math.ceil(((i + 1) * (beyond - from)) / (count + 1)));
      last = (await largest(seqs)) ?? last;
      beyond = seqs.find((seq) => seq > last!.seq) ?? beyond;
    }
    return last;
  }

  /**
   * Appends entries to the chain in one ordered insert. Answers how many were stored before a
   * duplicate key stopped the rest (`conflict`: another writer took a link or an idempotency key
   * first); other errors are thrown.
   */
  async append(entries: LedgerEntry[]): Promise<{ stored: number; conflict: boolean }> {
    if (entries.length === 0) return { stored: 0, conflict: false };
    try {
      await documentsOf<CreditEntryDocument>(this.entries).insertMany(entries.map(fromEntry), { ordered: true });
      return { stored: entries.length, conflict: false };
    } catch (error) {
      // Rethrows an error that is not the insert's per-document report (a lost connection).
      const perEntry = perOperationErrors(error, entries.length);
      const stored = perEntry.findIndex((e) => e !== undefined);
      if (stored < 0 || !isDuplicateKeyError(perEntry[stored])) throw error;
      // Ordered: everything before the first failed document was stored, nothing after it.
      return { stored, conflict: true };
    }
  }

  /** Writes one entry outside the chain's writer (the welcome grant, inside registration). */
  async insertEntry(entry: LedgerEntry, session?: ClientSession): Promise<void> {
    await this.entries.create([fromEntry(entry)], { session });
  }

  /**
   * The tenant's entries of these keys: one equality look-up per key, each exactly the keys of the
   * unique `{tenant_id, idempotency_key}` index, which the local stand-in serves (it serves no `$in`
   * from a compound index and scanned the whole ledger, 280 ms of its CPU at 50,000 entries).
   */
  async findByKeys(tenantId: string, idempotencyKeys: string[]): Promise<LedgerEntry[]> {
    const docs = await Promise.all(
      [...new Set(idempotencyKeys)].map((key) =>
        documentsOf<CreditEntryDocument>(this.entries).findOne({ tenant_id: tenantId, idempotency_key: key }),
      ),
    );
    return docs.flatMap((doc) => (doc ? [toEntry(doc)] : []));
  }

  /**
   * Marks a tenant's reservations closed: their expiry mark goes and so do their due entries, so
   * the sweep no longer looks at them.
   */
  async closeHolds(tenantId: string, holds: ReadonlyArray<Pick<LedgerEntry, 'id' | 'idempotencyKey'>>): Promise<void> {
    // A chain entry's id names its tenant (`led_<tenant>_<seq>`): the ids alone are the filter,
    // which every MongoDB-compatible server serves from the `_id` index. Ids of another tenant
    // are dropped here, never sent.
    const ids = holds.map((h) => h.id).filter((id) => id.startsWith(`led_${tenantId}_`));
    if (ids.length === 0) return;
    await documentsOf<CreditEntryDocument>(this.entries).updateMany(
      { _id: { $in: ids } },
      { $unset: { hold_expires_at: '' } },
    );
    await this.dropDue(
      tenantId,
      holds.map((h) => h.idempotencyKey),
    );
  }

  /**
   * Due entries for reservations about to be written, before their entries are (a crash between
   * the two leaves an entry the sweep drops, never a reservation it cannot find). A key that has
   * one keeps the later due time.
   */
  async addDue(holds: readonly DueHold[]): Promise<void> {
    if (holds.length === 0) return;
    await documentsOf<CreditHoldDueDocument>(this.due).bulkWrite(
      holds.map((h) => ({
        updateOne: {
          filter: { _id: dueId(h.tenantId, h.key) },
          update: { $setOnInsert: { tenant_id: h.tenantId, idempotency_key: h.key }, $max: { due_at: h.dueAt } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  /** Reservations due by `now`, the longest due first: a page of the (small) due collection. */
  async dueHolds(now: Date, limit: number): Promise<DueHold[]> {
    const docs = await this.due
      .find({ due_at: { $lte: now } })
      .sort({ due_at: 1, _id: 1 })
      .limit(limit)
      .lean();
    return docs.map((d) => ({ tenantId: d.tenant_id, key: d.idempotency_key, dueAt: d.due_at }));
  }

  /** Moves a reservation's due entry to its real expiry (an entry left early by a retried key). */
  async moveDue(hold: DueHold): Promise<void> {
    await this.due.updateOne({ _id: dueId(hold.tenantId, hold.key) }, { $set: { due_at: hold.dueAt } });
  }

  /** Drops the due entries of a tenant's reservation keys. */
  async dropDue(tenantId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.due.deleteMany({ _id: { $in: keys.map((key) => dueId(tenantId, key)) } });
  }

  /**
   * Gives every open reservation its due entry (reservations opened by releases before the due
   * entries). One look at the expiry marks at start-up, by their index; answers how many it added.
   */
  async addMissingDue(): Promise<number> {
    const open = await this.entries
      .find({ hold_expires_at: { $exists: true } }, { tenant_id: 1, idempotency_key: 1, hold_expires_at: 1 })
      .lean();
    await this.addDue(open.map((e) => ({ tenantId: e.tenant_id, key: e.idempotency_key, dueAt: e.hold_expires_at! })));
    return open.length;
  }

  /** Disarms the low-credit alert; true for the one caller that disarmed it. */
  async disarmLowAlert(tenantId: string, session?: ClientSession): Promise<boolean> {
    const result = await this.accounts.updateOne(
      { _id: tenantId, low_alert_armed: true },
      { $set: { low_alert_armed: false } },
      { session },
    );
    return result.modifiedCount === 1;
  }

  async armLowAlert(tenantId: string, session?: ClientSession): Promise<void> {
    await this.accounts.updateOne(
      { _id: tenantId, low_alert_armed: false },
      { $set: { low_alert_armed: true } },
      { session },
    );
  }

  /** The newest entries first: by place in the chain, then (entries from before it) by time. */
  async recent(tenantId: string, limit: number): Promise<LedgerEntry[]> {
    const docs = await this.entries
      .find({ tenant_id: tenantId })
      .sort({ seq: -1, created_at: -1, _id: -1 })
      .limit(limit)
      .lean<CreditEntryDocument[]>();
    return docs.map(toEntry);
  }
}
