import { Schema } from 'mongoose';
import type { LedgerEntryType } from '../domain/credit-chain.js';

/**
 * A tenant's credit account: that the tenant has one, and the low-credit alert's state
 * (`low_alert_armed` makes billing.credits.low fire once per dip below the threshold). The balance
 * is the ledger's: `balance` is only the starting point of accounts opened before the ledger was
 * chained (docs/credits.md).
 */
export interface CreditAccountDocument {
  _id: string;
  balance: number;
  low_alert_armed: boolean;
  updated_at: Date;
}

export const creditAccountSchema = new Schema<CreditAccountDocument>(
  {
    _id: { type: String, required: true },
    balance: { type: Number, required: true },
    low_alert_armed: { type: Boolean, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'credit_accounts', versionKey: false },
);

/**
 * One movement of credits, a link of the tenant's chain: entry `seq` has the `_id`
 * `led_<tenant>_<seq>`, so two writers can never both append the same link, and its
 * `balance_after` is the previous link's plus `amount`. The unique (tenant, idempotency key) pair
 * makes retries harmless. A reservation's entry carries `hold_expires_at` until it is closed.
 */
export interface CreditEntryDocument {
  _id: string;
  tenant_id: string;
  /** Absent on entries written before the ledger was chained. */
  seq?: number;
  type: LedgerEntryType;
  amount: number;
  balance_after: number;
  idempotency_key: string;
  description: string;
  created_at: Date;
  hold_expires_at?: Date;
}

export const creditEntrySchema = new Schema<CreditEntryDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    seq: Number,
    type: { type: String, required: true },
    amount: { type: Number, required: true },
    balance_after: { type: Number, required: true },
    idempotency_key: { type: String, required: true },
    description: { type: String, default: '' },
    created_at: { type: Date, required: true },
    hold_expires_at: Date,
  },
  { collection: 'credit_entries', versionKey: false },
);
creditEntrySchema.index({ tenant_id: 1, idempotency_key: 1 }, { unique: true });
creditEntrySchema.index({ tenant_id: 1, seq: -1 });
creditEntrySchema.index({ tenant_id: 1, created_at: -1 });
// The start-up backfill of due entries for reservations opened before them (credit.repository.ts).
creditEntrySchema.index({ hold_expires_at: 1 });

/**
 * One entry per open reservation: when the expiry sweep should look at it. The sweep pages through
 * these instead of the ledger, which holds every movement ever made: on MongoDB an index serves the
 * range from either collection, but the local stand-in serves no range from an index and scans, so
 * the sweep's cost must follow the reservations open now, not the ledger's history
 * (docs/queries.md). Written before its reservation's entry and
 * removed when the reservation closes; the sweep checks the entry itself, so an entry left by a
 * crash or a refused reservation only costs a look.
 */
export interface CreditHoldDueDocument {
  /** `<tenant>/<operation id>`: one per reservation key. */
  _id: string;
  tenant_id: string;
  idempotency_key: string;
  due_at: Date;
}

export const creditHoldDueSchema = new Schema<CreditHoldDueDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    idempotency_key: { type: String, required: true },
    due_at: { type: Date, required: true },
  },
  { collection: 'credit_holds_due', versionKey: false },
);
// The sweep's page, the longest due first. Unique because it ends in `_id` (the stand-in builds
// only unique indexes).
creditHoldDueSchema.index({ due_at: 1, _id: 1 }, { unique: true });
