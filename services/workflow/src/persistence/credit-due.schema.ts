import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One entry per run whose credit is not settled yet: what the settle job pages through, instead of
 * the executions (the local stand-in would scan all of them for the flag every pass:
 * docs/queries.md). Written before the execution (or in its transaction) and deleted once
 * identity confirmed the settle; an entry whose execution was never stored (the insert failed,
 * the process died) is dropped unsettled by the job.
 */
export interface CreditDueDocument {
  /** The execution's `_id`. */
  _id: string;
  tenant_id: string;
  created_at: Date;
}

const creditDueSchema = new Schema<CreditDueDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'credit_due', versionKey: false },
);
// The settle job's page, oldest first. Unique because it ends in `_id`.
creditDueSchema.index({ created_at: 1, _id: 1 }, { unique: true });

export function creditDueModel(connection: Connection): Model<CreditDueDocument> {
  return (connection.models.CreditDue as Model<CreditDueDocument>) ?? connection.model('CreditDue', creditDueSchema);
}
