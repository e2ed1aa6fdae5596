import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server that counts calls per path and how many were in flight at once; each call
 * answers after `delayMs`, with 500 while the path is set to fail.
 */
export class CountingServer {
  readonly calls = new Map<string, number>();
  readonly failing = new Set<string>();
  inFlight = 0;
  maxInFlight = 0;
  delayMs = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<CountingServer> {
    const server = createServer();
    const self = new CountingServer(server);
    server.on('request', (req, res) => self.handle(req.url ?? '/', res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return self;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  count(path: string): number {
    return this.calls.get(path) ?? 0;
  }

  private handle(url: string, res: ServerResponse): void {
    const path = url.split('?')[0]!;
    this.calls.set(path, this.count(path) + 1);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    setTimeout(() => {
      this.inFlight--;
      const fail = this.failing.has(path);
      res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path, ok: !fail }));
    }, this.delayMs);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
