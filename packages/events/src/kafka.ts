import {
  Kafka,
  logLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type ConsumerRunConfig,
  type LogEntry,
} from 'kafkajs';
import type { Logger } from '@agentplatform/service-kit';
import { fixKafkajsIdleLoop } from './kafkajs-idle-fix.js';

export interface KafkaOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** A kafkajs client whose logs go through the service's logger. */
export function createKafka({ brokers, clientId, logger }: KafkaOptions): Kafka {
  fixKafkajsIdleLoop();
  const log = logger.child({ component: 'kafka' });
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 200, maxRetryTime: 5_000, retries: 5 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }: LogEntry) => {
        const { message, timestamp: _timestamp, logger: _name, ...rest } = entry;
        // A broker outage is reported once by the relay; kafkajs' per-retry errors are noise.
        log[LEVELS[level] === 'error' ? 'warn' : (LEVELS[level] ?? 'info')](rest, message);
      },
  });
}

/**
 * Group membership timing for every consumer (docs/performance.md, "Consumer groups").
 *
 * A member that dies without leaving (SIGKILL, a crashed node, a broker restart that loses the
 * connection) keeps its partitions until its session times out: kafkajs has no static membership,
 * so the process that replaces it joins as a new member and the whole group waits for the dead
 * one. 6 s is the broker's smallest allowed session (`group.min.session.timeout.ms`, 6,000 by
 * default), so the wait after a crash is at most that, measured from the crash; a heartbeat every
 * second gives the live members five chances within it. Consumers heartbeat between slices of a
 * batch, so a handler slice must take well under 6 s (deliveries are sent outside the consumer).
 *
 * `retry` bounds the wait between attempts to reach the broker again after an outage (kafkajs
 * backs off exponentially up to `maxRetryTime`, then restarts the consumer): at most ~1 s after
 * the broker is back, instead of up to 5 s.
 */
export const CONSUMER_GROUP_TIMING = {
  sessionTimeout: 6_000,
  heartbeatInterval: 1_000,
  retry: { initialRetryTime: 300, maxRetryTime: 1_000, retries: Number.MAX_SAFE_INTEGER },
} as const;

export interface CrashRestarts {
  /** The run configuration to start the consumer again with (the one last given to `run`). */
  runWith(config: ConsumerRunConfig): void;
  /** The consumer is being stopped on purpose: no restart from now on. */
  stop(): void;
}

/**
 * kafkajs gives up for good on an error it deems not retriable, even when the cause is a broker
 * that is away: "Failed to find group coordinator" during a broker outage leaves the consumer
 * stopped (its CRASH event says `restart: false`) and, without this, nothing is consumed again
 * until the process restarts. This starts such a consumer again, every second until it runs,
 * until `stop()`.
 */
export function restartAfterFatalCrash(consumer: Consumer, logger: Logger): CrashRestarts {
  let config: ConsumerRunConfig | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = async () => {
    if (stopped) return;
    try {
      await consumer.connect();
      await consumer.run(config);
    } catch (error) {
      logger.warn({ err: error }, 'restarting the kafka consumer failed; trying again');
      timer = setTimeout(() => void attempt(), CONSUMER_GROUP_TIMING.retry.maxRetryTime);
    }
  };
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart || stopped || !config) return;
    logger.warn({ err: payload.error }, 'kafka consumer stopped on an error kafkajs does not retry; restarting it');
    clearTimeout(timer);
    timer = setTimeout(() => void attempt(), CONSUMER_GROUP_TIMING.retry.initialRetryTime);
  });
  return {
    runWith: (runConfig) => (config = runConfig),
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Creates the topic if it is missing; a topic that exists is left as it is. */
export async function ensureTopic(kafka: Kafka, topic: string, partitions: number): Promise<void> {
  const admin: Admin = kafka.admin();
  await admin.connect();
  try {
    const existing = await admin.listTopics();
    if (!existing.includes(topic)) {
      await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
    }
  } finally {
    await admin.disconnect();
  }
}

const keyPartitioner = Partitioners.DefaultPartitioner();

/**
 * The partition a message with this key goes to on a topic of `partitionCount` partitions, by the
 * partitioner the outbox relay produces with (Java-compatible murmur2): events are keyed by tenant,
 * so this says which partition, and therefore which consumer, a tenant's events belong to.
 */
export function partitionForKey(key: string, partitionCount: number): number {
  return keyPartitioner({
    topic: '',
    partitionMetadata: Array.from({ length: partitionCount }, (_, partitionId) => ({
      partitionId,
      partitionErrorCode: 0,
      leader: 0,
      replicas: [0],
      isr: [0],
    })),
    message: { key, value: null },
  });
}
