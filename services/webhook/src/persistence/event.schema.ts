import { Schema, type Connection, type Model } from 'mongoose';
import type { ReceivedEnvelope } from '@agentplatform/events';

/**
 * The events of one tenant that arrived in one batch from Kafka, kept so a recovery can create the
 * deliveries a webhook missed while it was failed or disabled. One document per tenant and batch,
 * not per event: every document written costs the database index work, and these are only read
 * by a recovery (deliveries carry their own envelope).
 */
export interface StoredEventBatch {
  _id: string;
  tenant_id: string;
  received_at: Date;
  envelopes: ReceivedEnvelope[];
}

const eventBatchSchema = new Schema<StoredEventBatch>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    received_at: { type: Date, required: true },
    envelopes: { type: Schema.Types.Mixed, required: true },
  },
  { collection: 'event_batches', versionKey: false, minimize: false },
);
// Recovery looks events up by arrival; kept as long as deliveries (30 days).
eventBatchSchema.index({ tenant_id: 1, received_at: 1 });
eventBatchSchema.index({ received_at: 1 }, { expireAfterSeconds: 30 * 24 * 3600 });

export function eventBatchModel(connection: Connection): Model<StoredEventBatch> {
  return (
    (connection.models.StoredEventBatch as Model<StoredEventBatch>) ??
    connection.model('StoredEventBatch', eventBatchSchema)
  );
}
