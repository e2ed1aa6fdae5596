import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { callHttp, exchange, HttpCallError, OutboundTimeoutError } from './outbound-http.js';
import { createGuardedAgent } from './outbound-guard.js';

/** The http integration through the SSRF-guarded agent, against a real local server. */
describe('http integration and the SSRF guard', () => {
  describe('against a local server', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const call = (url: string, allowPrivate: boolean) =>
      callHttp(
        { method: 'GET', url, headers: {}, timeoutMs: 2_000, signal: new AbortController().signal },
        createGuardedAgent({ allowPrivate }),
      );

    it('refuses an IP literal on loopback', async () => {
      await expect(call(`http://127.0.0.1:${port}/`, false)).rejects.toThrow(
        /refused: the destination 127\.0\.0\.1 is not allowed/,
      );
    });

    it('refuses a name that resolves to a private address, checked at connect time', async () => {
      // The machine's own name resolves to a loopback or private address, never to a public one.
      const error = await call(`http://${hostname()}:${port}/`, false).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpCallError);
      expect((error as HttpCallError).message).toContain(`refused: the destination ${hostname()} is not allowed`);
      expect((error as HttpCallError).message).not.toMatch(/resolves to|127\.0\.|::1/);
      expect((error as HttpCallError).retryable).toBe(false);
    });

    it('allows it when private URLs are allowed', async () => {
      await expect(call(`http://127.0.0.1:${port}/`, true)).resolves.toEqual(
        expect.objectContaining({ status: 200, body: { ok: true } }),
      );
    });
  });

  describe('exchange: the one outbound client', () => {
    let server: Server;
    let origin: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === '/big') return void res.writeHead(200, { 'x-two': ['a', 'b'] }).end('x'.repeat(100_000));
        if (req.url === '/slow') return void setTimeout(() => res.writeHead(200).end('late'), 2_000);
        res.writeHead(201, { 'content-type': 'text/plain' }).end('made');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const agent = createGuardedAgent({ allowPrivate: true, connections: 2 });
    const send = (path: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
      exchange(agent, {
        origin,
        path,
        method: 'POST',
        headers: {},
        body: '{}',
        timeoutMs: extra.timeoutMs ?? 1_000,
        maxBodyBytes: 4096,
        signal: extra.signal,
      });

    it('answers the status, headers and body, with the time to the answer', async () => {
      const answer = await send('/');
      expect(answer).toMatchObject({ status: 201, headers: expect.objectContaining({ 'content-type': 'text/plain' }) });
      expect(answer.body.toString()).toBe('made');
      expect(answer.durationMs).toBeGreaterThanOrEqual(0);
    });

    it('keeps only the first bytes of a large body, and joins repeated headers', async () => {
      const answer = await send('/big');
      expect(answer.body).toHaveLength(4096);
      expect(answer.headers['x-two']).toBe('a, b');
    });

    it("gives up at its time limit, and on the caller's abort", async () => {
      await expect(send('/slow', { timeoutMs: 200 })).rejects.toBeInstanceOf(OutboundTimeoutError);
      const aborted = new AbortController();
      const pending = send('/slow', { signal: aborted.signal });
      aborted.abort(new Error('run cancelled'));
      await expect(pending).rejects.toThrow('run cancelled');
    });
  });
});
