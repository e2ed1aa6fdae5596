import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One entry per schedule claim in `starting` (its run not started yet): what claim recovery and
 * pause's wait page through, instead of the claims, which hold a day of ticks (the local stand-in
 * would scan them every few seconds: docs/performance.md, "Queries and their indexes"). Written
 * before its claim and deleted once the claim is settled; one left over (a crash in between, or a
 * claim another replica won) is dropped by recovery, which reads the claim by `_id`.
 */
export interface ClaimDueDocument {
  /** The claim's `_id`. */
  _id: string;
  workflow_id: string;
  /** The claim's `claimed_at` as last written here: recovery looks once it is older than the lease. */
  claimed_at: Date;
}

const claimDueSchema = new Schema<ClaimDueDocument>(
  {
    _id: { type: String, required: true },
    workflow_id: { type: String, required: true },
    claimed_at: { type: Date, required: true },
  },
  { collection: 'claim_due', versionKey: false },
);
// Recovery's page, the oldest first. Unique because it ends in `_id`.
claimDueSchema.index({ claimed_at: 1, _id: 1 }, { unique: true });

export function claimDueModel(connection: Connection): Model<ClaimDueDocument> {
  return (connection.models.ClaimDue as Model<ClaimDueDocument>) ?? connection.model('ClaimDue', claimDueSchema);
}
