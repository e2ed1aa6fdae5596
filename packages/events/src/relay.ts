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
import { brokerRefusal } from './broker-refusal.js';
import { DeadLetters, type DeadLetterReason } from './dead-letters.js';
import { EVENT_HEADERS, KAFKA_MESSAGE_MAX_BYTES } from './event-types.js';
import type { Outbox, OutboxDocument } from './outbox.js';

/** The `traceparent` header of a message: the producer span's context, or the stored one as it is. */
function traceHeader(source: Span | string | undefined): Record<string, string> {
  if (source === undefined) return {};
  const traceparent = typeof source === 'string' ? source : currentTraceparent(contextWithSpan(source));
  return traceparent ? { [EVENT_HEADERS.traceparent]: traceparent } : {};
}

/**
 * The most one message (or one send) may take of the broker's message limit: Kafka counts a
 * record batch with its headers and framing (61 bytes a batch, some bytes a record), which this
 * margin covers. The producer's own limit, so that what the broker would refuse is never sent.
 */
export const MAX_SEND_BYTES = KAFKA_MESSAGE_MAX_BYTES - 1024;

/** Broker refusals a record may meet before it is moved to the dead letters (docs/design.md section 8). */
const MAX_PUBLISH_ATTEMPTS = 10;

/** Counts records moved to the dead letters (`outbox_dead_letters_total`, by reason). */
export interface DeadLetterCounter {
  inc(labels: { reason: DeadLetterReason }): void;
}

export interface RelayOptions {
  outbox: Outbox;
  /** Where records that can never be published go, out of the way of the others (default: beside the outbox). */
  deadLetters?: DeadLetters;
  deadLetterCounter?: DeadLetterCounter;
  /** Broker refusals before a record is given up (default MAX_PUBLISH_ATTEMPTS). */
  maxAttempts?: number;
  /** The wait after a record's first refusal, doubling with each refusal (default 1 s, at most 5 min). */
  retryBaseMs?: number;
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

/** One message as the relay sends it, with its size as the broker will count it (about). */
interface Outgoing {
  record: OutboxDocument;
  topic: string;
  value: string;
  bytes: number;
}

/**
 * Publishes outbox events to Kafka in order of creation and deletes them once the broker has
 * acknowledged them (acks from all in-sync replicas). Batches are claimed with a lease, so several
 * replicas share the work. When Kafka is down the events stay stored and are retried with backoff;
 * the consumers' dedupe by event id makes the rare second publish after a crash harmless.
 *
 * No record holds up the others (docs/design.md section 8): a batch goes out in sends of at most
 * MAX_SEND_BYTES; a record larger than that, or one the broker refuses for good (too large,
 * invalid), moves to the dead letters at once (a send of several that the broker refuses for good
 * is split into single sends to find it); a record the broker refuses otherwise waits a backoff of
 * its own (its lease is set to the time of its next try, so claims pass it by), goes out alone from
 * then on (it never fails a send of others again), and moves to the dead letters at its tenth
 * refusal. A broker that does not answer at all (down, unreachable) judges no record: the batch
 * waits and no attempt is counted, so an outage never fills the dead letters. A record that waits
 * its backoff is published after records stored later: a tenant's events keep their order except
 * around a refused one.
 */
export class OutboxRelay {
  private readonly owner = randomUUID();
  private readonly producer: Producer;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly deadLetters: DeadLetters;
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private pending = false;
  /** Records this process just stored, leased to this relay: published without a claim query. */
  private direct: OutboxDocument[] = [];
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
    this.maxAttempts = options.maxAttempts ?? MAX_PUBLISH_ATTEMPTS;
    this.retryBaseMs = options.retryBaseMs ?? 1_000;
    this.deadLetters = options.deadLetters ?? DeadLetters.of(options.outbox.connection);
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

  private readonly nudge = (records: OutboxDocument[] = []) => {
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

  /**
   * Claims, publishes and deletes one batch; returns how many records it took off the outbox
   * (published, dead-lettered or set aside for a later try). Throws when the broker does not answer.
   */
  private async publishBatch(): Promise<number> {
    const batch = this.direct.length > 0 ? this.direct.splice(0, this.batchSize) : await this.claim();
    if (batch.length === 0) return 0;
    const outgoing = batch.map((record) => this.outgoing(record));
    const oversized = outgoing.filter((o) => o.bytes > MAX_SEND_BYTES).map((o) => o.record);
    if (oversized.length > 0) {
      await this.deadLetter(oversized, 'too_large', `the event is larger than ${MAX_SEND_BYTES} bytes`);
    }
    const sends = this.sends(outgoing.filter((o) => o.bytes <= MAX_SEND_BYTES));
    const published: OutboxDocument[] = [];
    try {
      await this.producer.connect();
      for (const send of sends) published.push(...(await this.deliver(send)));
    } catch (error) {
      const done = new Set(published.map((r) => r._id));
      await this.release(
        sends.flat().flatMap((o) => (done.has(o.record._id) ? [] : [o.record])),
        error,
      );
      await this.forget(published);
      throw error;
    }
    await this.forget(published);
    return batch.length;
  }

  /** A record's message, topic and size. */
  private outgoing(record: OutboxDocument): Outgoing {
    const value = JSON.stringify(record.envelope);
    let bytes = Buffer.byteLength(value) + Buffer.byteLength(record.envelope.tenant_id);
    for (const [name, header] of Object.entries(this.headersOf(record))) bytes += name.length + header.length;
    return { record, topic: this.topicOf(record), value, bytes };
  }

  /**
   * The batch cut into sends: one topic each, at most MAX_SEND_BYTES each (so no partition's share
   * of a send can exceed the broker's limit), in order; a record refused before goes alone.
   */
  private sends(outgoing: Outgoing[]): Outgoing[][] {
    const sends: Outgoing[][] = [];
    const open = new Map<string, { send: Outgoing[]; bytes: number }>();
    for (const o of outgoing) {
      if (o.record.attempts > 0) {
        sends.push([o]);
        continue;
      }
      const current = open.get(o.topic);
      if (current && current.bytes + o.bytes <= MAX_SEND_BYTES) {
        current.send.push(o);
        current.bytes += o.bytes;
      } else {
        const send = [o];
        sends.push(send);
        open.set(o.topic, { send, bytes: o.bytes });
      }
    }
    return sends;
  }

  /**
   * Sends one send's records and answers those the broker acknowledged; those it refused are dead-
   * lettered or set aside (see the class comment). Throws when the broker does not answer.
   */
  private async deliver(send: Outgoing[]): Promise<OutboxDocument[]> {
    const records = send.map((o) => o.record);
    try {
      await this.produce(send);
      return records;
    } catch (error) {
      const refusal = brokerRefusal(error);
      if (!refusal) throw error;
      if (refusal.permanent && send.length > 1) {
        const published: OutboxDocument[] = [];
        for (const one of send) published.push(...(await this.deliver([one])));
        return published;
      }
      const reason = `refused by the broker: ${refusal.type}`;
      if (refusal.permanent) {
        await this.deadLetter(records, 'rejected', reason);
        return [];
      }
      const exhausted = records.filter((r) => r.attempts + 1 >= this.maxAttempts);
      const again = records.filter((r) => r.attempts + 1 < this.maxAttempts);
      if (exhausted.length > 0) {
        await this.deadLetter(
          exhausted.map((r) => ({ ...r, attempts: r.attempts + 1 })),
          'attempts',
          `${reason} (${this.maxAttempts} attempts)`,
        );
      }
      await this.setAside(again, reason);
      return [];
    }
  }

  private async produce(send: Outgoing[]): Promise<void> {
    const spans = this.publishSpans(send.map((o) => o.record));
    try {
      await this.producer.send({
        acks: -1,
        topic: send[0]!.topic,
        messages: send.map(({ record, value }) => ({
          key: record.envelope.tenant_id,
          value,
          headers: { ...this.headersOf(record), ...traceHeader(spans?.get(record._id) ?? record.traceparent) },
        })),
      });
    } catch (error) {
      for (const span of spans?.values() ?? []) {
        failSpan(span, error);
        span.end();
      }
      throw error;
    }
    for (const span of spans?.values() ?? []) span.end();
  }

  private headersOf(record: OutboxDocument): Record<string, string> {
    return {
      [EVENT_HEADERS.type]: record.envelope.type,
      [EVENT_HEADERS.id]: record.envelope.id,
      ...(record.request_id ? { [EVENT_HEADERS.requestId]: record.request_id } : {}),
    };
  }

  /** Deletes published records from the outbox. */
  private async forget(published: OutboxDocument[]): Promise<void> {
    if (published.length === 0) return;
    // By id alone: should the lease have run out and another relay published them too, they are
    // published either way (consumers dedupe), and an id-only filter is cheap on every server.
    await this.options.outbox.model.deleteMany({ _id: { $in: published.map((r) => r._id) } });
  }

  /** Moves records that can never be published to the dead letters, counted and logged. */
  private async deadLetter(records: OutboxDocument[], reason: DeadLetterReason, error: string): Promise<void> {
    await this.deadLetters.store(records, reason, error);
    await this.forget(records);
    for (const record of records) {
      this.options.deadLetterCounter?.inc({ reason });
      this.options.logger.error(
        {
          event_id: record.envelope.id,
          event_type: record.envelope.type,
          tenant_id: record.envelope.tenant_id,
          reason,
          attempts: record.attempts,
          error,
        },
        'outbox record moved to the dead letters',
      );
    }
  }

  /**
   * Counts a refusal of each record and leases it to nobody until its next try (a backoff that
   * doubles with its refusals), so claims pass it by meanwhile.
   */
  private async setAside(records: OutboxDocument[], error: string): Promise<void> {
    const model = this.options.outbox.model;
    const now = Date.now();
    await Promise.all(
      records.map((record) =>
        model.updateOne(
          { _id: record._id, lease_owner: this.owner },
          {
            $unset: { lease_owner: '' },
            $inc: { attempts: 1 },
            $set: {
              last_error: error,
              lease_until: new Date(
                now + backoffDelay(record.attempts, { baseMs: this.retryBaseMs, maxMs: 5 * 60_000, jitter: 0.1 }),
              ),
            },
          },
        ),
      ),
    );
  }

  /**
   * With tracing on, a producer span per traced record, from the moment it was stored (the time in
   * the outbox shows) to the broker's acknowledgement; its context is what the message carries.
   */
  private publishSpans(batch: readonly OutboxDocument[]): Map<string, Span> | undefined {
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

  private topicOf(record: OutboxDocument): string {
    if (!isAccessEventType(record.envelope.type)) return this.options.topic;
    if (!this.options.accessTopic) throw new Error(`no access topic configured for ${record.envelope.type}`);
    return this.options.accessTopic;
  }

  private async claim(): Promise<OutboxDocument[]> {
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
      .lean<OutboxDocument[]>();
  }

  /**
   * Gives records back to the pool untried: the broker did not answer, so no attempt is counted
   * (an outage must not use up records' attempts).
   */
  private async release(batch: OutboxDocument[], error: unknown): Promise<void> {
    if (batch.length === 0) return;
    await this.options.outbox.model
      .updateMany(
        { _id: { $in: batch.map((r) => r._id) }, lease_owner: this.owner },
        {
          $unset: { lease_owner: '', lease_until: '' },
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
