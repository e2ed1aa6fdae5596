import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGuardedAgent } from '@agentplatform/service-kit';
import { boundedMcpFetch, McpLimitError } from './mcp-fetch.js';

/** A server whose answer to each POST the test writes (`answer(res)`). */
async function serve(answer: (res: ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe('boundedMcpFetch', () => {
  const dispatcher = createGuardedAgent({ allowPrivate: true });
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });
  afterAll(() => dispatcher.close());

  const fetchWith = (bounds = { messageBytes: 100, exchangeMs: 2_000 }) => {
    const breaches: McpLimitError[] = [];
    return { breaches, fetch: boundedMcpFetch(dispatcher, bounds, (e) => breaches.push(e)) };
  };
  const post = async (answer: (res: ServerResponse) => void, bounds?: { messageBytes: number; exchangeMs: number }) => {
    const { url, server } = await serve(answer);
    servers.push(server);
    const { fetch, breaches } = fetchWith(bounds);
    const response = await fetch(url, { method: 'POST', body: '{}' });
    return { response, breaches };
  };

  it('passes an SSE stream of many small events, whatever its total size, with CRLF or LF line ends', async () => {
    const event = (i: number) => `event: message\r\ndata: ${'y'.repeat(60)}${i}\r\n\r\n`;
    const { response, breaches } = await post((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // 50 events of about 80 bytes each: 4 KB in all, each event under the 100-byte limit.
      res.end(Array.from({ length: 50 }, (_, i) => event(i)).join('') + 'data: last\n\n');
    });
    const text = await response.text();
    expect(text.endsWith('data: last\n\n')).toBe(true);
    expect(breaches).toEqual([]);
  });

  it('ends an SSE answer at the first event longer than the limit, even if its lines are short', async () => {
    const { response, breaches } = await post((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: ok\n\n');
      // Three 40-byte lines of one event: 120 bytes without a blank line between them.
      for (let i = 0; i < 3; i++) res.write(`data: ${'z'.repeat(34)}\n`);
    });
    await expect(response.text()).rejects.toThrow('an event of its answer stream is larger than 100 bytes');
    expect(breaches).toHaveLength(1);
  });

  it('ends a JSON answer past the limit, and refuses one whose Content-Length is past it', async () => {
    const streamed = await post((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":"');
      res.write('x'.repeat(200));
    });
    await expect(streamed.response.json()).rejects.toThrow('its answer is larger than 100 bytes');

    const { url, server } = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.end('x'.repeat(1000));
    });
    servers.push(server);
    const { fetch, breaches } = fetchWith();
    await expect(fetch(url, { method: 'POST' })).rejects.toBeInstanceOf(McpLimitError);
    expect(breaches).toHaveLength(1);
  });

  it('bounds the total time of an exchange, reading its answer included', async () => {
    const started = Date.now();
    const { response, breaches } = await post(
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 20);
        res.on('close', () => clearInterval(timer));
      },
      { messageBytes: 1_000_000, exchangeMs: 300 },
    );
    await expect(response.text()).rejects.toThrow('it did not answer within 300 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(breaches).toHaveLength(1);
  });

  it('answers GET (the optional server stream) with 405 without asking the server', async () => {
    let asked = 0;
    const { url, server } = await serve((res) => {
      asked++;
      res.end();
    });
    servers.push(server);
    const response = await fetchWith().fetch(url, { method: 'GET' });
    expect(response.status).toBe(405);
    expect(asked).toBe(0);
  });
});
