import type { ClientSession, Connection, Model } from 'mongoose';
import { isDuplicateKeyError } from '@agentplatform/service-kit';
import type { ChainHead, LedgerEntry } from '../domain/credit-chain.js';
import {
  creditAccountSchema,
  creditEntrySchema,
  type CreditAccountRecord,
  type CreditEntryRecord,
} from './credit.schema.js';

export type { ChainHead, LedgerEntry, LedgerEntryType } from '../domain/credit-chain.js';

function toEntry(record: CreditEntryRecord): LedgerEntry {
  return {
    id: record._id,
    tenantId: record.tenant_id,
    ...(record.seq === undefined || record.seq === null ? {} : { seq: record.seq }),
    type: record.type,
    amount: record.amount,
    balanceAfter: record.balance_after,
    idempotencyKey: record.idempotency_key,
    description: record.description,
    createdAt: record.created_at,
    ...(record.hold_expires_at ? { holdExpiresAt: record.hold_expires_at } : {}),
  };
}

function toRecord(entry: LedgerEntry): CreditEntryRecord {
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

/** Credit accounts and the ledger; every query names its tenant (the expiry sweep names its entries). */
export class CreditRepository {
  private readonly accounts: Model<CreditAccountRecord>;
  private readonly entries: Model<CreditEntryRecord>;

  constructor(connection: Connection) {
    this.accounts = connection.model<CreditAccountRecord>('CreditAccount', creditAccountSchema);
    this.entries = connection.model<CreditEntryRecord>('CreditEntry', creditEntrySchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.accounts.init(), this.entries.init()]);
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
      this.entries.collection.findOne(
        { tenant_id: tenantId, seq: { $gte: 1 } },
        { sort: { seq: -1 }, projection: { seq: 1, balance_after: 1 } },
      ),
      this.accounts.collection.findOne({ _id: tenantId as never }, { projection: { balance: 1 } }),
    ]);
    if (!account) return undefined;
    if (last) return { seq: last.seq as number, balance: last.balance_after as number };
    return { seq: 0, balance: account.balance as number };
  }

  /**
   * Appends entries to the chain in one ordered insert. Answers how many were stored before a
   * duplicate key stopped the rest (`conflict`: another writer took a link or an idempotency key
   * first); other errors are thrown.
   */
  async append(entries: LedgerEntry[]): Promise<{ stored: number; conflict: boolean }> {
    if (entries.length === 0) return { stored: 0, conflict: false };
    try {
      await this.entries.collection.insertMany(entries.map(toRecord) as never[], { ordered: true });
      return { stored: entries.length, conflict: false };
    } catch (error) {
      const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
      const first = (Array.isArray(writeErrors) ? writeErrors[0] : writeErrors) as
        { index?: number; code?: number } | undefined;
      if (!isDuplicateKeyError(error) && first?.code !== 11000) throw error;
      // Ordered: everything before the first failed document was stored, nothing after it.
      return { stored: typeof first?.index === 'number' ? first.index : 0, conflict: true };
    }
  }

  /** Writes one entry outside the chain's writer (the welcome grant, inside registration). */
  async insertEntry(entry: LedgerEntry, session?: ClientSession): Promise<void> {
    await this.entries.create([toRecord(entry)], { session });
  }

  async findByKeys(tenantId: string, idempotencyKeys: string[]): Promise<LedgerEntry[]> {
    if (idempotencyKeys.length === 0) return [];
    const records = await this.entries.collection
      // One key (most reads) is an equality: a server's compound-index lookup needs no `$in`.
      .find({
        tenant_id: tenantId,
        idempotency_key: idempotencyKeys.length === 1 ? idempotencyKeys[0] : { $in: idempotencyKeys },
      })
      .toArray();
    return records.map((r) => toEntry(r as unknown as CreditEntryRecord));
  }

  async findByKey(tenantId: string, idempotencyKey: string): Promise<LedgerEntry | undefined> {
    return (await this.findByKeys(tenantId, [idempotencyKey]))[0];
  }

  /** Marks a tenant's reservations closed: the expiry sweep no longer looks at them. */
  async closeHolds(tenantId: string, entryIds: string[]): Promise<void> {
    if (entryIds.length === 0) return;
    // A chain entry's id names its tenant (`led_<tenant>_<seq>`): the ids alone are the filter,
    // which every MongoDB-compatible server serves from the `_id` index. Ids of another tenant
    // are dropped here, never sent.
    const ids = entryIds.filter((id) => id.startsWith(`led_${tenantId}_`));
    if (ids.length === 0) return;
    await this.entries.collection.updateMany({ _id: { $in: ids as never[] } }, { $unset: { hold_expires_at: '' } });
  }

  /** Open reservations whose expiry has passed, oldest first. */
  async expiredHolds(now: Date, limit: number): Promise<LedgerEntry[]> {
    const records = await this.entries
      .find({ hold_expires_at: { $lte: now } })
      .sort({ hold_expires_at: 1 })
      .limit(limit)
      .lean<CreditEntryRecord[]>();
    return records.map(toEntry);
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
    const records = await this.entries
      .find({ tenant_id: tenantId })
      .sort({ seq: -1, created_at: -1, _id: -1 })
      .limit(limit)
      .lean<CreditEntryRecord[]>();
    return records.map(toEntry);
  }
}
