import { Schema, type Connection, type Model } from 'mongoose';

/** A queued run's entry in its tenant's line (held-run.repository.ts). */
export interface HeldRunDocument {
  /** The queued execution's id: ids are time-ordered, so sorting by it is arrival order. */
  _id: string;
  tenant_id: string;
  held_at: Date;
}

const heldRunSchema = new Schema(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    held_at: { type: Date, required: true },
  },
  { collection: 'held_runs', versionKey: false },
);
// A tenant's line, oldest first. The collection holds only runs waiting right now (an entry leaves
// when its run starts), so even a scan of it is a read of a handful of documents.
heldRunSchema.index({ tenant_id: 1, _id: 1 });

export function heldRunModel(connection: Connection): Model<HeldRunDocument> {
  return (
    (connection.models.HeldRun as Model<HeldRunDocument>) ?? connection.model<HeldRunDocument>('HeldRun', heldRunSchema)
  );
}
