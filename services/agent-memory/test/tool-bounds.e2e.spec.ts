import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { SecretBox } from '@agentplatform/service-kit';
import { Receiver, type Platform } from '@agentplatform/testing';
import { type FakeOpenAi, startWithFakeLlm } from './fake-openai';
import { newTenant, type Http } from './support';

const MiB = 1024 * 1024;

/** Writes `total` bytes of `fill` (after `head`) as fast as the client reads them, until it hangs up. */
async function pour(res: ServerResponse, head: string, total: number, fill = 'x'): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, fill);
  const closed = new Promise((resolve) => res.once('close', resolve));
  res.write(head);
  let sent = 0;
  while (sent < total && !res.destroyed) {
    sent += chunk.length;
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), closed]);
  }
  res.end();
}

/**
 * A hostile MCP server (plain node:http speaking just enough JSON-RPC), one behaviour per path:
 * `/huge` answers every request with 60 MB of JSON; `/endless-line` opens an SSE answer whose
 * first line never ends; `/many-tools` is well-behaved but lists 10,000 tools; `/trickle` sends
 * its answer one byte every 200 ms. `hangups` counts answers the client stopped reading early.
 */
async function startHostileMcp() {
  let hangups = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      res.on('close', () => {
        if (!res.writableFinished) hangups++;
      });
      const message = raw ? JSON.parse(raw) : {};
      switch (req.url) {
        case '/huge':
          res.writeHead(200, { 'content-type': 'application/json' });
          return pour(res, `{"jsonrpc":"2.0","id":${message.id ?? 0},"result":{"padding":"`, 60 * MiB);
        case '/endless-line':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          return pour(res, 'event: message\ndata: ', 200 * MiB);
        case '/trickle': {
          res.writeHead(200, { 'content-type': 'application/json' });
          const timer = setInterval(() => res.write(' '), 200);
          res.on('close', () => clearInterval(timer));
          return;
        }
        case '/many-tools': {
          if (message.id === undefined) return res.writeHead(202).end();
          const result =
            message.method === 'initialize'
              ? {
                  protocolVersion: message.params.protocolVersion,
                  capabilities: { tools: {} },
                  serverInfo: { name: 'many', version: '1.0.0' },
                }
              : {
                  tools: Array.from({ length: 10_000 }, (_, i) => ({
                    name: `t${i}`,
                    inputSchema: { type: 'object' },
                  })),
                };
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
        }
        default:
          res.writeHead(404).end();
      }
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => `${base}${path}`,
    hangups: () => hangups,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function residentBytes(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = text.split('\n').find((l) => /^process_resident_memory_bytes[ {]/.test(l));
  return Number(line!.slice(line!.lastIndexOf(' ') + 1));
}

const call = (name: string, args: unknown = {}) => ({ tool_calls: [{ name, arguments: args }] });

/**
 * Agent tools that cannot stall or leak (docs/security.md, "Agent tools"): remote MCP answers are
 * bounded while they are read, credentials stay bound to the origin they were given for, a model
 * round runs at most 8 calls, and rotating DATA_ENCRYPTION_KEY re-seals tool headers. Through the
 * gateway, with real services, a scripted OpenAI-protocol model and servers started here.
 */
describe('bounded agent tools', () => {
  let suite: Awaited<ReturnType<typeof startWithFakeLlm>> | undefined;
  let fake: FakeOpenAi;
  let platform: Platform;
  let http: Http;
  let hostile: Awaited<ReturnType<typeof startHostileMcp>>;
  let receiver: Receiver;

  beforeAll(async () => {
    [hostile, receiver] = await Promise.all([startHostileMcp(), Receiver.start()]);
    suite = await startWithFakeLlm({ services: ['identity', 'agent-memory'] }, { EMBEDDINGS_MODEL_DIR: 'none' });
    ({ fake, platform } = suite);
    http = (await newTenant(platform)).http;
  });

  afterAll(async () => {
    await suite?.stop();
    await Promise.all([hostile?.stop(), receiver?.close()]);
  });

  beforeEach(() => {
    fake.requests.length = 0;
    fake.script.length = 0;
  });

  const newAgent = async (config: Record<string, unknown>) => {
    const res = await http.post('/api/v1/agents', { name: 'Tool user', type: 'assistant', config });
    expect(res.status).toBe(201);
    return res.body;
  };
  const chat = (agentId: string, message: string) => http.post(`/api/v1/agents/${agentId}/chat`, { message });
  const receiverUrl = (path: string, host = '127.0.0.1') => `http://${host}:${receiver.port}${path}`;

  describe('a hostile MCP server', () => {
    /** An agent of one MCP grant whose model calls the grant's tool; the chat's step says why it failed. */
    const chatWith = async (path: string, config: Record<string, unknown> = {}) => {
      const agent = await newAgent({
        ...config,
        tools: [{ type: 'mcp', name: 'evil', server_url: hostile.url(path) }],
      });
      fake.requests.length = 0;
      fake.script.push(call('evil'));
      const started = Date.now();
      const res = await chat(agent.id, 'Use the evil server');
      return { res, ms: Date.now() - started, offered: fake.chats()[0]?.body.tools ?? [] };
    };

    it('costs agent-memory a bounded amount of memory, and each chat a tool error naming the limit', async () => {
      const metricsPort = platform.service('agent-memory').ready!.metrics_port!;
      // Loads the MCP SDK and undici once (about 30 MB that any first MCP use costs) before measuring.
      await chatWith('/many-tools');
      const before = await residentBytes(metricsPort);
      const hangupsBefore = hostile.hangups();

      for (let i = 0; i < 3; i++) {
        const { res, offered } = await chatWith('/huge');
        expect(res.status).toBe(200);
        expect(res.body.steps).toHaveLength(1);
        expect(res.body.steps[0].tool).toBe('evil');
        expect(res.body.steps[0].error).toMatch(/answer is larger than 1 MiB, the limit of an MCP message/);
        // The model saw why the server's tools are missing.
        expect(offered.map((t: any) => t.function.name)).toEqual(['evil']);
        expect(offered[0].function.description).toContain('larger than 1 MiB');
      }
      const after = await residentBytes(metricsPort);
      // Unbounded, three 60 MB answers took agent-memory from 223 to 803 MB (issue 34).
      const grownMb = (after - before) / MiB;
      console.log(
        `agent-memory RSS before ${Math.round(before / MiB)} MB, after 3 chats of 60 MB answers ${Math.round(after / MiB)} MB`,
      );
      expect(grownMb).toBeLessThan(40);
      // Each answer was abandoned after its first MiB, not read to its end.
      expect(hostile.hangups() - hangupsBefore).toBeGreaterThanOrEqual(3);
    }, 120_000);

    it('stops reading an SSE answer whose line never ends', async () => {
      const { res } = await chatWith('/endless-line');
      expect(res.status).toBe(200);
      expect(res.body.steps[0].error).toMatch(/an event of its answer stream is larger than 1 MiB/);
    }, 60_000);

    it('refuses a server that lists more than 128 tools', async () => {
      const { res, offered } = await chatWith('/many-tools');
      expect(res.status).toBe(200);
      expect(offered).toHaveLength(1);
      expect(res.body.steps[0].error).toMatch(/lists more than 128 tools, the limit of an MCP server/);
    }, 60_000);

    it('bounds the total time of an answer that trickles in', async () => {
      const { res, ms } = await chatWith('/trickle', { tool_timeout_ms: 2_000 });
      expect(res.status).toBe(200);
      expect(res.body.steps[0].error).toMatch(/did not answer within 2000 ms, the limit of an MCP call/);
      expect(ms).toBeLessThan(10_000);
    }, 60_000);
  });

  describe('credentials bound to their origin', () => {
    const grant = (url: string, headers?: Record<string, string>) => ({
      type: 'http',
      name: 'crm',
      description: 'The CRM',
      url,
      method: 'GET',
      ...(headers ? { headers } : {}),
    });

    it('refuses an origin change that does not send the headers again, keeps them on the same origin', async () => {
      receiver.on('/crm/a', { status: 200, body: 'a' });
      receiver.on('/crm/b', { status: 200, body: 'b' });
      const agent = await newAgent({ tools: [grant(receiverUrl('/crm/a'), { 'X-Secret': 'crm-secret-1' })] });

      const moved = await http.patch(`/api/v1/agents/${agent.id}`, {
        config: { tools: [grant(receiverUrl('/crm/a', 'localhost'))] },
      });
      expect(moved.status).toBe(400);
      expect(moved.body.details).toEqual([
        {
          field: 'config.tools[0].headers',
          message: expect.stringContaining(`leaves http://127.0.0.1:${receiver.port}`),
        },
      ]);

      const samePlace = await http.patch(`/api/v1/agents/${agent.id}`, {
        config: { tools: [grant(receiverUrl('/crm/b'))] },
      });
      expect(samePlace.status).toBe(200);
      expect(samePlace.body.config.tools[0].header_names).toEqual(['X-Secret']);
      fake.script.push(call('crm'));
      expect((await chat(agent.id, 'Ask the CRM')).body.steps[0].output).toMatchObject({ status: 200 });
      expect(receiver.to('/crm/b')[0].headers['x-secret']).toBe('crm-secret-1');

      // Sent again with the new origin, the new values are sealed to it.
      const resent = await http.patch(`/api/v1/agents/${agent.id}`, {
        config: { tools: [grant(receiverUrl('/crm/a', 'localhost'), { 'X-Secret': 'crm-secret-2' })] },
      });
      expect(resent.status).toBe(200);
      fake.script.push(call('crm'));
      expect((await chat(agent.id, 'Ask the CRM again')).body.steps[0].output).toMatchObject({ status: 200 });
      expect(receiver.to('/crm/a').at(-1)!.headers['x-secret']).toBe('crm-secret-2');
    });

    it("refuses an mcp grant's server_url moved to another origin without its headers", async () => {
      const agent = await newAgent({
        tools: [
          { type: 'mcp', name: 'shop', server_url: 'https://mcp.example.com/mcp', headers: { Authorization: 'x' } },
        ],
      });
      const moved = await http.patch(`/api/v1/agents/${agent.id}`, {
        config: { tools: [{ type: 'mcp', name: 'shop', server_url: 'https://attacker.example.net/mcp' }] },
      });
      expect(moved.status).toBe(400);
      expect(moved.body.details[0].field).toBe('config.tools[0].headers');
    });

    it.each([
      ['https://{{args.host}}/orders'],
      ['https://api.example.com:{{args.port}}/orders'],
      ['{{args.scheme}}://api.example.com/orders'],
      ['https://api.example.com{{args.rest}}'],
    ])('refuses the URL template %s, which fills more than path and query', async (url) => {
      const res = await http.post('/api/v1/agents', {
        name: 'Leaky',
        type: 'assistant',
        config: { tools: [grant(url)] },
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { field: 'config.tools[0].url', message: expect.stringContaining('path and query only') },
      ]);
    });
  });

  it('runs at most 8 tool calls of one model round; the others get an error result', async () => {
    const agent = await newAgent({ tools: [{ type: 'memory_search' }] });
    fake.script.push({
      tool_calls: Array.from({ length: 12 }, (_, i) => ({ name: 'memory_search', arguments: { query: `q${i}` } })),
    });
    const res = await chat(agent.id, 'Search a lot');
    expect(res.status).toBe(200);
    expect(res.body.steps).toHaveLength(12);
    const refused = res.body.steps.filter((s: any) => s.error);
    expect(refused).toHaveLength(4);
    expect(refused.map((s: any) => s.arguments.query).sort()).toEqual(['q10', 'q11', 'q8', 'q9']);
    expect(refused[0].error).toMatch(/at most 8 tool calls per model round/);
    expect(res.body.steps.filter((s: any) => s.output)).toHaveLength(8);
  });

  it('re-seals tool headers when the data key rotates; a credential that cannot be opened names its grant', async () => {
    const agentCalling = (name: string, value: string) => {
      receiver.on(`/${name}`, { status: 200, body: 'ok' });
      return newAgent({
        tools: [
          {
            type: 'http',
            name,
            description: 'x',
            url: receiverUrl(`/${name}`),
            method: 'GET',
            headers: { 'X-Key': value },
          },
        ],
      });
    };
    const kept = await agentCalling('rotated', 'v1');
    const lost = await agentCalling('lost', 'v2');
    const legacy = await agentCalling('legacy', 'v3');
    const mongo = await MongoClient.connect(platform.mongoUri);
    try {
      const agents = mongo.db(platform.database('agent-memory')).collection<{ _id: string; config: any }>('agents');
      const stored = async (id: string) => (await agents.findOne({ _id: id }))!.config.tools[0].headers['X-Key'];
      expect(await stored(kept.id)).toMatch(/^v1:test:/);
      // One value sealed under a key that no keyring will hold again (an early retirement).
      const orphan = `v1:gone:${(await stored(lost.id)).split(':').slice(2).join(':')}`;
      await agents.updateOne({ _id: lost.id }, { $set: { 'config.tools.0.headers.X-Key': orphan } });
      // One as releases before the origin was sealed with the value stored it.
      const unbound = SecretBox.fromKeyring(platform.dataEncryptionKey).seal(
        'v3',
        `agent:${legacy.id}:tool:http:legacy:header:x-key`,
      );
      await agents.updateOne(
        { _id: legacy.id },
        { $set: { 'config.tools.0.headers.X-Key': unbound }, $unset: { tool_key_ids: '' } },
      );

      const service = platform.service('agent-memory');
      const next = `k2:${Buffer.alloc(32, 7).toString('base64')}`;
      await service.stop();
      service.setEnv({ DATA_ENCRYPTION_KEY: `${next},${platform.dataEncryptionKey}` });
      await service.start();
      expect(await stored(kept.id)).toMatch(/^v1:k2:/);
      expect(await stored(legacy.id)).toMatch(/^v1:k2:/);

      // The old key retired: the re-sealed credential still works.
      await service.stop();
      service.setEnv({ DATA_ENCRYPTION_KEY: next });
      await service.start();
    } finally {
      await mongo.close();
    }
    fake.script.push(call('rotated'));
    const ok = await chat(kept.id, 'Call it');
    expect(ok.status).toBe(200);
    expect(ok.body.steps[0].output).toMatchObject({ status: 200 });
    expect(receiver.to('/rotated').at(-1)!.headers['x-key']).toBe('v1');
    fake.script.push(call('legacy'));
    expect((await chat(legacy.id, 'Call it')).body.steps[0].output).toMatchObject({ status: 200 });
    expect(receiver.to('/legacy').at(-1)!.headers['x-key']).toBe('v3');

    fake.script.push(call('lost'));
    const broken = await chat(lost.id, 'Call it');
    expect(broken.status).toBe(200);
    expect(broken.body.steps[0].error).toMatch(/tool grant "lost" cannot be decrypted/);
    expect(receiver.to('/lost')).toHaveLength(0);
  }, 120_000);
});
