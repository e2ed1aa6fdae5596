import { Schema, type Connection, type Model } from 'mongoose';
import type { ClaimState } from '../domain/schedule-claim.types.js';

/** A schedule claim as stored (schedule-claim.repository.ts maps it to the domain's ScheduleClaim). */
export interface ClaimDocument {
  _id: string;
  tenant_id: string;
  workflow_id: string;
  tick_at: Date;
  execution_id: string;
  state: ClaimState;
  owner: string;
  claimed_at: Date;
  error?: string;
  expires_at: Date;
}

const claimSchema = new Schema(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    workflow_id: { type: String, required: true },
    tick_at: { type: Date, required: true },
    execution_id: { type: String, required: true },
    state: { type: String, required: true },
    owner: { type: String, required: true },
    claimed_at: { type: Date, required: true },
    error: String,
    expires_at: { type: Date, required: true },
  },
  { collection: 'schedule_claims', versionKey: false },
);
// Recovery: claims left in `starting` by a replica that died.
claimSchema.index({ state: 1, claimed_at: 1 });
// Its takeover writes with a filter on exactly {_id, claimed_at, state}: redundant for MongoDB, but
// the local stand-in keeps only unique indexes and uses one only when its keys equal the query's,
// so without it each claim taken over scanned every claim (10,000 a minute in the benchmark).
claimSchema.index({ _id: 1, claimed_at: 1, state: 1 }, { unique: true });
// Pause and delete wait for the workflow's starts in flight.
claimSchema.index({ workflow_id: 1, state: 1 });
claimSchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

export function claimModel(connection: Connection): Model<ClaimDocument> {
  return (
    (connection.models.ScheduleClaim as Model<ClaimDocument>) ??
    connection.model<ClaimDocument>('ScheduleClaim', claimSchema)
  );
}
