import {
  dataEncryptionKeyEnv,
  env,
  EnvVar,
  kafkaEnvShape,
  loadConfig,
  serviceEnvShape,
  outboundEnvShape,
} from '@agentplatform/service-kit';

/** Delays before attempts 1..n in milliseconds; the number of entries is the number of attempts. */
const retrySchedule = new EnvVar((value) => {
  const delays = value.split(',').map((part) => Number(part.trim()));
  if (delays.length === 0 || delays.some((d) => !Number.isInteger(d) || d < 0))
    throw new Error('must be comma-separated non-negative integers (milliseconds)');
  return delays;
}, '0,60000,300000,1800000,7200000');

export const configShape = {
  ...serviceEnvShape({ grpcPort: 50054, metricsPort: 9464, database: 'webhook' }),
  ...kafkaEnvShape,
  KAFKA_CONSUMER_GROUP: env.string('webhook-dispatcher'),
  ...outboundEnvShape,
  WEBHOOK_RETRY_SCHEDULE_MS: retrySchedule,
  /** A delivery succeeds with a 2xx answer within this time. */
  WEBHOOK_TIMEOUT_MS: env.int(10_000, 100),
  /** How long a replica owns a delivery it is sending; must exceed the timeout by a wide margin. */
  WEBHOOK_LEASE_MS: env.int(60_000, 1_000),
  /** How often each replica looks for retries that have come due. */
  WEBHOOK_POLL_INTERVAL_MS: env.int(1_000, 10),
  /** Requests in flight per replica. */
  WEBHOOK_SEND_CONCURRENCY: env.int(256, 1),
  /** Requests in flight for one tenant (fair delivery, DESIGN section 8). */
  WEBHOOK_TENANT_CONCURRENCY: env.int(16, 1),
  /** Requests in flight to one destination, all tenants together, at the least (fast ones earn more). */
  WEBHOOK_HOST_CONCURRENCY: env.int(8, 1),
  /** Keep-alive connections per receiving origin. */
  WEBHOOK_CONNECTIONS_PER_ORIGIN: env.int(64, 1),
  /** Encrypts the signing secrets at rest (docs/security.md); required. */
  DATA_ENCRYPTION_KEY: dataEncryptionKeyEnv(),
  /** How long a rotated-out secret keeps signing. */
  WEBHOOK_ROTATION_GRACE_MS: env.int(24 * 3600 * 1000, 0),
  /** Finished deliveries (with their attempt logs) and stored events are deleted after this many days. */
  WEBHOOK_DELIVERY_RETENTION_DAYS: env.positive(30),
  /** How often each replica prunes what is past retention. */
  PRUNE_INTERVAL_MS: env.int(60 * 60_000, 100),
  /** Events handled at once by the Kafka consumer. */
  WEBHOOK_CONSUMER_CONCURRENCY: env.int(256, 1),
};

export type Config = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configShape, source);
}
