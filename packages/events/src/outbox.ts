import { EventEmitter } from 'node:events';
import { Schema, type ClientSession, type Collection, type Connection, type Model } from 'mongoose';
import {
  GroupCommit,
  currentRequestId,
  currentTraceparent,
  insertEach,
  supportsTransactions,
} from '@agentplatform/service-kit';
import type { AccessEvent } from './access-events.js';
import type { EventEnvelope } from './event-types.js';

/** What an outbox stores: a domain event, or an internal access event (its own topic). */
export type OutboxEvent = EventEnvelope | AccessEvent;

/** One event waiting in the service's own database to be published to Kafka. */
export interface OutboxRecord {
  _id: string;
  envelope: OutboxEvent;
  request_id?: string;
  /** The W3C trace context of the work that caused the event (tracing on): its trace goes on through Kafka. */
  traceparent?: string;
  created_at: Date;
  attempts: number;
  last_error?: string;
  lease_owner?: string;
  lease_until?: Date;
}

const outboxSchema = new Schema<OutboxRecord>(
  {
    _id: { type: String, required: true },
    envelope: { type: Schema.Types.Mixed, required: true },
    request_id: String,
    traceparent: String,
    created_at: { type: Date, required: true },
    attempts: { type: Number, default: 0 },
    last_error: String,
    lease_owner: String,
    lease_until: Date,
  },
  { collection: 'outbox', versionKey: false, minimize: false },
);
outboxSchema.index({ lease_until: 1, _id: 1 });

export function outboxModel(connection: Connection): Model<OutboxRecord> {
  return (connection.models.OutboxRecord as Model<OutboxRecord>) ?? connection.model('OutboxRecord', outboxSchema);
}

/**
 * The transactional outbox. `run` performs a use case's writes and stores the events they produce
 * in the same write path: inside one multi-document transaction where the deployment supports it
 * (production MongoDB, a replica set), otherwise as the next write after the domain writes (the
 * local stand-in). The relay publishes stored events to Kafka, so a Kafka outage only delays them.
 */
export class Outbox {
  readonly model: Model<OutboxRecord>;
  /**
   * Emits `enqueued` with the stored records once they are durable, so the relay in this process
   * publishes them at once, without polling for them.
   */
  readonly signals = new EventEmitter();
  /** Set by this process's relay: new records are stored already leased to it. */
  private claimant?: { owner: string; leaseMs: number };
  /**
   * Outside a transaction, the records of concurrent use cases are stored together: one
   * insertMany for all the callers that arrived while the previous one was in flight.
   */
  private readonly inserts = new GroupCommit<OutboxRecord[], void>(async (_key, groups) => {
    const results = await insertEach(this.model.collection as unknown as Collection<OutboxRecord>, groups.flat());
    let at = 0;
    return groups.map((group) => {
      const failed = results.slice(at, (at += group.length)).find((r) => r instanceof Error);
      return failed ?? undefined;
    });
  });

  private constructor(
    readonly connection: Connection,
    readonly transactional: boolean,
  ) {
    this.model = outboxModel(connection);
  }

  /**
   * Stores new records leased to `owner` (the relay of this process), so other replicas' relays
   * leave them alone while it publishes them; if this process dies first, the lease expires and
   * any relay picks them up. `undefined` stops it (the relay is stopping).
   */
  claimOnWrite(claimant: { owner: string; leaseMs: number } | undefined): void {
    this.claimant = claimant;
  }

  static async open(connection: Connection): Promise<Outbox> {
    const outbox = new Outbox(connection, await supportsTransactions(connection));
    await outbox.model.init();
    return outbox;
  }

  /**
   * Runs `work`, then stores the events it returns. `work` receives the session its writes must
   * use (undefined without transactions) and must be safe to retry when a transaction is retried.
   */
  async run<T>(work: (session?: ClientSession) => Promise<{ result: T; events: OutboxEvent[] }>): Promise<T> {
    let outcome: { result: T; records: OutboxRecord[] };
    if (this.transactional) {
      outcome = await this.connection.transaction(async (session) => {
        const inner = await work(session);
        return { result: inner.result, records: await this.insert(inner.events, session) };
      });
    } else {
      const inner = await work(undefined);
      outcome = { result: inner.result, records: await this.insert(inner.events) };
    }
    if (outcome.records.length > 0) this.signals.emit('enqueued', outcome.records);
    return outcome.result;
  }

  /** Stores events on their own, for use cases whose only write is the event. */
  async publish(events: OutboxEvent[]): Promise<void> {
    await this.run(async () => ({ result: undefined, events }));
  }

  private async insert(events: OutboxEvent[], session?: ClientSession): Promise<OutboxRecord[]> {
    if (events.length === 0) return [];
    const requestId = currentRequestId();
    const traceparent = currentTraceparent();
    const now = new Date();
    const claimant = this.claimant;
    const records: OutboxRecord[] = events.map((envelope) => ({
      _id: envelope.id,
      envelope,
      request_id: requestId,
      ...(traceparent ? { traceparent } : {}),
      created_at: now,
      attempts: 0,
      ...(claimant ? { lease_owner: claimant.owner, lease_until: new Date(now.getTime() + claimant.leaseMs) } : {}),
    }));
    if (session) await this.model.insertMany(records, { session, ordered: true });
    else await this.inserts.submit('', records);
    return records;
  }
}
