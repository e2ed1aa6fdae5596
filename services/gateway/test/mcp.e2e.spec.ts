import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  createApiKey,
  drainCredits,
  newTenant,
  request,
  startPlatform,
  type Http,
  type Platform,
  type RegisteredUser,
} from '@agentplatform/testing';

interface ToolAnswer {
  isError?: boolean;
  _meta?: Record<string, unknown>;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: any;
}

/**
 * The platform as an MCP server (docs/design.md section 9), driven by the official SDK's client over
 * Streamable HTTP against the real gateway and services: every tool once, with the REST API as
 * the witness of what it did; scopes, tenants and credentials as for REST.
 */
describe('the /mcp endpoint', () => {
  let platform: Platform;
  let owner: RegisteredUser;
  let http: Http;
  let other: RegisteredUser;
  let agentId: string;
  let workflowId: string;
  const clients: Client[] = [];

  async function connect(token: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
      requestInit: { headers: { ...headers, Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const answer = (await client.callTool({ name, arguments: args })) as ToolAnswer;
    // Every answer, success or tool error, is JSON text that says the same as structuredContent.
    expect(answer.content).toHaveLength(1);
    expect(JSON.parse(answer.content[0].text!)).toEqual(answer.structuredContent);
    return answer;
  }

  beforeAll(async () => {
    // The free plan, so the tenant rate limit applies (the test platform's default plan has none).
    platform = await startPlatform({
      services: ['identity', 'agent-memory', 'workflow'],
      env: { DEFAULT_PLAN: 'free' },
    });
    const tenant = await newTenant(platform);
    owner = tenant.user;
    http = tenant.http;
    other = (await newTenant(platform)).user;
    const agent = await http.post('/api/v1/agents', { name: 'Billing helper', type: 'support' });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
    const workflow = await http.post('/api/v1/workflows', {
      name: 'Doubler',
      nodes: [
        { id: 'start', type: 'webhook', config: {} },
        { id: 'double', type: 'transform', config: { fields: { doubled: 'input.n * 2' } } },
      ],
      edges: [{ source: 'start', target: 'double' }],
    });
    expect(workflow.status).toBe(201);
    workflowId = workflow.body.id;
    // Three services and a gateway on a shared, loaded machine.
  }, 180_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await platform?.stop();
  });

  it('lists the seven tools with input schemas taken from the REST validation', async () => {
    const client = await connect(owner.accessToken);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'add_memory',
        'chat_with_agent',
        'get_execution',
        'list_agents',
        'list_workflows',
        'run_workflow',
        'search_memory',
      ].sort(),
    );
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.search_memory.inputSchema).toMatchObject({
      type: 'object',
      required: ['agent_id', 'query'],
      properties: {
        agent_id: { type: 'string', minLength: 1 },
        query: { type: 'string', minLength: 1, maxLength: 4000 },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      },
    });
    expect(byName.add_memory.inputSchema).toMatchObject({
      required: ['agent_id', 'content'],
      properties: { memory_type: { enum: ['semantic', 'episodic', 'procedural'] }, metadata: { type: 'object' } },
    });
    expect(byName.chat_with_agent.inputSchema.required).toEqual(['agent_id', 'message']);
    expect(byName.get_execution.inputSchema.required).toEqual(['execution_id']);
    expect(byName.run_workflow.inputSchema.required).toEqual(['workflow_id']);
  });

  it('runs every tool against the real services', async () => {
    const client = await connect(owner.accessToken);

    const agents = await call(client, 'list_agents', {});
    expect(agents.isError).toBeUndefined();
    expect(agents.structuredContent.agents.map((a: { id: string }) => a.id)).toEqual([agentId]);

    const fact = 'Refunds for a double charge take 5 business days.';
    const added = await call(client, 'add_memory', { agent_id: agentId, content: fact, metadata: { source: 'mcp' } });
    expect(added.isError).toBeUndefined();
    expect(added.structuredContent).toMatchObject({ agent_id: agentId, content: fact, memory_type: 'semantic' });
    const stored = await http.get(`/api/v1/memory/${added.structuredContent.id}`);
    expect(stored.status).toBe(200);
    expect(stored.body.metadata).toEqual({ source: 'mcp' });

    const found = await call(client, 'search_memory', { agent_id: agentId, query: 'double charge refund', limit: 1 });
    expect(found.structuredContent.results).toHaveLength(1);
    expect(found.structuredContent.results[0]).toMatchObject({ id: added.structuredContent.id, content: fact });

    const before = await http.get('/api/v1/billing/credits');
    const reply = await call(client, 'chat_with_agent', { agent_id: agentId, message: 'How long do refunds take?' });
    expect(reply.isError).toBeUndefined();
    // The offline responder answers from the memory the tool added above.
    expect(reply.structuredContent.content).toContain(fact);
    expect(reply.structuredContent.credits_used).toBeGreaterThanOrEqual(1);
    const after = await http.get('/api/v1/billing/credits');
    expect(before.body.balance - after.body.balance).toBe(reply.structuredContent.credits_used);
    const sessionId = reply.structuredContent.session_id;
    const again = await call(client, 'chat_with_agent', {
      agent_id: agentId,
      message: 'And for a card payment?',
      session_id: sessionId,
    });
    expect(again.structuredContent.session_id).toBe(sessionId);
    const messages = await http.get(`/api/v1/agents/${agentId}/sessions/${sessionId}/messages`);
    expect(messages.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'How long do refunds take?',
      reply.structuredContent.content,
      'And for a card payment?',
      again.structuredContent.content,
    ]);

    const workflows = await call(client, 'list_workflows', {});
    expect(workflows.structuredContent.items.map((w: { id: string }) => w.id)).toEqual([workflowId]);

    const run = await call(client, 'run_workflow', { workflow_id: workflowId, input: { n: 21 } });
    expect(run.isError).toBeUndefined();
    expect(run.structuredContent).toMatchObject({ workflow_id: workflowId, status: 'completed', input: { n: 21 } });
    expect(run.structuredContent.output).toMatchObject({ doubled: 42 });
    const executions = await http.get(`/api/v1/workflows/${workflowId}/executions`);
    expect(executions.body.items.map((e: { execution_id: string }) => e.execution_id)).toContain(
      run.structuredContent.execution_id,
    );

    const execution = await call(client, 'get_execution', { execution_id: run.structuredContent.execution_id });
    expect(execution.structuredContent).toMatchObject({
      execution_id: run.structuredContent.execution_id,
      workflow_id: workflowId,
      status: 'completed',
      output: { doubled: 42 },
    });
  });

  it('refuses bad arguments with the REST validation message, as a tool error naming the field', async () => {
    const client = await connect(owner.accessToken);
    const answer = await call(client, 'search_memory', { agent_id: agentId, limit: 500 });
    expect(answer.isError).toBe(true);
    expect(answer.structuredContent.error).toBe('validation_error');
    expect(answer.structuredContent.details).toEqual(
      expect.arrayContaining([{ field: 'query', message: 'is required' }, expect.objectContaining({ field: 'limit' })]),
    );
  });

  it('checks each tool against the scope of its REST route', async () => {
    const key = await createApiKey(platform.url, owner.accessToken, ['agents:read'], 'agents only');
    const client = await connect(key.key);
    const agents = await call(client, 'list_agents', {});
    expect(agents.structuredContent.agents).toHaveLength(1);

    const refused = await call(client, 'add_memory', { agent_id: agentId, content: 'should not be stored' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: 'forbidden', message: 'Missing scope memory:write' });
    const memory = await http.get(`/api/v1/memory?agent_id=${agentId}`);
    expect(memory.body.items.map((m: { content: string }) => m.content)).not.toContain('should not be stored');

    const run = await call(client, 'run_workflow', { workflow_id: workflowId });
    expect(run.structuredContent).toMatchObject({ error: 'forbidden', message: 'Missing scope workflows:execute' });
  });

  it("answers another tenant's ids as not found tool errors", async () => {
    const client = await connect(other.accessToken);
    const chat = await call(client, 'chat_with_agent', { agent_id: agentId, message: 'hello' });
    expect(chat.isError).toBe(true);
    expect(chat.structuredContent.error).toBe('not_found');
    const search = await call(client, 'search_memory', { agent_id: agentId, query: 'refund' });
    expect(search.structuredContent.error).toBe('not_found');
    const run = await call(client, 'run_workflow', { workflow_id: workflowId });
    expect(run.structuredContent.error).toBe('not_found');
    const ownExecutions = await http.get(`/api/v1/workflows/${workflowId}/executions`);
    const execution = await call(client, 'get_execution', { execution_id: ownExecutions.body.items[0].execution_id });
    expect(execution.structuredContent.error).toBe('not_found');
    const agents = await call(client, 'list_agents', {});
    expect(agents.structuredContent.agents).toEqual([]);
  });

  it('answers a tenant without credits with insufficient_credits tool errors, as REST does', async () => {
    const poor = await newTenant(platform);
    const agent = await poor.http.post('/api/v1/agents', { name: 'Poor agent', type: 'assistant' });
    const workflow = await poor.http.post('/api/v1/workflows', { name: 'p', nodes: [{ id: 't', type: 'transform' }] });
    await drainCredits(platform, poor.user.tenantId);
    const client = await connect(poor.user.accessToken);
    const run = await call(client, 'run_workflow', { workflow_id: workflow.body.id });
    expect(run.isError).toBe(true);
    expect(run.structuredContent.error).toBe('insufficient_credits');
    const chat = await call(client, 'chat_with_agent', { agent_id: agent.body.id, message: 'hello' });
    expect(chat.isError).toBe(true);
    expect(chat.structuredContent.error).toBe('insufficient_credits');
    const executions = await poor.http.get(`/api/v1/workflows/${workflow.body.id}/executions`);
    expect(executions.body.items).toEqual([]);
  });

  it('answers 401 with WWW-Authenticate without valid credentials, 400 to a batch, 405 to GET and DELETE', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const headers = { accept: 'application/json, text/event-stream' };
    for (const token of [undefined, 'apk_not_a_real_key', 'not.a.jwt']) {
      const res = await request(platform.url, 'POST', '/mcp', initialize, { token, headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(res.body.error).toBe('unauthorized');
    }
    await expect(connect('apk_not_a_real_key')).rejects.toMatchObject({ code: 401 });

    // The same request with a token initializes a session-less server.
    const ok = await request(platform.url, 'POST', '/mcp', initialize, { token: owner.accessToken, headers });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('mcp-session-id')).toBeNull();
    expect(ok.body.result.serverInfo.name).toBe('agent-platform');
    expect(ok.headers.get('x-ratelimit-limit')).toBe('60');

    // One message per request: a batch would be many tool calls for one request of the rate limit.
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const batch = await request(platform.url, 'POST', '/mcp', [list, { ...list, id: 3 }], {
      token: owner.accessToken,
      headers: { ...headers, 'mcp-protocol-version': '2025-06-18' },
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.message).toMatch(/batches are not supported/);

    for (const method of ['GET', 'DELETE']) {
      const res = await request(platform.url, method, '/mcp', undefined, { token: owner.accessToken });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('replays a tool call retried with the same Idempotency-Key, as REST does', async () => {
    const client = await connect(owner.accessToken, { 'Idempotency-Key': `mcp-retry-${Date.now()}` });
    const args = { agent_id: agentId, content: 'Invoices are sent on the first day of the month.' };
    const first = await call(client, 'add_memory', args);
    expect(first.isError).toBeUndefined();
    const retry = await call(client, 'add_memory', args);
    expect(retry.structuredContent).toEqual(first.structuredContent);
    expect(retry._meta).toEqual({ idempotent_replayed: true });
    const changed = await call(client, 'add_memory', { ...args, content: 'Invoices are sent weekly.' });
    expect(changed.isError).toBe(true);
    expect(changed.structuredContent.error).toBe('conflict');
    const stored = await http.get(`/api/v1/memory?agent_id=${agentId}&per_page=100`);
    const contents = stored.body.items.map((m: { content: string }) => m.content);
    expect(contents.filter((c: string) => c === args.content)).toHaveLength(1);
    expect(contents).not.toContain('Invoices are sent weekly.');
    // A tool whose REST route takes no key ignores it.
    expect((await call(client, 'list_agents', {})).isError).toBeUndefined();
    expect((await call(client, 'list_agents', {})).isError).toBeUndefined();
  });

  it('is described in the OpenAPI document, with the scope of each tool', async () => {
    const res = await request(platform.url, 'GET', '/api/v1/openapi.json');
    const mcp = res.body.paths['/mcp'];
    expect(mcp.servers).toEqual([{ url: '/' }]);
    expect(Object.keys(mcp.post.responses)).toEqual(expect.arrayContaining(['200', '401', '406', '429']));
    expect(mcp.post.description).toContain('`search_memory` (memory:read)');
    expect(mcp.post.description).toContain('`run_workflow` (workflows:execute)');
    expect(Object.keys(mcp.get.responses)).toEqual(['405']);
    expect(Object.keys(mcp.delete.responses)).toEqual(['405']);
  });

  it("draws from the tenant's REST rate limit: the 61st request in a minute is 429", async () => {
    const fresh = (await newTenant(platform)).user;
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const first = await request(platform.url, 'POST', '/mcp', list, { token: fresh.accessToken, headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    // The other 59 of the minute through REST: one budget for both.
    for (let i = 1; i < 60; i += 1) {
      const res = await request(platform.url, 'GET', '/api/v1/agents', undefined, { token: fresh.accessToken });
      expect(res.status).toBe(200);
    }
    const refused = await request(platform.url, 'POST', '/mcp', list, { token: fresh.accessToken, headers });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limit_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
