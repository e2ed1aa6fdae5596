import { Schema, type Connection, type Model } from 'mongoose';
import type { Consumer, ConsumerRunConfig, Kafka } from 'kafkajs';
import { SpanKind, contextFromTraceparent, runWithContext, traced, type Logger } from '@agentplatform/service-kit';
import { parseEnvelope } from './envelope.js';
import { CONSUMER_GROUP_TIMING, partitionForKey, restartAfterFatalCrash, type CrashRestarts } from './kafka.js';
import { EVENT_HEADERS, type ReceivedEnvelope } from './event-types.js';
import { GroupMemberHandover } from './member-handover.js';

interface ProcessedEvent {
  _id: string;
  processed_at: Date;
}

const processedSchema = new Schema<ProcessedEvent>(
  { _id: { type: String, required: true }, processed_at: { type: Date, required: true } },
  { collection: 'processed_events', versionKey: false },
);
// Kafka redelivers within minutes or hours, never weeks: older markers are pruned.
processedSchema.index({ processed_at: 1 }, { expireAfterSeconds: 14 * 24 * 3600 });

/** An event read from Kafka, with the request id and trace context of the call that caused it. */
export interface ConsumedEvent {
  event: ReceivedEnvelope;
  requestId?: string;
  traceparent?: string;
}

/** The span attributes of an event (OpenTelemetry's messaging conventions, plus the event's own ids). */
export function eventAttributes(event: ReceivedEnvelope) {
  return {
    'messaging.system': 'kafka',
    'messaging.message.id': event.id,
    'agentplatform.event.type': event.type,
    'agentplatform.tenant.id': event.tenant_id,
  };
}

export interface BatchConsumerOptions {
  kafka: Kafka;
  topic: string;
  groupId: string;
  logger: Logger;
  /** Handles a slice of a Kafka batch; throwing makes kafkajs retry from the last handled slice. */
  handleBatch: (events: ConsumedEvent[]) => Promise<void>;
  /** Events handed over at once; a Kafka batch is cut into slices of this size (default: whole batches). */
  sliceSize?: number;
  /** Partitions whose batches are handled at the same time (kafkajs' partitionsConsumedConcurrently). */
  partitionsConcurrently?: number;
  /**
   * The service's database, where members record themselves so that a process restarted on the
   * same host takes over its dead predecessor's partitions at once (GroupMemberHandover).
   */
  members?: Connection;
}

/**
 * Consumes the events topic in slices and commits a slice's offsets only after `handleBatch` has
 * handled it, so a crash loses nothing; what it repeats, the handler must tolerate (either because
 * it is idempotent by itself, or through IdempotentConsumer's markers).
 */
export class BatchConsumer {
  private readonly consumer: Consumer;
  /** This member's partitions of the topic and the topic's partition count, once it has joined. */
  private assignment?: { partitions: ReadonlySet<number>; count: number };
  private readonly restarts: CrashRestarts;
  private readonly handover?: GroupMemberHandover;

  constructor(private readonly options: BatchConsumerOptions) {
    this.consumer = options.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: CONSUMER_GROUP_TIMING.sessionTimeout,
      heartbeatInterval: CONSUMER_GROUP_TIMING.heartbeatInterval,
      // Kafka's own consumer defaults: the broker answers a fetch as soon as one event is waiting,
      // or after 500 ms. A lone event adds no wait; under load events gather while the previous
      // fetch's batch is handled, so one fetch still serves many. An idle consumer fetches twice a
      // second: each empty fetch allocates about 55 KB (kafkajs walks every partition), and 20 a
      // second (the 50 ms wait this replaced) kept V8 from ever giving the young generation back
      // (docs/performance.md, "Idle memory: the consumers' empty fetches").
      minBytes: 1,
      maxWaitTimeInMs: 500,
      allowAutoTopicCreation: false,
      retry: { ...CONSUMER_GROUP_TIMING.retry },
    });
    this.restarts = restartAfterFatalCrash(this.consumer, options.logger);
    if (options.members)
      this.handover = new GroupMemberHandover({
        kafka: options.kafka,
        connection: options.members,
        groupId: options.groupId,
        logger: options.logger,
      });
  }

  /**
   * Whether the partition that messages with this key go to (a tenant id: events are keyed by
   * tenant) is one this consumer has; undefined while it is not a member of the group (not joined
   * yet, rebalancing after a crash, stopped).
   */
  ownsKey(key: string): boolean | undefined {
    const assignment = this.assignment;
    if (!assignment) return undefined;
    return assignment.partitions.has(partitionForKey(key, assignment.count));
  }

  private trackAssignment(): void {
    const { GROUP_JOIN, CRASH, STOP, DISCONNECT } = this.consumer.events;
    this.consumer.on(GROUP_JOIN, ({ payload }) => {
      const partitions = new Set(payload.memberAssignment[this.options.topic] ?? []);
      this.assignment = undefined;
      // The real partition count, not the configured one: a topic may have been given more.
      void this.partitionCount().then(
        (count) => (this.assignment = { partitions, count }),
        (error) => this.options.logger.warn({ err: error }, 'cannot read the topic partition count'),
      );
    });
    for (const event of [CRASH, STOP, DISCONNECT]) this.consumer.on(event, () => (this.assignment = undefined));
  }

  private async partitionCount(): Promise<number> {
    const admin = this.options.kafka.admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [this.options.topic] });
      return topics[0]!.partitions.length;
    } finally {
      await admin.disconnect();
    }
  }

  async start(): Promise<void> {
    const sliceSize = this.options.sliceSize ?? Number.MAX_SAFE_INTEGER;
    this.trackAssignment();
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.options.topic, fromBeginning: true });
    const runConfig: ConsumerRunConfig = {
      autoCommit: true,
      partitionsConsumedConcurrently: this.options.partitionsConcurrently ?? 1,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
        for (let i = 0; i < batch.messages.length; i += sliceSize) {
          if (!isRunning() || isStale()) return;
          const slice = batch.messages.slice(i, i + sliceSize);
          const events: ConsumedEvent[] = [];
          for (const message of slice) {
            const event = parseEnvelope(message.value);
            if (event)
              events.push({
                event,
                requestId: message.headers?.[EVENT_HEADERS.requestId]?.toString(),
                traceparent: message.headers?.[EVENT_HEADERS.traceparent]?.toString(),
              });
            else
              this.options.logger.warn(
                { offset: message.offset, partition: batch.partition },
                'skipping unreadable event',
              );
          }
          if (events.length > 0) await this.options.handleBatch(events);
          resolveOffset(slice[slice.length - 1]!.offset);
          await heartbeat();
        }
        await commitOffsetsIfNecessary();
      },
    };
    this.restarts.runWith(runConfig);
    await this.handover?.watch(this.consumer);
    await this.consumer.run(runConfig);
  }

  async stop(): Promise<void> {
    this.restarts.stop();
    await this.consumer.disconnect();
    await this.handover?.forget();
  }
}

export interface ConsumerOptions {
  kafka: Kafka;
  connection: Connection;
  topic: string;
  groupId: string;
  logger: Logger;
  /** Handles one event. Must itself tolerate a repeat: a crash between handling and marking repeats it. */
  handle: (event: ReceivedEnvelope) => Promise<void>;
  /** Events of one batch handled at once. */
  concurrency?: number;
  /** Partitions whose batches are handled at the same time (kafkajs' partitionsConsumedConcurrently). */
  partitionsConcurrently?: number;
}

/**
 * Consumes the events topic and hands each event to `handle` at most once per consumer group in
 * the normal case: handled event ids are recorded in the service's own database and skipped when
 * Kafka delivers them again (after a rebalance, a restart or a relay re-publish). Offsets are
 * committed only after the batch's events are handled and recorded, so a crash loses nothing.
 */
export class IdempotentConsumer {
  private readonly batches: BatchConsumer;
  private readonly processed: Model<ProcessedEvent>;
  private readonly concurrency: number;

  constructor(private readonly options: ConsumerOptions) {
    this.batches = new BatchConsumer({
      kafka: options.kafka,
      topic: options.topic,
      groupId: options.groupId,
      logger: options.logger,
      partitionsConcurrently: options.partitionsConcurrently,
      handleBatch: (events) => this.handleAll(events),
    });
    this.processed =
      (options.connection.models.ProcessedEvent as Model<ProcessedEvent>) ??
      options.connection.model('ProcessedEvent', processedSchema);
    this.concurrency = options.concurrency ?? 32;
  }

  async start(): Promise<void> {
    await this.processed.init();
    await this.batches.start();
  }

  async stop(): Promise<void> {
    await this.batches.stop();
  }

  private key(eventId: string): string {
    return `${this.options.groupId}:${eventId}`;
  }

  private async handleAll(events: ConsumedEvent[]): Promise<void> {
    const seen = new Set(
      (await this.processed.find({ _id: { $in: events.map((e) => this.key(e.event.id)) } }, { _id: 1 }).lean()).map(
        (doc) => doc._id,
      ),
    );
    const fresh = events.filter((e) => !seen.has(this.key(e.event.id)) && seen.add(this.key(e.event.id)));
    let failure: unknown;
    for (let i = 0; i < fresh.length; i += this.concurrency) {
      const slice = fresh.slice(i, i + this.concurrency);
      const results = await Promise.allSettled(
        slice.map(({ event, requestId, traceparent }) =>
          runWithContext({ requestId: requestId ?? event.id }, () =>
            traced(
              `consume ${event.type}`,
              {
                kind: SpanKind.CONSUMER,
                parent: contextFromTraceparent(traceparent),
                attributes: eventAttributes(event),
              },
              () => this.options.handle(event),
            ),
          ),
        ),
      );
      const done = slice.filter((_, index) => results[index].status === 'fulfilled');
      if (done.length > 0) {
        await this.processed
          .insertMany(
            done.map(({ event }) => ({ _id: this.key(event.id), processed_at: new Date() })),
            { ordered: false },
          )
          .catch((error: { code?: number; writeErrors?: unknown[] }) => {
            if (error.code !== 11000 && !error.writeErrors) throw error;
          });
      }
      const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (rejected) failure = rejected.reason;
      if (failure) break;
    }
    // kafkajs retries the batch; handled events are skipped the second time.
    if (failure) throw failure;
  }
}
