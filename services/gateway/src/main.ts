import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKafka } from '@agentplatform/events';
import {
  Lifecycle,
  Metrics,
  connectMongo,
  createLogger,
  schedulePruning,
  startTracing,
} from '@agentplatform/service-kit';
import { createApp } from './app.js';
import { connectBackends } from './clients/backends.js';
import { JwksCache } from './clients/jwks-cache.js';
import { RevocationFeed } from './clients/revocation-feed.js';
import { loadGatewayConfig } from './config.js';
import { IdentityAccessGuard } from './http/access-guard.js';
import { IdempotencyStore } from './middleware/idempotency.js';
import { AnonymousLimiter } from './http/anonymous-limit.js';
import { clientAddress } from './http/client-address.js';
import { KeyRateLimiter, TenantRateLimiter, pruneExpiredCounters } from './middleware/rate-limit.js';
import { apiRoutes, openAiRoutes } from './routes/index.js';

/** Documents one pruning batch deletes: small, so no delete holds a collection for long. */
const PRUNE_BATCH = 500;

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.handleSignals(config.EXIT_WITH_PARENT);
  // Before the gRPC clients and the app exist: they add their span layers only when it is on.
  const stopTracing = await startTracing('gateway', config, logger);
  if (stopTracing) lifecycle.onShutdown('tracing', stopTracing);
  const metrics = new Metrics('gateway');
  // Rate-limit counters and idempotency records are shared by every gateway replica through this database.
  const mongo = await connectMongo({ uri: config.MONGODB_URI, database: config.MONGODB_DATABASE, logger, metrics });
  lifecycle.onShutdown('mongodb', () => mongo.close());
  const backends = connectBackends(config, metrics);
  lifecycle.onShutdown('grpc clients', () => backends.close());

  const store = { client: mongo.getClient(), dbName: config.MONGODB_DATABASE };
  const idempotency = new IdempotencyStore(mongo, {
    ttlHours: config.IDEMPOTENCY_TTL_HOURS,
    box: config.DATA_ENCRYPTION_KEY,
  });
  await idempotency.init();
  schedulePruning(
    lifecycle,
    logger,
    'idempotency records and rate-limit counters',
    config.PRUNE_INTERVAL_MS,
    async () => {
      const now = new Date();
      const [records, counters] = await Promise.all([
        idempotency.prune(now, PRUNE_BATCH),
        pruneExpiredCounters(mongo, now, PRUNE_BATCH),
      ]);
      return records + counters;
    },
  );
  const addressLimiter = new KeyRateLimiter(store, 'address', config.AUTH_RATE_LIMIT_PER_MINUTE, 'from this address');
  const hookLimiter = new KeyRateLimiter(store, 'hook', config.HOOK_RATE_LIMIT_PER_MINUTE, "to this workflow's hook");
  // Bogus credentials and unknown hook ids draw from one budget per address.
  const anonymous = new AnonymousLimiter();
  const guard = new IdentityAccessGuard({
    anonymous,
    backends,
    jwks: new JwksCache(backends, logger),
    limiter: new TenantRateLimiter(store),
    cacheTtlMs: config.AUTH_CACHE_TTL_MS,
    operatorToken: config.OPERATOR_TOKEN,
  });
  // Credentials are cached only once identity's revocations reach this replica (docs/design.md section 4).
  guard.setLive(false);
  const kafka = createKafka({ brokers: config.KAFKA_BROKERS, clientId: config.KAFKA_CLIENT_ID ?? 'gateway', logger });
  const feedLive = metrics.gauge('gateway_access_feed_live', '1 while identity revocations reach this replica');
  const applied = metrics.counter('gateway_access_events_total', 'Access events (revocations) applied', ['type']);
  const revocations = new RevocationFeed(
    kafka,
    config.KAFKA_TOPIC,
    {
      revoke: (event) => {
        guard.revoke(event);
        applied.inc({ type: event.type });
      },
      setLive: (live) => {
        guard.setLive(live);
        feedLive.set(live ? 1 : 0);
      },
    },
    logger,
  );
  revocations.start();
  lifecycle.onShutdown('access events', () => revocations.stop());

  const app = createApp({
    config,
    logger,
    metrics,
    backends,
    routes: apiRoutes({ backends, config, logger, revocations: guard, profiles: guard }),
    openAiRoutes: openAiRoutes({ backends, config, logger }),
    guards: {
      access: guard,
      idempotency: idempotency.handle,
      addressLimit: (ctx, bucket) => addressLimiter.consume(ctx, `${bucket}:${clientAddress(ctx)}`),
    },
    mcpIdempotency: idempotency.once,
    hookLimit: (ctx, hookId) => hookLimiter.consume(ctx, hookId),
    anonymous,
  });
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const metricsServer = await metrics.serve(config.METRICS_PORT);
  lifecycle.onShutdown('metrics', () => metricsServer.close());
  lifecycle.onShutdown(
    'http',
    () =>
      new Promise<void>((resolve) => {
        // Stop accepting, let in-flight requests finish, then drop idle keep-alive sockets.
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  );
  const port = (server.address() as AddressInfo).port;
  // Supervisors (`npm start`, tests, bench) wait for this line, so it is written whatever LOG_LEVEL says.
  logger
    .child({}, { level: 'info' })
    .info({ event: 'ready', http_port: port, metrics_port: metricsServer.port }, 'ready');
}

main().catch((error) => {
  // The logger may not exist yet (bad configuration): write a plain line and exit non-zero.
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
