import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Lifecycle, Metrics, createLogger } from '@agentplatform/service-kit';
import { createApp } from './app.js';
import { connectBackends } from './clients/backends.js';
import { loadGatewayConfig } from './config.js';
import { apiRoutes } from './routes/index.js';
import { publicOnlyGuard } from './http/public-only-guard.js';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.handleSignals(config.EXIT_WITH_PARENT);
  const metrics = new Metrics('gateway');
  const backends = connectBackends(config, metrics);
  lifecycle.onShutdown('grpc clients', () => backends.close());

  const app = createApp({ config, logger, metrics, backends, routes: apiRoutes({ backends, config, logger }), hooks: { guard: publicOnlyGuard } });
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const metricsServer = await metrics.serve(config.METRICS_PORT);
  lifecycle.onShutdown('metrics', () => metricsServer.close());
  lifecycle.onShutdown('http', () => new Promise<void>((resolve) => {
    // Stop accepting, let in-flight requests finish, then drop idle keep-alive sockets.
    server.close(() => resolve());
    server.closeIdleConnections();
  }));
  const port = (server.address() as AddressInfo).port;
  logger.info({ event: 'ready', http_port: port, metrics_port: metricsServer.port }, 'ready');
}

main().catch((error) => {
  // The logger may not exist yet (bad configuration): write a plain line and exit non-zero.
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
