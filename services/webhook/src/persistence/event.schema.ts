import { Schema, type Connection, type Model } from 'mongoose';
import type { ReceivedEnvelope } from '@agentplatform/events';

/**
 * The events of one tenant that arrived in one batch from Kafka, kept so a recovery can create the
 * deliveries a webhook missed while it was failed or disabled. One document per tenant and batch,
 * not per event: every document written costs the database index work, and these are only read
 * by a recovery (deliveries carry their own envelope).
 */
export interface EventBatchDocument {
  _id: string;
  tenant_id: string;
  received_at: Date;
  envelopes: ReceivedEnvelope[];
}

const eventBatchSchema = new Schema<EventBatchDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    received_at: { type: Date, required: true },
    envelopes: { type: Schema.Types.Mixed, required: true },
  },
  { collection: 'event_batches', versionKey: false, minimize: false },
);
// Recovery looks events up by arrival; kept as long as deliveries (WEBHOOK_DELIVERY_RETENTION_DAYS).
eventBatchSchema.index({ tenant_id: 1, received_at: 1 });
// Retention: the pruner takes the oldest first. On MongoDB the TTL also expires them after 30 days
// (kept: changing an index's options fails its build on existing databases); the stand-in has no
// TTL monitor, so the pruner is what bounds the collection there.
eventBatchSchema.index({ received_at: 1 }, { expireAfterSeconds: 30 * 24 * 3600 });

export function eventBatchModel(connection: Connection): Model<EventBatchDocument> {
  return (
    (connection.models.EventBatchDocument as Model<EventBatchDocument>) ??
    connection.model('EventBatchDocument', eventBatchSchema)
  );
}
