import { Schema } from 'mongoose';

/** A tenant's balance. `low_alert_armed` makes billing.credits.low fire once per dip below the threshold. */
export interface CreditAccountRecord {
  _id: string;
  balance: number;
  low_alert_armed: boolean;
  updated_at: Date;
}

export const creditAccountSchema = new Schema<CreditAccountRecord>(
  {
    _id: { type: String, required: true },
    balance: { type: Number, required: true },
    low_alert_armed: { type: Boolean, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'credit_accounts', versionKey: false },
);

export type LedgerEntryType = 'grant' | 'charge' | 'refund' | 'purchase';

/** One movement of credits. The unique (tenant, idempotency key) pair makes retries harmless. */
export interface CreditEntryRecord {
  _id: string;
  tenant_id: string;
  type: LedgerEntryType;
  amount: number;
  balance_after: number;
  idempotency_key: string;
  description: string;
  created_at: Date;
}

export const creditEntrySchema = new Schema<CreditEntryRecord>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    type: { type: String, required: true },
    amount: { type: Number, required: true },
    balance_after: { type: Number, required: true },
    idempotency_key: { type: String, required: true },
    description: { type: String, default: '' },
    created_at: { type: Date, required: true },
  },
  { collection: 'credit_entries', versionKey: false },
);
creditEntrySchema.index({ tenant_id: 1, idempotency_key: 1 }, { unique: true });
creditEntrySchema.index({ tenant_id: 1, created_at: -1 });
