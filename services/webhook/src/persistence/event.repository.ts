import type { Connection, Model } from 'mongoose';
import type { EventEnvelope } from '@agentplatform/events';
import { eventModel, type StoredEvent } from './event.schema.js';

export class EventRepository {
  private readonly model: Model<StoredEvent>;

  constructor(connection: Connection) {
    this.model = eventModel(connection);
  }

  /** Stores an event once; storing it again (a Kafka redelivery) changes nothing. */
  async record(envelope: EventEnvelope): Promise<void> {
    await this.model.updateOne(
      { _id: envelope.id },
      {
        $setOnInsert: {
          tenant_id: envelope.tenant_id,
          type: envelope.type,
          envelope,
          received_at: new Date(),
        },
      },
      { upsert: true },
    );
  }

  async find(tenantId: string, eventId: string): Promise<StoredEvent | null> {
    return this.model.findOne({ _id: eventId, tenant_id: tenantId }).lean<StoredEvent>();
  }
}
