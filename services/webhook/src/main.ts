import { startBatchConsumer, type BatchConsumer } from '@agentplatform/events';
import { webhookV1 } from '@agentplatform/contracts/webhook-v1';
import { bootService, buildIndexes, QuotaCounter, schedulePruning, serve } from '@agentplatform/service-kit';
import { loadServiceConfig } from './config.js';
import { Dispatcher } from './delivery/dispatcher.js';
import { HttpSender } from './delivery/http-sender.js';
import { createEventHandler } from './events/event-handler.js';
import { DeliveryRepository } from './persistence/delivery.repository.js';
import { EventRepository } from './persistence/event.repository.js';
import { WebhookRepository } from './persistence/webhook.repository.js';
import { webhookGrpcService } from './transport/webhook.grpc.js';

/** Documents one pruning batch deletes: small, so no delete holds a collection for long. */
const PRUNE_BATCH = 500;

/** config -> mongo -> dispatcher -> grpc server -> kafka consumer -> graceful shutdown */
async function main(): Promise<void> {
  const config = loadServiceConfig();
  const runtime = await bootService('webhook', config);
  const events = new EventRepository(runtime.mongo);
  const webhooks = new WebhookRepository(runtime.mongo, config.DATA_ENCRYPTION_KEY);
  const deliveries = new DeliveryRepository(runtime.mongo);
  await buildIndexes(runtime.mongo);
  const backfilled = await deliveries.addMissingDueEntries();
  if (backfilled > 0) runtime.logger.info({ pending: backfilled }, 'due entries checked for pending deliveries');
  // Before serving: secrets stored in plaintext by older releases, or under a retired data key.
  const resealed = await webhooks.resealSecrets();
  if (resealed > 0) runtime.logger.info({ resealed }, 're-encrypted webhook signing secrets');

  const sender = new HttpSender({
    allowPrivate: config.ALLOW_PRIVATE_URLS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    connectionsPerOrigin: config.WEBHOOK_CONNECTIONS_PER_ORIGIN,
    userAgent: 'AgentPlatform-Webhooks/1.0',
  });
  // Started last (below), once the dispatcher and the API are up.
  const kafka: { consumer?: BatchConsumer } = {};
  const dispatcher = new Dispatcher(
    {
      deliveries,
      webhooks,
      sender,
      logger: runtime.logger,
      // Due work of the tenants whose partitions this replica consumes; of every tenant while its
      // consumer is not in the group (not joined yet, or lost it): retries never wait for Kafka.
      ownsTenant: (tenantId) => kafka.consumer?.ownsKey(tenantId) ?? true,
    },
    {
      schedule: config.WEBHOOK_RETRY_SCHEDULE_MS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      leaseMs: config.WEBHOOK_LEASE_MS,
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      concurrency: config.WEBHOOK_SEND_CONCURRENCY,
      tenantConcurrency: config.WEBHOOK_TENANT_CONCURRENCY,
      hostConcurrency: config.WEBHOOK_HOST_CONCURRENCY,
    },
  );
  // Closers run in reverse: the consumer stops first, then the dispatcher drains, then the sockets close.
  runtime.lifecycle.onShutdown('http sender', () => sender.close());
  runtime.lifecycle.onShutdown('dispatcher', () => dispatcher.stop());
  dispatcher.start();

  const deps = {
    webhooks,
    deliveries,
    events,
    dispatcher,
    quotas: new QuotaCounter(runtime.mongo),
    settings: {
      allowPrivateUrls: config.ALLOW_PRIVATE_URLS,
      rotationGraceMs: config.WEBHOOK_ROTATION_GRACE_MS,
      leaseMs: config.WEBHOOK_LEASE_MS,
    },
  };
  runtime.server.add(webhookV1.WebhookServiceDefinition, webhookGrpcService(deps));
  const retentionMs = config.WEBHOOK_DELIVERY_RETENTION_DAYS * 24 * 3600 * 1000;
  schedulePruning(runtime.lifecycle, runtime.logger, 'deliveries', config.PRUNE_INTERVAL_MS, async () => {
    const cutoff = new Date(Date.now() - retentionMs);
    const [finished, batches] = await Promise.all([
      deliveries.pruneFinishedBefore(cutoff, PRUNE_BATCH),
      events.pruneBefore(cutoff, PRUNE_BATCH),
    ]);
    return finished + batches;
  });
  await serve(runtime, config);
  const handleEvents = createEventHandler({
    events,
    webhooks,
    deliveries,
    admission: dispatcher.admission,
    logger: runtime.logger,
    leaseMs: config.WEBHOOK_LEASE_MS,
  });
  // No per-event markers: a delivery's _id is derived from (webhook, event), so an event handled
  // again creates, and therefore sends, nothing new.
  kafka.consumer = startBatchConsumer(
    runtime,
    {
      ...config,
      groupId: config.KAFKA_CONSUMER_GROUP,
      concurrency: config.WEBHOOK_CONSUMER_CONCURRENCY,
      // Batches of several partitions handled together share one round of database writes.
      partitionsConcurrently: config.KAFKA_TOPIC_PARTITIONS,
    },
    handleEvents,
  );
}

main().catch((error) => {
  process.stderr.write(`webhook failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
