import { Schema, type Connection, type Model } from 'mongoose';
import type { EventEnvelope } from '@agentplatform/events';

/** Every event received from Kafka, kept so deliveries can be (re)sent from the original envelope. */
export interface StoredEvent {
  _id: string;
  tenant_id: string;
  type: string;
  envelope: EventEnvelope;
  received_at: Date;
}

const eventSchema = new Schema<StoredEvent>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    type: { type: String, required: true },
    envelope: { type: Schema.Types.Mixed, required: true },
    received_at: { type: Date, required: true },
  },
  { collection: 'events', versionKey: false, minimize: false },
);
eventSchema.index({ tenant_id: 1, _id: -1 });
// Recovery looks events up by arrival; kept as long as deliveries (30 days).
eventSchema.index({ tenant_id: 1, received_at: 1 });
eventSchema.index({ received_at: 1 }, { expireAfterSeconds: 30 * 24 * 3600 });

export function eventModel(connection: Connection): Model<StoredEvent> {
  return (connection.models.StoredEvent as Model<StoredEvent>) ?? connection.model('StoredEvent', eventSchema);
}
