import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { callHttp, HttpCallError } from './outbound-http.js';
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
});
