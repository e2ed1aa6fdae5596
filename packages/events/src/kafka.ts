import { Kafka, logLevel, Partitioners, type LogEntry, type Admin } from 'kafkajs';
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
