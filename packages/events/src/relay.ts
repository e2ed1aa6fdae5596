import { randomUUID } from 'node:crypto';
import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import {
  backoffDelay,
  SpanKind,
  contextFromTraceparent,
  contextWithSpan,
  currentTraceparent,
  failSpan,
  startSpan,
  type Logger,
  type Span,
} from '@agentplatform/service-kit';
import { isAccessEventType } from './access-events.js';
import { EVENT_HEADERS } from './event-types.js';
import type { Outbox, OutboxRecord } from './outbox.js';

/** The `traceparent` header of a message: the producer span's context, or the stored one as it is. */
function traceHeader(source: Span | string | undefined): Record<string, string> {
  if (source === undefined) return {};
  const traceparent = typeof source === 'string' ? source : currentTraceparent(contextWithSpan(source));
  return traceparent ? { [EVENT_HEADERS.traceparent]: traceparent } : {};
}

export interface RelayOptions {
  outbox: Outbox;
  kafka: Kafka;
  topic: string;
  /** Where internal access events go (never the events topic, which customers' webhooks read). */
  accessTopic?: string;
  logger: Logger;
  batchSize?: number;
  /** How often to look for events stored by other replicas or left by a crash. */
  pollIntervalMs?: number;
  /** How long a claimed batch stays claimed; a replica that dies frees its batch after this. */
  leaseMs?: number;
}

/**
 * Publishes outbox events to Kafka in order of creation and deletes them once the broker has
 * acknowledged them (acks from all in-sync replicas). Batches are claimed with a lease, so several
 * replicas share the work. When Kafka is down the events stay stored and are retried with backoff;
 * the consumers' dedupe by event id makes the rare second publish after a crash harmless.
 */
export class OutboxRelay {
  private readonly owner = randomUUID();
  private readonly producer: Producer;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private pending = false;
  /** Records this process just stored, leased to this relay: published without a claim query. */
  private direct: OutboxRecord[] = [];
  private failing = false;

  constructor(private readonly options: RelayOptions) {
    // One request in flight keeps per-partition order; duplicates from a retried send are
    // absorbed by the consumers' dedupe, so the idempotent producer (which needs unbounded
    // retries, and would block shutdown during an outage) is not used.
    this.producer = options.kafka.producer({
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.options.outbox.claimOnWrite({ owner: this.owner, leaseMs: this.leaseMs });
    this.options.outbox.signals.on('enqueued', this.nudge);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.options.outbox.claimOnWrite(undefined);
    this.options.outbox.signals.off('enqueued', this.nudge);
    this.wake?.();
    await this.loop;
    // What this relay had taken on but not published goes back to the pool for the next relay.
    if (this.direct.length > 0) await this.release(this.direct.splice(0), new Error('relay stopped'));
    await this.producer.disconnect().catch(() => undefined);
  }

  private readonly nudge = (records: OutboxRecord[] = []) => {
    this.direct.push(...records);
    this.pending = true;
    this.wake?.();
  };

  private async run(): Promise<void> {
    let failures = 0;
    let backoff = 0;
    while (this.running) {
      this.pending = false;
      let published = 0;
      try {
        published = await this.publishBatch();
        if (this.failing) this.options.logger.info('kafka reachable again; outbox draining');
        this.failing = false;
        failures = 0;
        backoff = 0;
      } catch (error) {
        if (!this.failing) this.options.logger.warn({ err: error }, 'cannot publish outbox events; will retry');
        this.failing = true;
        backoff = backoffDelay(failures++, { baseMs: 250, maxMs: 5_000 });
        // The next attempt starts from fresh connections and metadata: a kafkajs producer whose
        // requests timed out against a restarting broker may keep its dead connections
        // (tulios/kafkajs#919), and the relay would wait out every request timeout again.
        await this.producer.disconnect().catch(() => undefined);
      }
      if (!this.running) break;
      if (backoff > 0) await this.sleep(backoff, false);
      else if (published < this.batchSize && !this.pending && this.direct.length === 0) {
        await this.sleep(this.pollIntervalMs, true);
      }
    }
  }

  /** Claims, publishes and deletes one batch; returns how many events it published. */
  private async publishBatch(): Promise<number> {
    const batch = this.direct.length > 0 ? this.direct.splice(0, this.batchSize) : await this.claim();
    if (batch.length === 0) return 0;
    const spans = this.publishSpans(batch);
    try {
      await this.producer.connect();
      const byTopic = new Map<string, OutboxRecord[]>();
      for (const record of batch) {
        const topic = this.topicOf(record);
        byTopic.set(topic, [...(byTopic.get(topic) ?? []), record]);
      }
      await this.producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, records]) => ({
          topic,
          messages: records.map((record) => ({
            key: record.envelope.tenant_id,
            value: JSON.stringify(record.envelope),
            headers: {
              [EVENT_HEADERS.type]: record.envelope.type,
              [EVENT_HEADERS.id]: record.envelope.id,
              ...(record.request_id ? { [EVENT_HEADERS.requestId]: record.request_id } : {}),
              ...traceHeader(spans?.get(record._id) ?? record.traceparent),
            },
          })),
        })),
      });
    } catch (error) {
      for (const span of spans?.values() ?? []) {
        failSpan(span, error);
        span.end();
      }
      await this.release(batch, error);
      throw error;
    }
    for (const span of spans?.values() ?? []) span.end();
    // By id alone: should the lease have run out and another relay published them too, they are
    // published either way (consumers dedupe), and an id-only filter is cheap on every server.
    await this.options.outbox.model.deleteMany({ _id: { $in: batch.map((r) => r._id) } });
    return batch.length;
  }

  /**
   * With tracing on, a producer span per traced record, from the moment it was stored (the time in
   * the outbox shows) to the broker's acknowledgement; its context is what the message carries.
   */
  private publishSpans(batch: readonly OutboxRecord[]): Map<string, Span> | undefined {
    let spans: Map<string, Span> | undefined;
    for (const record of batch) {
      if (!record.traceparent) continue;
      const span = startSpan(`publish ${record.envelope.type}`, {
        kind: SpanKind.PRODUCER,
        parent: contextFromTraceparent(record.traceparent),
        startTime: record.created_at,
        attributes: {
          'messaging.system': 'kafka',
          'messaging.message.id': record.envelope.id,
          'agentplatform.event.type': record.envelope.type,
        },
      });
      if (span) (spans ??= new Map()).set(record._id, span);
    }
    return spans;
  }

  private topicOf(record: OutboxRecord): string {
    if (!isAccessEventType(record.envelope.type)) return this.options.topic;
    if (!this.options.accessTopic) throw new Error(`no access topic configured for ${record.envelope.type}`);
    return this.options.accessTopic;
  }

  private async claim(): Promise<OutboxRecord[]> {
    const model = this.options.outbox.model;
    const now = new Date();
    const free = { $or: [{ lease_until: null }, { lease_until: { $lt: now } }] };
    const candidates = await model.find(free, { _id: 1 }).sort({ _id: 1 }).limit(this.batchSize).lean();
    if (candidates.length === 0) return [];
    const ids = candidates.map((c) => c._id);
    await model.updateMany(
      { _id: { $in: ids }, ...free },
      { $set: { lease_owner: this.owner, lease_until: new Date(now.getTime() + this.leaseMs) } },
    );
    return model
      .find({ _id: { $in: ids }, lease_owner: this.owner })
      .sort({ _id: 1 })
      .lean<OutboxRecord[]>();
  }

  private async release(batch: OutboxRecord[], error: unknown): Promise<void> {
    await this.options.outbox.model
      .updateMany(
        { _id: { $in: batch.map((r) => r._id) }, lease_owner: this.owner },
        {
          $unset: { lease_owner: '', lease_until: '' },
          $inc: { attempts: 1 },
          $set: { last_error: error instanceof Error ? error.message : String(error) },
        },
      )
      .catch(() => undefined);
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = wakeable ? done : () => (this.running ? undefined : done());
    });
  }
}
