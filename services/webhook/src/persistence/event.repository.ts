import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import type { ReceivedEnvelope } from '@agentplatform/events';
import { documentsOf, pruneInBatches } from '@agentplatform/service-kit';
import { eventBatchModel, type EventBatchDocument } from './event.schema.js';

/** Events received from Kafka, stored per tenant and batch for recovery. */
export class EventRepository {
  private readonly model: Model<EventBatchDocument>;

  constructor(connection: Connection) {
    this.model = eventBatchModel(connection);
  }

  /**
   * Stores a batch of events in one round trip, one document per tenant. An event delivered again
   * by Kafka may be stored twice; `since` answers it once.
   */
  async recordMany(envelopes: readonly ReceivedEnvelope[], now = new Date()): Promise<void> {
    if (envelopes.length === 0) return;
    const byTenant = new Map<string, ReceivedEnvelope[]>();
    for (const envelope of envelopes) {
      const list = byTenant.get(envelope.tenant_id);
      if (list) list.push(envelope);
      else byTenant.set(envelope.tenant_id, [envelope]);
    }
    await documentsOf<EventBatchDocument>(this.model).insertMany(
      [...byTenant].map(([tenantId, list]) => ({
        _id: randomUUID(),
        tenant_id: tenantId,
        received_at: now,
        envelopes: list,
      })),
      { ordered: false },
    );
  }

  /** Up to `limit` distinct events of a tenant whose type is wanted, received since a time, in arrival order. */
  async since(
    tenantId: string,
    since: Date,
    wanted: (type: string) => boolean,
    limit: number,
  ): Promise<ReceivedEnvelope[]> {
    const found = new Map<string, ReceivedEnvelope>();
    const cursor = this.model
      .find({ tenant_id: tenantId, received_at: { $gte: since } })
      .sort({ received_at: 1 })
      .lean<EventBatchDocument>()
      .cursor();
    try {
      for await (const batch of cursor) {
        for (const envelope of batch.envelopes) {
          if (wanted(envelope.type) && !found.has(envelope.id)) found.set(envelope.id, envelope);
          if (found.size >= limit) return [...found.values()];
        }
      }
    } finally {
      await cursor.close();
    }
    return [...found.values()];
  }

  /** Deletes the batches received before `cutoff`, oldest first, in batches by index; answers how many went. */
  async pruneBefore(cutoff: Date, batchSize: number): Promise<number> {
    return pruneInBatches(
      this.model.collection,
      { received_at: { $lt: cutoff } },
      { sort: { received_at: 1 }, batchSize },
    );
  }
}
