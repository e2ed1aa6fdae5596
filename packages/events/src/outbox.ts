import { EventEmitter } from 'node:events';
import { Schema, type ClientSession, type Connection, type Model } from 'mongoose';
import {
  GroupCommit,
  currentRequestId,
  documentsOf,
  currentTraceparent,
  insertEach,
  supportsTransactions,
} from '@agentplatform/service-kit';
import type { AccessEvent } from './access-events.js';
import type { EventEnvelope } from './event-types.js';

/** What an outbox stores: a domain event, or an internal access event (its own topic). */
export type OutboxEvent = EventEnvelope | AccessEvent;

/** One event waiting in the service's own database to be published to Kafka. */
export interface OutboxDocument {
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

const outboxSchema = new Schema<OutboxDocument>(
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

function outboxModel(connection: Connection): Model<OutboxDocument> {
  return (connection.models.OutboxRecord as Model<OutboxDocument>) ?? connection.model('OutboxRecord', outboxSchema);
}

/**
 * The transactional outbox. `run` performs a use case's writes and stores the events they produce
 * in the same write path: inside one multi-document transaction where the deployment supports it
 * (production MongoDB, a replica set), otherwise as the next write after the domain writes (the
 * local stand-in). The relay publishes stored events to Kafka, so a Kafka outage only delays them.
 */
export class Outbox {
  readonly model: Model<OutboxDocument>;
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
  private readonly inserts = new GroupCommit<OutboxDocument[], void>(async (_key, groups) => {
    const results = await insertEach(documentsOf<OutboxDocument>(this.model), groups.flat());
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
    let outcome: { result: T; records: OutboxDocument[] };
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

  /**
   * Runs of concurrent use cases committed together (group commit; see `OutboxGroup`). `write`
   * performs the domain writes of every item it is given with the session it receives and answers
   * per item its result and events, or an `Error` for an item whose writes failed.
   */
  group<T, R>(write: GroupWrite<T, R>, maxBatch = 64): OutboxGroup<T, R> {
    return new OutboxGroup(this, write, maxBatch);
  }

  /** @internal The records of `events`, in the request context given (the caller's by default). */
  recordsOf(events: OutboxEvent[], context: RecordContext = captureContext()): OutboxDocument[] {
    const { requestId, traceparent } = context;
    const now = new Date();
    const claimant = this.claimant;
    const records: OutboxDocument[] = events.map((envelope) => ({
      _id: envelope.id,
      envelope,
      request_id: requestId,
      ...(traceparent ? { traceparent } : {}),
      created_at: now,
      attempts: 0,
      ...(claimant ? { lease_owner: claimant.owner, lease_until: new Date(now.getTime() + claimant.leaseMs) } : {}),
    }));
    return records;
  }

  private async insert(events: OutboxEvent[], session?: ClientSession): Promise<OutboxDocument[]> {
    if (events.length === 0) return [];
    const records = this.recordsOf(events);
    if (session) await this.model.insertMany(records, { session, ordered: true });
    else await this.inserts.submit('', records);
    return records;
  }
}

/** What an outbox record carries of the request that stored it. */
export interface RecordContext {
  requestId?: string;
  traceparent?: string;
}

function captureContext(): RecordContext {
  return { requestId: currentRequestId(), traceparent: currentTraceparent() };
}

/** The domain writes of a group of outbox runs: per item, its result and events, or the error of its writes. */
export type GroupWrite<T, R> = (
  items: T[],
  session?: ClientSession,
) => Promise<Array<{ result: R; events: OutboxEvent[] } | Error>>;

interface Submitted<T> {
  item: T;
  context: RecordContext;
}

/**
 * Outbox runs committed together: while one group is being committed, the runs submitted meanwhile
 * wait and go out together next (a lone run goes at once). With transactions, a group is ONE
 * transaction: its domain writes and all its events commit or abort together, so a crash at any
 * instant leaves each run either whole or absent, as `Outbox.run` does. When any write of a group
 * fails, the transaction is aborted and every run of it is retried alone in its own transaction,
 * so one caller's bad write (another tenant's, say) never fails the others. Without transactions
 * (the local stand-in) the writes go in one round trip per kind, each run's events are stored
 * unless its own writes failed, and a run's writes may remain without its events after a failure,
 * as with `Outbox.run`.
 */
export class OutboxGroup<T, R> {
  private readonly commits: GroupCommit<Submitted<T>, R>;

  constructor(
    private readonly outbox: Outbox,
    private readonly write: GroupWrite<T, R>,
    maxBatch: number,
  ) {
    this.commits = new GroupCommit((_key, items) => this.flush(items), maxBatch);
  }

  /** Runs `item`'s writes and stores its events, together with the runs waiting at the same time. */
  run(item: T): Promise<R> {
    return this.commits.submit('', { item, context: captureContext() });
  }

  private async flush(items: Array<Submitted<T>>): Promise<Array<R | Error>> {
    return this.outbox.transactional ? this.transaction(items) : this.plain(items);
  }

  private async transaction(items: Array<Submitted<T>>): Promise<Array<R | Error>> {
    const { outbox } = this;
    let records: OutboxDocument[] = [];
    let results: R[];
    try {
      results = await outbox.connection.transaction(async (session) => {
        const done = await this.write(
          items.map((s) => s.item),
          session,
        );
        const failed = done.find((d): d is Error => d instanceof Error);
        if (failed) throw failed;
        records = done.flatMap((d, i) => outbox.recordsOf((d as { events: OutboxEvent[] }).events, items[i]!.context));
        if (records.length > 0) await outbox.model.insertMany(records, { session, ordered: true });
        return done.map((d) => (d as { result: R }).result);
      });
    } catch (error) {
      if (items.length === 1) return [asError(error)];
      // One run's failure aborted the group: each run again, alone.
      return Promise.all(items.map((s) => this.transaction([s]).then(([r]) => r!)));
    }
    if (records.length > 0) outbox.signals.emit('enqueued', records);
    return results;
  }

  private async plain(items: Array<Submitted<T>>): Promise<Array<R | Error>> {
    const { outbox } = this;
    const done = await this.write(items.map((s) => s.item));
    const perItem = done.map((d, i) => (d instanceof Error ? [] : outbox.recordsOf(d.events, items[i]!.context)));
    const all = perItem.flat();
    const stored = all.length > 0 ? await insertEach(documentsOf<OutboxDocument>(outbox.model), all) : [];
    const durable: OutboxDocument[] = [];
    let at = 0;
    const results = done.map((d, i) => {
      const mine = perItem[i]!;
      const outcome = stored.slice(at, (at += mine.length));
      if (d instanceof Error) return d;
      const failed = outcome.find((r) => r instanceof Error);
      if (failed) return failed;
      durable.push(...mine);
      return d.result;
    });
    if (durable.length > 0) outbox.signals.emit('enqueued', durable);
    return results;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
