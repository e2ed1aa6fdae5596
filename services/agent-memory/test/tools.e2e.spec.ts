import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { Receiver, type Platform } from '@agentplatform/testing';
import { type FakeOpenAi, startWithFakeLlm } from './fake-openai';
import { newTenant, parseSse, type Http } from './support';

/**
 * A real MCP server (the SDK's McpServer over Streamable HTTP, stateless): `lookup_order` answers,
 * `explode` throws, `secret_tool` is left out by the grant's allowed_tools.
 */
async function startMcpServer(): Promise<{ url: string; headers: IncomingHttpHeaders[]; stop(): Promise<void> }> {
  const headers: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      headers.push(req.headers);
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const mcp = new McpServer({ name: 'shop', version: '1.0.0' });
      mcp.registerTool(
        'lookup_order',
        { description: 'Looks an order up', inputSchema: { order_id: z.string() } },
        async ({ order_id }) => ({
          content: [{ type: 'text', text: `order ${order_id} shipped` }],
          structuredContent: { order_id, status: 'shipped' },
        }),
      );
      mcp.registerTool('explode', { description: 'Always fails' }, async () => {
        throw new Error('kaboom in the warehouse');
      });
      mcp.registerTool('secret_tool', { description: 'Not granted' }, async () => ({
        content: [{ type: 'text', text: 'should never run' }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close().then(() => mcp.close()));
      await mcp.connect(transport);
      await transport.handleRequest(req, res, raw ? JSON.parse(raw) : undefined);
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    headers,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const call = (name: string, args: unknown) => ({ tool_calls: [{ name, arguments: args }] });

/**
 * Agents that call tools (docs/design.md section 9), through the gateway, with real services, a real MCP server, a real HTTP server and an OpenAI-protocol server
 * the test scripts to play the model.
 */
describe('agents with tools', () => {
  let fake: FakeOpenAi;
  let platform: Platform;
  let http: Http;
  let other: Http;
  let receiver: Receiver;
  let mcp: Awaited<ReturnType<typeof startMcpServer>>;

  let suite: Awaited<ReturnType<typeof startWithFakeLlm>> | undefined;

  beforeAll(async () => {
    receiver = await Receiver.start();
    mcp = await startMcpServer();
    suite = await startWithFakeLlm({}, { EMBEDDINGS_MODEL_DIR: 'none' });
    ({ fake, platform } = suite);
    http = (await newTenant(platform)).http;
    other = (await newTenant(platform)).http;
  });

  afterAll(async () => {
    await suite?.stop();
    await Promise.all([receiver?.close(), mcp?.stop()]);
  });

  beforeEach(() => {
    fake.requests.length = 0;
    fake.script.length = 0;
  });

  const newAgent = async (config: Record<string, unknown>, client = http) => {
    const res = await client.post('/api/v1/agents', {
      name: 'Tool user',
      type: 'assistant',
      memory_types: ['semantic'],
      config,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const chat = (agentId: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
    http.post(`/api/v1/agents/${agentId}/chat`, body, headers ? { headers } : undefined);
  const receiverUrl = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

  describe('the tool loop', () => {
    it('runs memory_search for the model, which answers from its output; the call is in the session', async () => {
      const agent = await newAgent({ tools: [{ type: 'memory_search' }] });
      await http.post('/api/v1/memory', { agent_id: agent.id, content: 'The office door code is 4711.' });
      fake.script.push(call('memory_search', { query: 'door code' }));

      const res = await chat(agent.id, { message: 'What is the door code?' });
      expect(res.status).toBe(200);
      expect(res.body.steps).toHaveLength(1);
      expect(res.body.steps[0]).toMatchObject({
        type: 'tool_call',
        tool: 'memory_search',
        arguments: { query: 'door code' },
      });
      expect(res.body.steps[0].output.results[0].content).toBe('The office door code is 4711.');
      expect(res.body.steps[0].duration_ms).toBeGreaterThanOrEqual(0);
      expect(res.body.content).toContain('4711');

      const [first, second] = fake.chats();
      expect(first.body.tools.map((t: any) => t.function.name)).toEqual(['memory_search']);
      const asked = second.body.messages.at(-2);
      expect(asked).toMatchObject({
        role: 'assistant',
        tool_calls: [{ type: 'function', function: { name: 'memory_search' } }],
      });
      expect(second.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: asked.tool_calls[0].id });
      // Usage sums both model calls (the fake reports 2,500 tokens each).
      expect(res.body.usage.total_tokens).toBe(5000);
      expect(res.body.credits_used).toBe(5);

      const messages = await http.get(`/api/v1/agents/${agent.id}/sessions/${res.body.session_id}/messages`);
      expect(messages.body.messages.map((m: any) => m.role)).toEqual(['user', 'tool', 'assistant']);
      expect(messages.body.messages[1].step).toMatchObject({
        tool: 'memory_search',
        arguments: { query: 'door code' },
      });
    });

    it('streams a step event per tool call before the answer', async () => {
      const agent = await newAgent({ tools: [{ type: 'memory_search' }] });
      await http.post('/api/v1/memory', { agent_id: agent.id, content: 'Parking is on level 3.' });
      fake.script.push(call('memory_search', { query: 'parking' }));

      const res = await chat(agent.id, { message: 'Where do I park?' }, { accept: 'text/event-stream' });
      expect(res.status).toBe(200);
      const events = parseSse(res.text);
      const names = events.map((e) => e.event);
      expect(names[0]).toBe('start');
      expect(names.indexOf('step')).toBeGreaterThan(0);
      expect(names.indexOf('step')).toBeLessThan(names.indexOf('done'));
      const step = events.find((e) => e.event === 'step')!.data;
      expect(step).toMatchObject({ tool: 'memory_search', arguments: { query: 'parking' } });
      expect(step.output.results[0].content).toBe('Parking is on level 3.');
      const done = events.find((e) => e.event === 'done')!.data;
      expect(done.steps).toHaveLength(1);
      expect(done.content).toContain('level 3');
    });

    it('runs a workflow of the tenant as a tool: a real execution, visible in its executions', async () => {
      const workflow = await http.post('/api/v1/workflows', {
        name: 'Doubler',
        nodes: [{ id: 'double', type: 'transform', config: { fields: { doubled: 'input.amount * 2' } } }],
        edges: [],
      });
      expect(workflow.status).toBe(201);
      const agent = await newAgent({
        tools: [
          {
            type: 'workflow',
            workflow_id: workflow.body.id,
            name: 'double_it',
            description: 'Doubles an amount',
            input_schema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
          },
        ],
      });
      fake.script.push(call('double_it', { amount: 21 }));

      const res = await chat(agent.id, { message: 'Double 21 please' });
      expect(res.status).toBe(200);
      const [step] = res.body.steps;
      expect(step).toMatchObject({ tool: 'double_it', output: { status: 'completed', output: { doubled: 42 } } });
      expect(fake.chats()[0].body.tools[0].function).toMatchObject({
        name: 'double_it',
        description: 'Doubles an amount',
        parameters: { properties: { amount: { type: 'number' } } },
      });
      const executions = await http.get(`/api/v1/workflows/${workflow.body.id}/executions`);
      expect(executions.body.items.map((e: any) => e.execution_id)).toContain(step.output.execution_id);
    });

    it('calls an http tool with its secret header; the agent never shows the header value', async () => {
      receiver.on('/orders/A-1', {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"status":"shipped"}',
      });
      const agent = await newAgent({
        tools: [
          {
            type: 'http',
            name: 'order_status',
            description: 'Looks an order up',
            url: receiverUrl('/orders/{{args.order_id}}'),
            method: 'GET',
            headers: { 'X-Api-Key': 'secret-abc-123' },
            input_schema: { type: 'object', properties: { order_id: { type: 'string' } } },
          },
        ],
      });
      expect(JSON.stringify(agent)).not.toContain('secret-abc-123');
      expect(agent.config.tools[0]).toMatchObject({ name: 'order_status', header_names: ['X-Api-Key'] });
      fake.script.push(call('order_status', { order_id: 'A-1' }));

      const res = await chat(agent.id, { message: 'Where is order A-1?' });
      expect(res.status).toBe(200);
      expect(res.body.steps[0]).toMatchObject({
        tool: 'order_status',
        output: { status: 200, body: { status: 'shipped' } },
      });
      const [seen] = receiver.to('/orders/A-1');
      expect(seen.method).toBe('GET');
      expect(seen.headers['x-api-key']).toBe('secret-abc-123');

      const read = await http.get(`/api/v1/agents/${agent.id}`);
      expect(read.body.config.tools[0].header_names).toEqual(['X-Api-Key']);
      expect(read.text).not.toContain('secret-abc-123');

      // A PATCH that repeats the grant as read (without values) keeps the stored header.
      const patched = await http.patch(`/api/v1/agents/${agent.id}`, {
        config: { tools: [{ ...read.body.config.tools[0], header_names: undefined }] },
      });
      expect(patched.status).toBe(200);
      fake.script.push(call('order_status', { order_id: 'A-1' }));
      await chat(agent.id, { message: 'And now?' });
      expect(receiver.to('/orders/A-1')[1].headers['x-api-key']).toBe('secret-abc-123');
    });

    it('uses the allowed tools of a real MCP server; a tool that throws is an error step', async () => {
      const agent = await newAgent({
        tools: [
          {
            type: 'mcp',
            name: 'shop',
            server_url: mcp.url,
            headers: { Authorization: 'Bearer mcp-secret' },
            allowed_tools: ['lookup_order', 'explode'],
          },
        ],
      });
      expect(JSON.stringify(agent)).not.toContain('mcp-secret');
      fake.script.push({
        tool_calls: [
          { name: 'shop__lookup_order', arguments: { order_id: 'B-2' } },
          { name: 'shop__explode', arguments: {} },
        ],
      });

      const res = await chat(agent.id, { message: 'Check order B-2' });
      expect(res.status).toBe(200);
      const names = fake
        .chats()[0]
        .body.tools.map((t: any) => t.function.name)
        .sort();
      expect(names).toEqual(['shop__explode', 'shop__lookup_order']);
      const byTool = Object.fromEntries(res.body.steps.map((s: any) => [s.tool, s]));
      expect(byTool.shop__lookup_order.output).toEqual({ order_id: 'B-2', status: 'shipped' });
      expect(byTool.shop__explode.error).toContain('kaboom in the warehouse');
      expect(byTool.shop__explode.output).toBeUndefined();
      expect(mcp.headers.some((h) => h.authorization === 'Bearer mcp-secret')).toBe(true);
      // The model saw both results, the failure as an error, and answered.
      const results = fake.chats()[1].body.messages.filter((m: any) => m.role === 'tool');
      expect(results).toHaveLength(2);
      expect(results.map((m: any) => m.content).join(' ')).toContain('kaboom in the warehouse');
    });

    it('runs the calls of one round in parallel; failing and timed-out tools are errors, never a 500', async () => {
      receiver.on('/slow-a', { status: 200, body: 'a', delayMs: 1_500 });
      receiver.on('/slow-b', { status: 200, body: 'b', delayMs: 1_500 });
      receiver.on('/broken', { status: 500, body: 'down' });
      receiver.on('/hang', { status: 200, body: 'late', delayMs: 10_000 });
      const tool = (name: string, path: string) => ({ type: 'http', name, description: name, url: receiverUrl(path) });
      const agent = await newAgent({
        tool_timeout_ms: 3_000,
        tools: [tool('slow_a', '/slow-a'), tool('slow_b', '/slow-b'), tool('broken', '/broken'), tool('hang', '/hang')],
      });
      fake.script.push({
        tool_calls: [
          { name: 'slow_a', arguments: {} },
          { name: 'slow_b', arguments: {} },
          { name: 'broken', arguments: {} },
          { name: 'hang', arguments: {} },
          { name: 'no_such_tool', arguments: {} },
        ],
      });

      const res = await chat(agent.id, { message: 'Do everything at once' });
      expect(res.status).toBe(200);
      const byTool = Object.fromEntries(res.body.steps.map((s: any) => [s.tool, s]));
      expect(byTool.slow_a.output).toMatchObject({ status: 200 });
      expect(byTool.slow_b.output).toMatchObject({ status: 200 });
      expect(byTool.broken.error).toContain('answered 500');
      expect(byTool.hang.error).toBe('timed out after 3000 ms');
      expect(byTool.no_such_tool.error).toContain('unknown tool');
      // Both slow calls were under way at once: the second arrived before the first was answered.
      const [a] = receiver.to('/slow-a');
      const [b] = receiver.to('/slow-b');
      expect(Math.abs(a.receivedAt - b.receivedAt)).toBeLessThan(1_500);
      // One round: all five results went back to the model in its second (and last) call.
      expect(fake.chats()).toHaveLength(2);
      expect(fake.chats()[1].body.messages.filter((m: any) => m.role === 'tool')).toHaveLength(5);
    });

    it('gives a workflow agent node the same tool loop (its output carries the steps)', async () => {
      const agent = await newAgent({ tools: [{ type: 'memory_search' }] });
      await http.post('/api/v1/memory', { agent_id: agent.id, content: 'Invoices are sent on the 3rd.' });
      const workflow = await http.post('/api/v1/workflows', {
        name: 'Ask the agent',
        nodes: [{ id: 'ask', type: 'agent', config: { agent_id: agent.id, message: 'When are invoices sent?' } }],
        edges: [],
      });
      expect(workflow.status).toBe(201);
      fake.script.push(call('memory_search', { query: 'invoices' }));

      const run = await http.post(`/api/v1/workflows/${workflow.body.id}/execute`, { input: {} });
      expect(run.body.status).toBe('completed');
      const execution = await http.get(`/api/v1/workflows/${workflow.body.id}/executions/${run.body.execution_id}`);
      const output = execution.body.node_executions.find((n: any) => n.node_id === 'ask').output;
      expect(output.steps).toEqual([
        expect.objectContaining({ tool: 'memory_search', arguments: { query: 'invoices' } }),
      ]);
      expect(output.steps[0].output.results[0].content).toBe('Invoices are sent on the 3rd.');
      expect(output.content).toContain('Invoices are sent on the 3rd.');
    });

    it('ends an agent that reaches itself through a workflow tool at the nesting limit', async () => {
      // Agent -> workflow tool -> agent node -> the same agent -> ...: each round runs one level
      // deeper, and the workflow service refuses a run deeper than 5 levels.
      const agent = await newAgent({});
      const loop = await http.post('/api/v1/workflows', {
        name: 'Ask the agent again',
        nodes: [{ id: 'ask', type: 'agent', config: { agent_id: agent.id, message: 'Again' } }],
        edges: [],
      });
      expect(loop.status).toBe(201);
      const granted = await http.patch(`/api/v1/agents/${agent.id}`, {
        config: { tools: [{ type: 'workflow', workflow_id: loop.body.id, name: 'ask_again' }] },
      });
      expect(granted.status).toBe(200);
      // The model always calls the tool, and answers once it has a tool result.
      const errors: string[] = [];
      const model = (body: any) => {
        const last = body.messages.at(-1);
        if (last.role !== 'tool') return call('ask_again', {});
        const result = JSON.parse(last.content);
        if (result.error) errors.push(result.error);
        return { content: 'Done at this level.' };
      };
      fake.script.push(...Array.from({ length: 20 }, () => model));

      const res = await chat(agent.id, { message: 'Start the loop' });
      expect(res.status).toBe(200);
      expect(res.body.content).toBe('Done at this level.');
      // Levels 0 (the user's chat) to 5 each asked the model twice; the sixth run was refused.
      expect(fake.chats()).toHaveLength(12);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/nesting deeper than 5 levels/);
      const runs = await http.get(`/api/v1/workflows/${loop.body.id}/executions`);
      expect(runs.body.total).toBe(5);
      expect(runs.body.items.map((e: any) => e.status)).toEqual(Array(5).fill('completed'));
    }, 120_000);

    it('stops after max_steps rounds and has the model answer without calling tools', async () => {
      const agent = await newAgent({ max_steps: 2, tools: [{ type: 'memory_search' }] });
      const keepCalling = (body: any) =>
        body.tool_choice === 'none' ? { content: 'Giving up.' } : call('memory_search', { query: 'more' });
      fake.script.push(keepCalling, keepCalling, keepCalling);

      const res = await chat(agent.id, { message: 'Search forever' });
      expect(res.status).toBe(200);
      expect(res.body.steps).toHaveLength(2);
      expect(res.body.content).toBe('Giving up.');
      const sent = fake.chats();
      expect(sent).toHaveLength(3);
      expect(sent.map((r) => r.body.tool_choice)).toEqual([undefined, undefined, 'none']);
      expect(res.body.usage.total_tokens).toBe(7500);
    });
  });

  describe('validation of grants', () => {
    it('refuses another tenant’s workflow, naming the field', async () => {
      const theirs = await other.post('/api/v1/workflows', { name: 'Theirs', nodes: [{ id: 't', type: 'transform' }] });
      expect(theirs.status).toBe(201);
      const res = await http.post('/api/v1/agents', {
        name: 'Thief',
        type: 'assistant',
        config: { tools: [{ type: 'workflow', workflow_id: theirs.body.id }] },
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { field: 'config.tools[0].workflow_id', message: 'is not a workflow of this tenant' },
      ]);
      expect((await other.get(`/api/v1/workflows/${theirs.body.id}/executions`)).body.total).toBe(0);
    });

    it.each([
      [{ type: 'shell', command: 'rm -rf /' }, 'config.tools[0].type'],
      [{ type: 'http', name: 'x', url: 'ftp://example.com/file' }, 'config.tools[0].url'],
      [{ type: 'http', name: 'x', url: 'not a url' }, 'config.tools[0].url'],
      [{ type: 'mcp', name: 'srv', server_url: 'file:///etc/passwd' }, 'config.tools[0].server_url'],
      [
        { type: 'http', name: 'x', url: 'https://example.com', input_schema: { type: 'string' } },
        'config.tools[0].input_schema',
      ],
      [{ type: 'http', name: 'bad name!', url: 'https://example.com' }, 'config.tools[0].name'],
    ])('refuses %j naming %s', async (grant, field) => {
      const res = await http.post('/api/v1/agents', { name: 'Bad', type: 'assistant', config: { tools: [grant] } });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: any) => d.field)).toContain(field);
    });

    it('refuses max_steps outside 1..32', async () => {
      const res = await http.post('/api/v1/agents', { name: 'Bad', type: 'assistant', config: { max_steps: 33 } });
      expect(res.status).toBe(400);
      expect(res.body.details[0].field).toBe('config.max_steps');
    });
  });
});
