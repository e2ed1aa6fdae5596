import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait.js';

/** One request as a webhook receiver saw it: the raw body, exactly as sent. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

/** How the receiver answers one request. */
export interface ReceiverReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Waits this long before answering (a slow or hanging endpoint). */
  delayMs?: number;
}

/** Chooses the reply to a request; `index` counts earlier requests to the same path (from 0). */
export type ReplyPlan = (request: ReceivedRequest, index: number) => ReceiverReply;

/**
 * A real HTTP server on a free port that records every request and answers as told: a fixed
 * status, a sequence of statuses, delays, headers (Retry-After) or a function of the request.
 * Tests point webhooks at it and assert what arrived.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  // The same requests by path: a reply plan's index and `to()` must not scan every request ever
  // received, which made a benchmark receiver's cost grow with the square of its requests.
  private readonly byPath = new Map<string, ReceivedRequest[]>();
  private plan: ReplyPlan = () => ({ status: 200, body: 'ok' });
  private readonly routes = new Map<string, ReplyPlan>();
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly host: string,
  ) {}

  static async start(host = '127.0.0.1'): Promise<Receiver> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, resolve);
    });
    const receiver = new Receiver(server, (server.address() as AddressInfo).port, host);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => receiver.handle(req, res));
    server.on('connection', (socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    return receiver;
  }

  /** The URL of a path on this receiver (`hostname` lets a test use `localhost` instead of the IP). */
  url(path = '/hook', hostname = this.host): string {
    return `http://${hostname}:${this.port}${path}`;
  }

  /** Answers every request to a path without its own plan with this reply. */
  reply(reply: ReceiverReply | ReplyPlan): this {
    this.plan = typeof reply === 'function' ? reply : () => reply;
    return this;
  }

  /** Answers requests to one path with this reply or plan. */
  on(path: string, reply: ReceiverReply | ReplyPlan): this {
    this.routes.set(path, typeof reply === 'function' ? reply : () => reply);
    return this;
  }

  /** A plan answering the n-th request to a path with `statuses[n]`, and the last status after that. */
  static sequence(statuses: readonly number[], extra: Omit<ReceiverReply, 'status'> = {}): ReplyPlan {
    return (_request, index) => ({ body: 'ok', ...extra, status: statuses[Math.min(index, statuses.length - 1)] });
  }

  /** Requests to one path. */
  to(path: string): ReceivedRequest[] {
    return [...(this.byPath.get(path) ?? [])];
  }

  /** Waits until at least `count` requests (to `path`, when given) have arrived. */
  async waitForRequests(
    count: number,
    options: { path?: string; timeoutMs?: number } = {},
  ): Promise<ReceivedRequest[]> {
    return waitFor(
      () => {
        const seen = options.path ? this.to(options.path) : this.requests;
        return seen.length >= count ? seen : undefined;
      },
      {
        timeoutMs: options.timeoutMs ?? 15_000,
        intervalMs: 20,
        what: `${count} request(s)${options.path ? ` to ${options.path}` : ''}`,
      },
    );
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** `close()` by the name `suiteFixture` stops a value with: `suiteFixture(() => Receiver.start())`. */
  stop(): Promise<void> {
    return this.close();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const request: ReceivedRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0],
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      let samePath = this.byPath.get(request.path);
      if (!samePath) this.byPath.set(request.path, (samePath = []));
      const index = samePath.length;
      samePath.push(request);
      this.requests.push(request);
      const reply = (this.routes.get(request.path) ?? this.plan)(request, index);
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  }
}
