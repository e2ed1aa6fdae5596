import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One Prometheus registry per process, with Node's default metrics and the RPC histogram. */
export class Metrics {
  readonly registry = new Registry();
  readonly grpcServerDuration: Histogram<'method' | 'code'>;
  readonly grpcClientDuration: Histogram<'method' | 'code'>;
  readonly errors: Counter<'kind'>;

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    this.grpcServerDuration = this.rpcHistogram('grpc_server_handling_seconds', 'gRPC calls handled');
    this.grpcClientDuration = this.rpcHistogram('grpc_client_handling_seconds', 'gRPC calls made');
    this.errors = new Counter({
      name: 'internal_errors_total',
      help: 'Unexpected errors answered as internal_error',
      labelNames: ['kind'],
      registers: [this.registry],
    });
  }

  /** A histogram of gRPC call durations, by method and status code, from 1 ms to 10 s. */
  private rpcHistogram(name: string, help: string): Histogram<'method' | 'code'> {
    return new Histogram({
      name,
      help: `${help}, by method and status code`,
      labelNames: ['method', 'code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [this.registry],
    });
  }

  /** A service's own counter in this registry (e.g. identity's password checks). */
  counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A service's own gauge in this registry. */
  gauge(name: string, help: string): Gauge {
    return new Gauge({ name, help, registers: [this.registry] });
  }

  /** Serves `GET /metrics` on its own port (0 picks a free one; kept off the public port). */
  async serve(port: number, host = '0.0.0.0'): Promise<{ port: number; close(): Promise<void> }> {
    const server: Server = createServer((req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    return {
      port: (server.address() as AddressInfo).port,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }
}
