import type { ClientSession, Connection, Model } from 'mongoose';
import {
  creditAccountSchema,
  creditEntrySchema,
  type CreditAccountRecord,
  type CreditEntryRecord,
  type LedgerEntryType,
} from './credit.schema.js';

export type { LedgerEntryType } from './credit.schema.js';

export interface LedgerEntry {
  id: string;
  tenantId: string;
  type: LedgerEntryType;
  amount: number;
  balanceAfter: number;
  idempotencyKey: string;
  description: string;
  createdAt: Date;
}

function toEntry(record: CreditEntryRecord): LedgerEntry {
  return {
    id: record._id,
    tenantId: record.tenant_id,
    type: record.type,
    amount: record.amount,
    balanceAfter: record.balance_after,
    idempotencyKey: record.idempotency_key,
    description: record.description,
    createdAt: record.created_at,
  };
}

/** Balances and the ledger; every query names its tenant. */
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

  async openAccount(tenantId: string, balance: number, armed: boolean, session?: ClientSession): Promise<void> {
    await this.accounts.create([{ _id: tenantId, balance, low_alert_armed: armed, updated_at: new Date() }], {
      session,
    });
  }

  async balance(tenantId: string): Promise<number | undefined> {
    const record = await this.accounts.findById(tenantId, { balance: 1 }).lean<Pick<CreditAccountRecord, 'balance'>>();
    return record?.balance;
  }

  /**
   * Adds `delta` (negative for a charge) in one atomic update; with `floor` the update only
   * happens while the balance stays at or above it. Returns the new balance, or undefined when
   * the account is missing or the floor would be crossed.
   */
  async adjust(
    tenantId: string,
    delta: number,
    floor: number | undefined,
    session?: ClientSession,
  ): Promise<number | undefined> {
    const filter: Record<string, unknown> = { _id: tenantId };
    if (floor !== undefined) filter.balance = { $gte: floor - delta };
    // The driver directly: a charge is on every chat and run, and mongoose's casting of this fixed
    // shape is pure overhead there.
    const record = await this.accounts.collection.findOneAndUpdate(
      filter,
      { $inc: { balance: delta }, $set: { updated_at: new Date() } },
      { returnDocument: 'after', projection: { balance: 1 }, session },
    );
    return record ? (record.balance as number) : undefined;
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

  /** Throws a duplicate-key error when the idempotency key was used before. */
  async insertEntry(entry: LedgerEntry, session?: ClientSession): Promise<void> {
    await this.entries.create(
      [
        {
          _id: entry.id,
          tenant_id: entry.tenantId,
          type: entry.type,
          amount: entry.amount,
          balance_after: entry.balanceAfter,
          idempotency_key: entry.idempotencyKey,
          description: entry.description,
          created_at: entry.createdAt,
        },
      ],
      { session },
    );
  }

  async findByKey(tenantId: string, idempotencyKey: string): Promise<LedgerEntry | undefined> {
    const record = await this.entries.collection.findOne({ tenant_id: tenantId, idempotency_key: idempotencyKey });
    return record ? toEntry(record as unknown as CreditEntryRecord) : undefined;
  }

  async recent(tenantId: string, limit: number): Promise<LedgerEntry[]> {
    const records = await this.entries
      .find({ tenant_id: tenantId })
      .sort({ created_at: -1, _id: -1 })
      .limit(limit)
      .lean<CreditEntryRecord[]>();
    return records.map(toEntry);
  }
}
