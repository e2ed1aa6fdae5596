import { metricSum, suiteFixture, waitFor, type Platform } from '@agentplatform/testing';
import { startWithFakeLlm } from './fake-openai';
import { newTenant } from './support';

/**
 * A saturated service sheds a call before doing its work (docs/design.md section 2, "Overload"):
 * agent-memory bounded to one call in flight, that call a chat waiting for the model. Another
 * call to it is answered 503 at once, with Retry-After, saying nothing was done, and indeed
 * nothing was: a client may retry it as told, without an Idempotency-Key, and make no duplicate.
 */
describe('load shedding', () => {
  const suite = suiteFixture(() =>
    startWithFakeLlm({ services: ['identity', 'agent-memory'] }, { GRPC_MAX_IN_FLIGHT: '1' }),
  );

  it('answers 503 with Retry-After before the work starts, and a retry after it succeeds once', async () => {
    const { platform, fake } = suite;
    const { http } = await newTenant(platform);
    const agent = await http.post('/api/v1/agents', { name: 'Busy', type: 'assistant' });
    expect(agent.status).toBe(201);

    const release = fake.hold();
    const chat = http.post(`/api/v1/agents/${agent.body.id}/chat`, { message: 'Take your time' });
    await waitFor(async () => fake.chats().length === 1 || undefined, { what: 'the chat to reach the model' });

    const started = Date.now();
    const shed = await http.post('/api/v1/memory', { agent_id: agent.body.id, content: 'Remember me' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect(shed.body).toMatchObject({ error: 'service_unavailable', retry_after: 1 });
    expect(shed.body.message).toMatch(/did not start this request \(nothing was done\)/);

    release();
    expect((await chat).status).toBe(200);
    // Nothing was stored by the shed add (the chat stored its exchange); its retry stores it once.
    const added = async () =>
      (await http.get(`/api/v1/memory?agent_id=${agent.body.id}`)).body.items.filter(
        (m: { content: string }) => m.content === 'Remember me',
      ).length;
    expect(await added()).toBe(0);
    expect((await http.post('/api/v1/memory', { agent_id: agent.body.id, content: 'Remember me' })).status).toBe(201);
    expect(await added()).toBe(1);
  });
});

/**
 * The gateway bounds its calls to agent-memory on their own (`AGENT_MEMORY_MAX_IN_FLIGHT`, lower
 * than the other backends' `BACKEND_MAX_IN_FLIGHT`): past it an agent-memory request is shed by
 * the gateway, before it is sent, while requests to the other backends go on.
 */
describe("the gateway's bound on agent-memory", () => {
  const suite = suiteFixture(() =>
    startWithFakeLlm({
      services: ['identity', 'agent-memory'],
      serviceEnv: { gateway: { AGENT_MEMORY_MAX_IN_FLIGHT: '1' } },
    }),
  );

  it('sheds a second agent-memory call in the gateway and still serves identity', async () => {
    const { platform, fake } = suite;
    const { http } = await newTenant(platform);
    const agent = await http.post('/api/v1/agents', { name: 'Busy', type: 'assistant' });
    expect(agent.status).toBe(201);
    const shedByGateway = () =>
      metricSum(platform.service('gateway'), 'gateway_backend_shed_total', 'target="agent-memory"');
    const shedByService = () => metricSum(platform.service('agent-memory'), 'grpc_server_shed_total');
    const before = [await shedByGateway(), await shedByService()];

    const release = fake.hold();
    const chat = http.post(`/api/v1/agents/${agent.body.id}/chat`, { message: 'Take your time' });
    await waitFor(async () => fake.chats().length === 1 || undefined, { what: 'the chat to reach the model' });

    const shed = await http.post('/api/v1/memory', { agent_id: agent.body.id, content: 'Remember me' });
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect(shed.body.message).toMatch(/did not start this request \(nothing was done\)/);
    expect(await shedByGateway()).toBe(before[0] + 1);
    expect(await shedByService()).toBe(before[1]);
    // Identity has its own, larger bound: the held chat takes none of it.
    expect((await http.get('/api/v1/billing/credits')).status).toBe(200);

    release();
    expect((await chat).status).toBe(200);
    expect((await http.post('/api/v1/memory', { agent_id: agent.body.id, content: 'Remember me' })).status).toBe(201);
  });
});

/** A new tenant with one agent, for the tests of tenants' shares. */
async function tenantWithAgent(platform: Platform, name: string) {
  const { http } = await newTenant(platform);
  const agent = await http.post('/api/v1/agents', { name, type: 'assistant' });
  expect(agent.status).toBe(201);
  return { http, agent: agent.body.id as string };
}

/**
 * One tenant's requests hold at most its share of the gateway's places for a backend
 * (`BACKEND_TENANT_SHARE`, half by default): however slow its calls (here chats held at the
 * model), the other places stay free for other tenants, and its own excess gets 429.
 */
describe("a tenant's share of the gateway's places", () => {
  const suite = suiteFixture(() =>
    startWithFakeLlm({
      services: ['identity', 'agent-memory'],
      serviceEnv: { gateway: { AGENT_MEMORY_MAX_IN_FLIGHT: '4' } },
    }),
  );

  it('refuses a noisy tenant past half the places with 429 while another tenant is served', async () => {
    const { platform, fake } = suite;
    const { http: noisy, agent: noisyAgent } = await tenantWithAgent(platform, 'Slow');
    const { http: quiet, agent: quietAgent } = await tenantWithAgent(platform, 'Calm');
    const refusedByShare = () =>
      metricSum(platform.service('gateway'), 'gateway_backend_tenant_share_refused_total', 'target="agent-memory"');
    const before = await refusedByShare();

    const release = fake.hold();
    const chats = Array.from({ length: 4 }, (_, i) =>
      noisy.post(`/api/v1/agents/${noisyAgent}/chat`, { message: `Take your time ${i}` }),
    );
    await waitFor(async () => fake.chats().length === 2 || undefined, { what: 'two chats to reach the model' });

    // The noisy tenant's own next request is refused at once, and says nothing was done.
    const refused = await noisy.post('/api/v1/memory', { agent_id: noisyAgent, content: 'One more thing' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.message).toMatch(/this one was not started \(nothing was done\)/);
    // The other tenant is served from the places left.
    const served = await quiet.post('/api/v1/memory', { agent_id: quietAgent, content: 'Still here' });
    expect(served.status).toBe(201);

    release();
    const statuses = (await Promise.all(chats)).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(fake.chats()).toHaveLength(2);
    expect(await refusedByShare()).toBe(before + 3);
    const kept = await noisy.get(`/api/v1/memory?agent_id=${noisyAgent}`);
    expect(kept.body.items.map((m: { content: string }) => m.content)).not.toContain('One more thing');
  });
});

/**
 * A workflow replica's agent nodes call agent-memory directly, not through the gateway: they are
 * bounded there too (`AGENT_MEMORY_MAX_IN_FLIGHT` of the workflow service, each tenant at most
 * half of it), so one tenant's fan-out of agent nodes cannot fill agent-memory's own bound and
 * leave every other tenant's chats with 503.
 */
describe("a tenant's share of a workflow replica's calls to agent-memory", () => {
  const suite = suiteFixture(() =>
    startWithFakeLlm({
      services: ['identity', 'agent-memory', 'workflow'],
      serviceEnv: { 'agent-memory': { GRPC_MAX_IN_FLIGHT: '6' }, workflow: { AGENT_MEMORY_MAX_IN_FLIGHT: '4' } },
    }),
  );

  it("keeps one tenant's agent nodes to two places and serves another tenant's chat", async () => {
    const { platform, fake } = suite;
    const { http: noisy, agent: noisyAgent } = await tenantWithAgent(platform, 'Fan');
    const { http: quiet, agent: quietAgent } = await tenantWithAgent(platform, 'Calm');
    const workflow = await noisy.post('/api/v1/workflows', {
      name: 'Ask the agent',
      nodes: [{ id: 'ask', type: 'agent', config: { agent_id: noisyAgent, message: 'Take your time' } }],
      edges: [],
    });
    expect(workflow.status).toBe(201);
    const refusedByShare = () =>
      metricSum(platform.service('workflow'), 'workflow_backend_tenant_share_refused_total', 'target="agent-memory"');
    const before = await refusedByShare();

    // Six runs at once, as many as agent-memory has places: two chats reach the model.
    const release = fake.hold();
    const runs = Array.from({ length: 6 }, () =>
      noisy.post(`/api/v1/workflows/${workflow.body.id}/execute`, { input: {} }),
    );
    await waitFor(async () => ((await refusedByShare()) === before + 4 ? true : undefined), {
      what: "the noisy tenant's four other agent nodes refused",
    });
    await waitFor(async () => fake.chats().length === 2 || undefined, { what: 'two agent nodes at the model' });

    // agent-memory still has places for another tenant's chat.
    const chat = quiet.post(`/api/v1/agents/${quietAgent}/chat`, { message: 'Anyone there?' });
    await waitFor(async () => fake.chats().length === 3 || undefined, { what: "the quiet tenant's chat at the model" });
    release();
    expect((await chat).status).toBe(200);

    const done = await Promise.all(runs);
    const statuses = done.map((r) => r.body.status).sort();
    expect(statuses).toEqual(['completed', 'completed', 'failed', 'failed', 'failed', 'failed']);
    const failed = done.find((r) => r.body.status === 'failed')!;
    const execution = await noisy.get(`/api/v1/workflows/${workflow.body.id}/executions/${failed.body.execution_id}`);
    const node = execution.body.node_executions.find((n: { node_id: string }) => n.node_id === 'ask');
    expect(node.error).toMatch(/rate_limit_exceeded.*already has 2 requests in progress/);
  });
});
