import { api, createApiKey, suiteFixture, type Http } from '@agentplatform/testing';
import { startWithFakeLlm } from './fake-openai';
import { newTenant } from './support';

/**
 * Tools act with their caller's rights, never more (docs/design.md section 9): granting a `workflow`
 * tool needs workflows:execute and `memory_add` memory:write, and each tool call of a chat is
 * checked against the scopes of the key or user that sent it. Through the gateway with every
 * service running and an OpenAI-compatible model the test scripts to call both tools.
 */
describe('tools run with the caller’s rights', () => {
  const suite = suiteFixture(() => startWithFakeLlm({}, { EMBEDDINGS_MODEL_DIR: 'none', LLM_MAX_RETRIES: '0' }));
  let owner: Http;
  /** A key of the owner with only agents:write: it may chat and manage agents, nothing more. */
  let agentsOnly: Http;
  let workflowId: string;

  const grants = (workflow: string) => [
    {
      type: 'workflow',
      workflow_id: workflow,
      name: 'double_it',
      description: 'Doubles an amount',
      input_schema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
    },
    { type: 'memory_add' },
  ];
  const agentBody = (tools: unknown[]) => ({
    name: 'Clerk',
    type: 'assistant',
    // No episodic memory: the only way a chat could add a memory is the memory_add tool.
    memory_types: ['semantic'],
    config: { tools },
  });
  const bothTools = {
    tool_calls: [
      { name: 'double_it', arguments: { amount: 21 } },
      { name: 'memory_add', arguments: { content: 'The customer prefers e-mail.' } },
    ],
  };

  beforeAll(async () => {
    const tenant = await newTenant(suite.platform);
    owner = tenant.http;
    const key = await createApiKey(suite.platform.url, tenant.user.accessToken, ['agents:write'], 'agents only');
    agentsOnly = api(suite.platform.url, key.key);
    const workflow = await owner.post('/api/v1/workflows', {
      name: 'Doubler',
      nodes: [{ id: 'double', type: 'transform', config: { fields: { doubled: 'input.amount * 2' } } }],
      edges: [],
    });
    expect(workflow.status).toBe(201);
    workflowId = workflow.body.id;
  });

  afterEach(() => {
    suite.fake.script.length = 0;
  });

  async function executions(): Promise<number> {
    const res = await owner.get(`/api/v1/workflows/${workflowId}/executions`);
    expect(res.status).toBe(200);
    return res.body.total;
  }

  async function memories(agentId: string): Promise<number> {
    const res = await owner.get(`/api/v1/memory?agent_id=${agentId}`);
    expect(res.status).toBe(200);
    return res.body.total;
  }

  it('refuses a key without workflows:execute or memory:write granting those tools (403 naming the tool)', async () => {
    const [workflowGrant, memoryGrant] = grants(workflowId);
    const withWorkflow = await agentsOnly.post('/api/v1/agents', agentBody([workflowGrant]));
    expect(withWorkflow.status).toBe(403);
    expect(withWorkflow.body.error).toBe('forbidden');
    expect(withWorkflow.body.message).toContain('double_it');
    expect(withWorkflow.body.message).toContain('workflows:execute');

    const withMemoryAdd = await agentsOnly.post('/api/v1/agents', agentBody([memoryGrant]));
    expect(withMemoryAdd.status).toBe(403);
    expect(withMemoryAdd.body.message).toContain('memory_add');
    expect(withMemoryAdd.body.message).toContain('memory:write');

    // Nor by an update: the key's own agent stays without the tool.
    const plain = await agentsOnly.post('/api/v1/agents', agentBody([{ type: 'memory_search' }]));
    expect(plain.status).toBe(201);
    const patched = await agentsOnly.patch(`/api/v1/agents/${plain.body.id}`, { config: { tools: [memoryGrant] } });
    expect(patched.status).toBe(403);
    expect((await owner.get(`/api/v1/agents/${plain.body.id}`)).body.config.tools).toEqual([{ type: 'memory_search' }]);

    // The owner (every scope) may grant both.
    expect((await owner.post('/api/v1/agents', agentBody(grants(workflowId)))).status).toBe(201);
  });

  it("gives the model tool errors, never the effect, when the chat's key lacks the tools' scopes", async () => {
    const agent = await owner.post('/api/v1/agents', agentBody(grants(workflowId)));
    expect(agent.status).toBe(201);
    const runsBefore = await executions();
    suite.fake.script.push(bothTools, { content: 'Done.' });

    const res = await agentsOnly.post(`/api/v1/agents/${agent.body.id}/chat`, { message: 'Double 21 and note it.' });
    expect(res.status).toBe(200);
    const byTool = Object.fromEntries(res.body.steps.map((s: any) => [s.tool, s]));
    expect(byTool.double_it.error).toContain('workflows:execute');
    expect(byTool.double_it.output).toBeUndefined();
    expect(byTool.memory_add.error).toContain('memory:write');
    // The model was told so.
    const toolResults = suite.fake
      .chats()
      .at(-1)!
      .body.messages.filter((m: any) => m.role === 'tool');
    expect(toolResults.map((m: any) => m.content).join(' ')).toContain('workflows:execute');

    expect(await executions()).toBe(runsBefore);
    expect(await memories(agent.body.id)).toBe(0);

    // The same chat sent by the owner runs both: what the key was refused is real.
    suite.fake.script.push(bothTools, { content: 'Done.' });
    const allowed = await owner.post(`/api/v1/agents/${agent.body.id}/chat`, { message: 'Double 21 and note it.' });
    expect(allowed.status).toBe(200);
    expect(allowed.body.steps.every((s: any) => s.error === undefined)).toBe(true);
    expect(await executions()).toBe(runsBefore + 1);
    expect(await memories(agent.body.id)).toBe(1);
  });
});
