import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One entry per pending delivery: when the retry poller may next claim it (its next attempt, or
 * the end of its lease). The poller pages through these instead of the deliveries, which hold every
 * delivery of the retention period: on MongoDB the index below serves its range from either
 * collection, but the local stand-in serves no range from any index and scans, so the poll's
 * cost must follow what is pending, not the history (docs/performance.md, "Queries and their
 * indexes"). An entry may outlive its delivery's pending state (a crash between two writes): the
 * poller reads the delivery and drops or moves the entry; a pending delivery always has one, written
 * before the delivery becomes claimable.
 */
export interface DeliveryDueDocument {
  /** The delivery's `_id`. */
  _id: string;
  tenant_id: string;
  due_at: Date;
}

const deliveryDueSchema = new Schema<DeliveryDueDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    due_at: { type: Date, required: true },
  },
  { collection: 'delivery_due', versionKey: false },
);
// The poll: the next tenant with due work after the one served last, then that tenant's due
// entries, the longest due first. Unique because it ends in `_id`.
deliveryDueSchema.index({ tenant_id: 1, due_at: 1, _id: 1 }, { unique: true });

export function deliveryDueModel(connection: Connection): Model<DeliveryDueDocument> {
  return (
    (connection.models.DeliveryDue as Model<DeliveryDueDocument>) ?? connection.model('DeliveryDue', deliveryDueSchema)
  );
}
