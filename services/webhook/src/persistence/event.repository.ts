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
    await this.recordMany([envelope]);
  }

  /** Stores a batch of events in one round trip; events stored before are left as they are. */
  async recordMany(envelopes: readonly EventEnvelope[], now = new Date()): Promise<void> {
    if (envelopes.length === 0) return;
    try {
      await this.model.collection.insertMany(
        envelopes.map((envelope) => ({
          _id: envelope.id,
          tenant_id: envelope.tenant_id,
          type: envelope.type,
          envelope,
          received_at: now,
        })) as never[],
        { ordered: false },
      );
    } catch (error) {
      const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
      const list = (Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : []) as Array<{ code: number }>;
      if (list.length === 0 || list.some((e) => e.code !== 11000)) throw error;
    }
  }

  async find(tenantId: string, eventId: string): Promise<StoredEvent | null> {
    return this.model.findOne({ _id: eventId, tenant_id: tenantId }).lean<StoredEvent>();
  }

  /** Envelopes by (tenant, event id) pairs. */
  async findMany(keys: ReadonlyArray<{ tenantId: string; id: string }>): Promise<Map<string, EventEnvelope>> {
    if (keys.length === 0) return new Map();
    // Looked up by id alone (an index lookup everywhere); the tenant is checked on the result.
    const records = await this.model.find({ _id: { $in: keys.map((k) => k.id) } }).lean<StoredEvent[]>();
    const wanted = new Set(keys.map((k) => `${k.tenantId}/${k.id}`));
    return new Map(records.filter((r) => wanted.has(`${r.tenant_id}/${r._id}`)).map((r) => [r._id, r.envelope]));
  }

  /** A tenant's events of the given types received since a time, oldest first. */
  async since(tenantId: string, since: Date, types: readonly string[], limit: number): Promise<StoredEvent[]> {
    return this.model
      .find({ tenant_id: tenantId, received_at: { $gte: since }, type: { $in: types } })
      .sort({ _id: 1 })
      .limit(limit)
      .lean<StoredEvent[]>();
  }
}
