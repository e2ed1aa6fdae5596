import type { Kafka } from 'kafkajs';
import type { ServiceRuntime } from '@agentplatform/service-kit';
import { BatchConsumer, type ConsumedEvent } from './consumer.js';
import { accessTopicOf } from './access-events.js';
import { DEAD_LETTER_PRUNE_INTERVAL_MS, DeadLetters } from './dead-letters.js';
import { createKafka, ensureTopic } from './kafka.js';
import { Outbox } from './outbox.js';
import { OutboxRelay } from './relay.js';

/** The Kafka variables (see `kafkaEnvShape` in service-kit). */
export interface KafkaConfig {
  KAFKA_BROKERS: string[];
  KAFKA_CLIENT_ID?: string;
  KAFKA_TOPIC: string;
  KAFKA_TOPIC_PARTITIONS: number;
}

/** The outbox's variables (see `outboxEnvShape` in service-kit). */
export interface OutboxConfig {
  OUTBOX_DEAD_LETTER_RETENTION_DAYS: number;
}

/**
 * Makes sure the topic exists without holding up start-up: a service must come up and take
 * requests while Kafka is down (its events wait in the outbox).
 */
export function ensureTopicInBackground(
  runtime: Pick<ServiceRuntime, 'logger'>,
  kafka: Kafka,
  config: Pick<KafkaConfig, 'KAFKA_TOPIC' | 'KAFKA_TOPIC_PARTITIONS'>,
): Promise<void> {
  return new Promise((resolve) => {
    let delay = 250;
    let warned = false;
    const attempt = () =>
      ensureTopic(kafka, config.KAFKA_TOPIC, config.KAFKA_TOPIC_PARTITIONS).then(resolve, (error) => {
        if (!warned)
          runtime.logger.warn({ err: error, topic: config.KAFKA_TOPIC }, 'kafka not reachable yet; retrying');
        warned = true;
        delay = Math.min(delay * 2, 5_000);
        setTimeout(attempt, delay).unref();
      });
    void attempt();
  });
}

function kafkaFor(runtime: ServiceRuntime, config: KafkaConfig): Kafka {
  return createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: config.KAFKA_CLIENT_ID ?? runtime.name,
    logger: runtime.logger,
  });
}

/**
 * Opens the service's outbox and starts relaying it to Kafka, and pruning its expired dead letters;
 * stops both on shutdown.
 */
export async function startOutbox(runtime: ServiceRuntime, config: KafkaConfig & OutboxConfig): Promise<Outbox> {
  const kafka = kafkaFor(runtime, config);
  const outbox = await Outbox.open(runtime.mongo);
  const deadLetters = await DeadLetters.open(runtime.mongo);
  const accessTopic = accessTopicOf(config.KAFKA_TOPIC);
  const relay = new OutboxRelay({
    outbox,
    deadLetters,
    deadLetterCounter: runtime.metrics.counter(
      'outbox_dead_letters_total',
      'Outbox records moved to the dead letters, by reason (too_large, rejected, attempts)',
      ['reason'],
    ),
    kafka,
    topic: config.KAFKA_TOPIC,
    accessTopic,
    logger: runtime.logger,
  });
  startDeadLetterPruning(runtime, deadLetters, config.OUTBOX_DEAD_LETTER_RETENTION_DAYS);
  void ensureTopicInBackground(runtime, kafka, config);
  // Few events, read whole by every gateway replica: one partition keeps them in order.
  void ensureTopicInBackground(runtime, kafka, { KAFKA_TOPIC: accessTopic, KAFKA_TOPIC_PARTITIONS: 1 });
  relay.start();
  runtime.lifecycle.onShutdown('outbox relay', () => relay.stop());
  runtime.logger.info({ transactional: outbox.transactional }, 'outbox ready');
  return outbox;
}

/**
 * Deletes dead letters older than the retention, hourly, on every replica (deletes by id are
 * idempotent). A prune by index rather than a TTL index: the local stand-in has no TTL monitor.
 */
function startDeadLetterPruning(runtime: ServiceRuntime, deadLetters: DeadLetters, retentionDays: number): void {
  let running: Promise<void> | undefined;
  const tick = () => {
    const before = new Date(Date.now() - retentionDays * 24 * 3600_000);
    running = deadLetters.prune(before).then(
      (deleted) => {
        if (deleted > 0) runtime.logger.info({ deleted, retention_days: retentionDays }, 'pruned old dead letters');
      },
      (error) => runtime.logger.warn({ err: error }, 'dead-letter pruning failed'),
    );
  };
  const first = setTimeout(tick, 5_000);
  first.unref();
  const timer = setInterval(tick, DEAD_LETTER_PRUNE_INTERVAL_MS);
  timer.unref();
  runtime.lifecycle.onShutdown('dead-letter pruning', async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  });
}

/**
 * Starts a consumer of the events topic in the background, once the topic exists, that hands
 * slices of `concurrency` events to `handleBatch`; stops it on shutdown. The handler must be
 * idempotent by itself (a crash repeats the slice it was handling); one that is not can wrap its
 * work in an IdempotentConsumer instead, whose per-event markers cost a read and a write each.
 */
export function startBatchConsumer(
  runtime: ServiceRuntime,
  config: KafkaConfig & { groupId: string; concurrency?: number; partitionsConcurrently?: number },
  handleBatch: (events: ConsumedEvent[]) => Promise<void>,
): BatchConsumer {
  const kafka = kafkaFor(runtime, config);
  const consumer = new BatchConsumer({
    kafka,
    topic: config.KAFKA_TOPIC,
    groupId: config.groupId,
    logger: runtime.logger,
    handleBatch,
    sliceSize: config.concurrency,
    partitionsConcurrently: config.partitionsConcurrently,
    members: runtime.mongo,
  });
  let stopped = false;
  const begin = async (): Promise<void> => {
    await ensureTopicInBackground(runtime, kafka, config);
    if (stopped) return;
    await consumer.start();
    runtime.logger.info({ topic: config.KAFKA_TOPIC, group: config.groupId }, 'consuming events');
  };
  begin().catch((error) => {
    runtime.logger.error({ err: error }, 'event consumer failed to start');
    process.kill(process.pid, 'SIGTERM');
  });
  runtime.lifecycle.onShutdown('event consumer', async () => {
    stopped = true;
    await consumer.stop();
  });
  return consumer;
}
