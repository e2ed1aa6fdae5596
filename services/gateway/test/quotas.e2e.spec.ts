import { MongoClient } from 'mongodb';
import {
  newTenant,
  Receiver,
  seedMemories,
  type SeededMemory,
  startPlatform,
  suiteFixture,
} from '@agentplatform/testing';

const agentBody = (name: string) => ({ name, type: 'assistant' });
const workflowBody = (name: string) => ({
  name,
  nodes: [{ id: 'start', type: 'webhook', config: {} }],
  edges: [],
});

/**
 * Plan quotas (docs/design.md section 5) through the gateway on the free plan: 10 agents, 10
 * workflows, 10 webhooks per tenant, 10,000 memories per agent. Each kind uses its own tenant so
 * that the free plan's 60 requests a minute are not what the test runs into.
 */
describe('plan quotas', () => {
  const platform = suiteFixture(() => startPlatform({ env: { DEFAULT_PLAN: 'free' } }));
  const receiver = suiteFixture(() => Receiver.start());
  let mongo: MongoClient;

  beforeAll(async () => {
    mongo = await MongoClient.connect(platform.mongoUri);
  });

  afterAll(async () => {
    await mongo?.close();
  });

  /** Creates `before` one by one, then `parallel` at once; answers the statuses of the parallel ones. */
  async function fill(create: (i: number) => Promise<{ status: number }>, before: number, parallel: number) {
    for (let i = 0; i < before; i++) expect((await create(i)).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: parallel }, (_, i) => create(before + i)));
    return answers.map((a) => a.status);
  }

  function expectQuotaError(res: { status: number; body: any }, quota: string, limit: number) {
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('quota_exceeded');
    expect(res.body.details).toEqual([{ field: quota, message: `limit ${limit} on plan free` }]);
  }

  it('16 parallel agent creates at 9 of 10 leave exactly 10 agents; the rest are quota_exceeded', async () => {
    const { http } = await newTenant(platform);
    // 16: as many as one tenant may have in flight to agent-memory (half of the gateway's 32 places).
    const statuses = await fill((i) => http.post('/api/v1/agents', agentBody(`a${i}`)), 9, 16);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(15);
    const list = await http.get('/api/v1/agents?per_page=100');
    expect(list.body.total).toBe(10);
    expectQuotaError(await http.post('/api/v1/agents', agentBody('over')), 'agents', 10);

    // Deleting one makes room for exactly one more.
    const victim = list.body.agents[0].id;
    expect((await http.delete(`/api/v1/agents/${victim}`)).status).toBe(200);
    expect((await http.post('/api/v1/agents', agentBody('again'))).status).toBe(201);
    expectQuotaError(await http.post('/api/v1/agents', agentBody('over again')), 'agents', 10);
  });

  it('a counter left high by a crash is repaired once it has been still for a while', async () => {
    const { user, http } = await newTenant(platform);
    for (let i = 0; i < 5; i++) expect((await http.post('/api/v1/agents', agentBody(`c${i}`))).status).toBe(201);
    // What a replica killed between its increments and its writes leaves: a counter at the limit
    // over 5 real agents.
    const counters = mongo.db(platform.database('agent-memory')).collection<{ _id: string }>('quota_counters');
    const id = `agents:${user.tenantId}`;
    // Still moving (a create may be in flight): refused, never overshot.
    await counters.updateOne({ _id: id }, { $set: { count: 10, at: new Date() } });
    expectQuotaError(await http.post('/api/v1/agents', agentBody('too soon')), 'agents', 10);
    // Still for a minute: the refused create recounts, repairs the counter and goes through.
    await counters.updateOne({ _id: id }, { $set: { count: 10, at: new Date(Date.now() - 60_000) } });
    expect((await http.post('/api/v1/agents', agentBody('after repair'))).status).toBe(201);
    expect((await http.get('/api/v1/agents?per_page=100')).body.total).toBe(6);
  });

  it('workflows stop at 10 under parallel creates, with the quota named', async () => {
    const { http } = await newTenant(platform);
    const statuses = await fill((i) => http.post('/api/v1/workflows', workflowBody(`w${i}`)), 9, 20);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect((await http.get('/api/v1/workflows?per_page=100')).body.total).toBe(10);
    expectQuotaError(await http.post('/api/v1/workflows', workflowBody('over')), 'workflows', 10);
  });

  it('webhooks stop at 10 under parallel creates, with the quota named', async () => {
    const { http } = await newTenant(platform);
    const create = (i: number) => http.post('/api/v1/webhooks', { url: receiver.url(`/q${i}`), events: ['*'] });
    const statuses = await fill(create, 9, 20);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect((await http.get('/api/v1/webhooks?per_page=100')).body.total).toBe(10);
    expectQuotaError(await create(99), 'webhooks', 10);
  });

  /** Writes `count` semantic memories of an agent straight into agent-memory's database. */
  const seed = (tenantId: string, agentId: string, count: number) =>
    seedMemories(
      mongo.db(platform.database('agent-memory')).collection<SeededMemory>('memories'),
      tenantId,
      agentId,
      count,
    );

  it('memories per agent stop at 10,000 under parallel adds', async () => {
    const { user, http } = await newTenant(platform);
    const agent = (await http.post('/api/v1/agents', agentBody('full'))).body;
    // 9,999 memories written straight into the service's database stand for a long history.
    await seed(user.tenantId, agent.id, 9_999);

    const add = (i: number) => http.post('/api/v1/memory', { agent_id: agent.id, content: `new memory ${i}` });
    const statuses = await fill(add, 0, 20);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(19);
    expectQuotaError(await add(99), 'memories', 10_000);
  });

  it("chats' episodic memories are never refused but count toward the memories quota", async () => {
    const { user, http } = await newTenant(platform);
    const agent = (
      await http.post('/api/v1/agents', { ...agentBody('talker'), memory_types: ['semantic', 'episodic'] })
    ).body;
    await seed(user.tenantId, agent.id, 9_998);
    const add = (i: number) => http.post('/api/v1/memory', { agent_id: agent.id, content: `new memory ${i}` });
    expect((await add(0)).status).toBe(201); // 9,999 of 10,000

    // Three chats at once: each stores its exchange, past the limit too (a reply is never refused).
    const chats = await Promise.all(
      [1, 2, 3].map((i) => http.post(`/api/v1/agents/${agent.id}/chat`, { message: `question ${i}` })),
    );
    expect(chats.map((c) => c.status)).toEqual([200, 200, 200]);
    const episodic = await http.get(`/api/v1/memory?agent_id=${agent.id}&memory_type=episodic`);
    expect(episodic.body.total).toBe(3);
    // They took the last unit and more: no add fits, even after one memory is deleted.
    expectQuotaError(await add(1), 'memories', 10_000);
    expect((await http.delete(`/api/v1/memory/${episodic.body.items[0].id}`)).status).toBe(200);
    expectQuotaError(await add(2), 'memories', 10_000);
  });
});
