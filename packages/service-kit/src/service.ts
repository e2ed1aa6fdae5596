import type { Server } from 'nice-grpc';
import type { HealthState } from 'nice-grpc-server-health';
import { createGrpcServer } from './grpc-server.js';
import { Lifecycle } from './lifecycle.js';
import { createLogger, type Logger } from './logger.js';
import { Metrics } from './metrics.js';
import { buildIndexes, connectMongo, isMongoReady, type Connection } from './mongo.js';
import { startTracing, type TracingConfig } from './tracing.js';

export interface BaseServiceConfig extends TracingConfig {
  LOG_LEVEL: string;
  GRPC_HOST: string;
  GRPC_PORT: number;
  METRICS_PORT: number;
  MONGODB_URI: string;
  MONGODB_DATABASE: string;
  SHUTDOWN_TIMEOUT_MS: number;
  EXIT_WITH_PARENT: boolean;
  GRPC_MAX_IN_FLIGHT: number;
}

/** What every gRPC service has once booted: its logger, metrics, database, server and lifecycle. */
export interface ServiceRuntime {
  name: string;
  logger: Logger;
  metrics: Metrics;
  mongo: Connection;
  server: Server;
  health: HealthState;
  lifecycle: Lifecycle;
}

/**
 * Boots the parts every service shares, in order: logger -> metrics -> MongoDB -> gRPC server
 * (health registered, not yet listening). The service then adds its own gRPC implementation,
 * Kafka producer or consumer, and calls `serve`.
 */
export async function bootService(name: string, config: BaseServiceConfig): Promise<ServiceRuntime> {
  const logger = createLogger(name, config.LOG_LEVEL);
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.handleSignals(config.EXIT_WITH_PARENT);
  // Before the gRPC server and clients exist: they add their span middleware only when it is on.
  // Registered first, so it closes last and flushes the spans of the work drained before it.
  const stopTracing = await startTracing(name, config, logger);
  if (stopTracing) lifecycle.onShutdown('tracing', stopTracing);
  const metrics = new Metrics(name);
  const mongo = await connectMongo({ uri: config.MONGODB_URI, database: config.MONGODB_DATABASE, logger, metrics });
  lifecycle.onShutdown('mongodb', () => mongo.close());
  const { server, health } = createGrpcServer({ logger, metrics, maxInFlight: config.GRPC_MAX_IN_FLIGHT });
  return { name, logger, metrics, mongo, server, health, lifecycle };
}

/**
 * Builds the indexes of every model the service has compiled, then starts listening, reports
 * healthy while the database is reachable, and logs one `ready` line carrying the bound ports
 * (the test harness and `npm start` wait for it).
 */
export async function serve(runtime: ServiceRuntime, config: BaseServiceConfig): Promise<{ grpcPort: number }> {
  const { server, health, mongo, logger, lifecycle, metrics } = runtime;
  await buildIndexes(mongo);
  const grpcPort = await server.listen(`${config.GRPC_HOST}:${config.GRPC_PORT}`);
  const metricsServer = await metrics.serve(config.METRICS_PORT);
  lifecycle.onShutdown('metrics', () => metricsServer.close());
  lifecycle.onShutdown('grpc', async () => {
    health.setStatus('unhealthy');
    await server.shutdown();
  });

  const update = () => health.setStatus(isMongoReady(mongo) ? 'healthy' : 'unhealthy');
  update();
  mongo.on('disconnected', update);
  mongo.on('connected', update);
  mongo.on('reconnected', update);

  // Supervisors (`npm start`, tests, bench) wait for this line, so it is written whatever LOG_LEVEL says.
  logger
    .child({}, { level: 'info' })
    .info({ event: 'ready', grpc_port: grpcPort, metrics_port: metricsServer.port }, 'ready');
  return { grpcPort };
}
