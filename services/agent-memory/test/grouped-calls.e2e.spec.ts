import { MongoClient } from 'mongodb';
import { metricSum, seedMemories, type SeededMemory, startTenantPlatform, suiteFixture } from '@agentplatform/testing';
import { newTenant, type Http } from './support';

/**
 * Single adds (`POST /memory`) and agent listings (`GET /agents`) that arrive together: the
 * gateway carries the ones made while one is in flight in one AddMemoryMany or ListAgentsMany
 * call, whatever their tenants (docs/agents-and-memory.md, "How single adds and listings are
 * carried"). Each HTTP request must still be answered exactly as alone: its own answer, or its own
 * error, never another tenant's. The free plan (10,000 memories per agent, 60 requests a minute
 * per tenant): each test registers its own tenants.
 */
describe('concurrent single memory adds and agent listings, grouped by the gateway', () => {
  const suite = suiteFixture(() =>
    startTenantPlatform({ services: ['identity', 'agent-memory'], env: { DEFAULT_PLAN: 'free' } }, 'memory-grouped'),
  );

  const newAgent = async (http: Http, memoryTypes = ['semantic', 'episodic']) => {
    const res = await http.post('/api/v1/agents', {
      name: 'Grouped agent',
      type: 'research',
      memory_types: memoryTypes,
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  const listed = async (http: Http, agentId: string) =>
    (await http.get(`/api/v1/memory?agent_id=${agentId}&per_page=100`)).body as { total: number; items: any[] };

  const batchCalls = (method: 'AddMemoryMany' | 'ListAgentsMany') =>
    metricSum(
      suite.platform.service('agent-memory'),
      'grpc_server_handling_seconds_count',
      `AgentMemoryService/${method}`,
    );

  it("answers two tenants' interleaved adds each on its own, and fails only the bad items", async () => {
    const a = await newTenant(suite.platform);
    const b = await newTenant(suite.platform);
    const agentA = await newAgent(a.http, ['semantic']);
    const agentB = await newAgent(b.http);
    const full = await newTenant(suite.platform);
    const agentFull = await newAgent(full.http);
    const mongo = await MongoClient.connect(suite.platform.mongoUri);
    try {
      const memories = mongo.db(suite.platform.database('agent-memory')).collection<SeededMemory>('memories');
      await seedMemories(memories, full.user.tenantId, agentFull, 10_000);
    } finally {
      await mongo.close();
    }

    // What each bad add answers when it is sent alone.
    const bad = [
      { http: a.http, body: { agent_id: agentB, content: "planted in B's agent" } },
      { http: b.http, body: { agent_id: 'agt_unknown', content: 'nowhere' } },
      { http: a.http, body: { agent_id: agentA, content: 'a procedure', memory_type: 'procedural' } },
      { http: full.http, body: { agent_id: agentFull, content: 'one too many' } },
    ];
    const alone = [];
    for (const { http, body } of bad) alone.push(await http.post('/api/v1/memory', body));
    expect(alone.map((r) => r.status)).toEqual([404, 404, 400, 403]);

    const before = await batchCalls('AddMemoryMany');
    const good = Array.from({ length: 24 }, (_, i) =>
      i % 2 === 0
        ? { tenant: 'a', http: a.http, body: { agent_id: agentA, content: `A fact ${i}`, metadata: { i } } }
        : { tenant: 'b', http: b.http, body: { agent_id: agentB, content: `B fact ${i}`, memory_type: 'episodic' } },
    );
    // The bad ones in the middle of the burst, between good adds of both tenants.
    const burst = [...good.slice(0, 12), ...bad, ...good.slice(12)];
    const answers = await Promise.all(burst.map(({ http, body }) => http.post('/api/v1/memory', body)));

    const goodAnswers = answers.filter((_, i) => i < 12 || i >= 16);
    goodAnswers.forEach((res, i) => {
      expect(res.status).toBe(201);
      const { body } = good[i]!;
      expect(res.body).toMatchObject({ agent_id: body.agent_id, content: body.content, metadata: body.metadata ?? {} });
    });
    // Every bad add answers exactly what it answered alone; nothing of it is stored.
    expect(answers.slice(12, 16).map((r) => [r.status, r.body])).toEqual(alone.map((r) => [r.status, r.body]));
    expect(alone[3]!.body).toMatchObject({ error: 'quota_exceeded', details: [{ field: 'memories' }] });
    expect(alone[2]!.body).toMatchObject({ error: 'validation_error', details: [{ field: 'memory_type' }] });

    const listA = await listed(a.http, agentA);
    const listB = await listed(b.http, agentB);
    expect(listA.items.map((m) => m.content).sort()).toEqual(
      good
        .filter((g) => g.tenant === 'a')
        .map((g) => g.body.content)
        .sort(),
    );
    expect(listB.items.map((m) => m.content).sort()).toEqual(
      good
        .filter((g) => g.tenant === 'b')
        .map((g) => g.body.content)
        .sort(),
    );
    // Another tenant's agent stays invisible inside a group: 404, as alone.
    expect((await b.http.get(`/api/v1/memory/${listA.items[0].id}`)).status).toBe(404);
    // The burst went (at least partly) through the batch call.
    expect(await batchCalls('AddMemoryMany')).toBeGreaterThan(before);
  });

  it('stores an add retried with the same Idempotency-Key once, among concurrent adds', async () => {
    const { http } = await newTenant(suite.platform);
    const agentId = await newAgent(http);
    const headers = { 'idempotency-key': `add-${agentId}` };
    const body = { agent_id: agentId, content: 'added once, retried' };
    const first = await http.post('/api/v1/memory', body, { headers });
    expect(first.status).toBe(201);
    const others = Array.from({ length: 8 }, (_, i) => ({ agent_id: agentId, content: `other ${i}` }));
    const answers = await Promise.all([
      ...others.map((other) => http.post('/api/v1/memory', other)),
      http.post('/api/v1/memory', body, { headers }),
    ]);
    expect(answers.map((r) => r.status)).toEqual(Array(9).fill(201));
    expect(answers[8]!.body).toEqual(first.body);
    const contents = (await listed(http, agentId)).items.map((m) => m.content);
    expect(contents.filter((c) => c === body.content)).toHaveLength(1);
    expect(contents).toHaveLength(9);
  });

  it('answers interleaved listings of two tenants each with its own agents, filters and page', async () => {
    const a = await newTenant(suite.platform);
    const b = await newTenant(suite.platform);
    const create = (http: Http, name: string, type: string) =>
      http.post('/api/v1/agents', { name, type }).then((res) => {
        expect(res.status).toBe(201);
        return res.body.id as string;
      });
    const agentsA = [await create(a.http, 'A one', 'support'), await create(a.http, 'A two', 'sales')];
    const agentsB = [await create(b.http, 'B one', 'support')];
    const queries = [
      { http: a.http, query: '', ids: [...agentsA].reverse(), total: 2 },
      { http: b.http, query: '', ids: agentsB, total: 1 },
      { http: a.http, query: '?type=support', ids: [agentsA[0]], total: 1 },
      { http: b.http, query: '?type=sales', ids: [], total: 0 },
      { http: a.http, query: '?per_page=1&page=2', ids: [agentsA[0]], total: 2 },
    ];
    const before = await batchCalls('ListAgentsMany');
    const burst = Array.from({ length: 4 }, () => queries).flat();
    const answers = await Promise.all(burst.map(({ http, query }) => http.get(`/api/v1/agents${query}`)));
    answers.forEach((res, i) => {
      const { ids, total } = burst[i]!;
      expect(res.status).toBe(200);
      expect(res.body.agents.map((agent: { id: string }) => agent.id)).toEqual(ids);
      expect(res.body.total).toBe(total);
    });
    expect(await batchCalls('ListAgentsMany')).toBeGreaterThan(before);
  });

  const createAgent = (http: Http, name: string) =>
    http.post('/api/v1/agents', { name, type: 'support' }).then((res) => {
      expect(res.status).toBe(201);
      return res.body.id as string;
    });
  const listedIds = (res: { status: number; body: any }) => {
    expect(res.status).toBe(200);
    return (res.body.agents as Array<{ id: string }>).map((agent) => agent.id);
  };
  const coalescedListings = () => metricSum(suite.platform.service('gateway'), 'gateway_listings_coalesced_total');

  it("answers two tenants' concurrent identical listings each with its own agents only, one read per tenant", async () => {
    const a = await newTenant(suite.platform);
    const b = await newTenant(suite.platform);
    const agentsA = [await createAgent(a.http, 'A one'), await createAgent(a.http, 'A two')].reverse();
    const agentsB = [await createAgent(b.http, 'B one')];
    const before = await coalescedListings();
    // The same request (path and query) for both tenants: only the tenant tells their listings apart.
    const burst = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 'a' : 'b'));
    const answers = await Promise.all(burst.map((tenant) => (tenant === 'a' ? a.http : b.http).get('/api/v1/agents')));
    answers.forEach((res, i) => {
      expect(listedIds(res)).toEqual(burst[i] === 'a' ? agentsA : agentsB);
      expect(res.body.total).toBe(burst[i] === 'a' ? 2 : 1);
    });
    // Identical listings of one grouped call shared a read (docs/agents-and-memory.md).
    expect(await coalescedListings()).toBeGreaterThan(before);
  });

  it('shows an agent created before a burst of listings in every listing of it, and a deleted one in none', async () => {
    const { http } = await newTenant(suite.platform);
    const kept = await createAgent(http, 'kept');
    const doomed = await createAgent(http, 'deleted before the burst');
    // Listings in flight while the agents change: reads sent before the writes may not see them,
    // and no listing made after the writes may be answered by one of those reads. Free plan: 60
    // requests a minute, so the background is bounded.
    let background = 24;
    let stop = false;
    const loop = async () => {
      while (!stop && background-- > 0) listedIds(await http.get('/api/v1/agents'));
    };
    const loops = Array.from({ length: 4 }, loop);
    const created = await createAgent(http, 'created before the burst');
    expect((await http.delete(`/api/v1/agents/${doomed}`)).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 12 }, () => http.get('/api/v1/agents')));
    stop = true;
    await Promise.all(loops);
    for (const res of answers) expect(listedIds(res)).toEqual([created, kept]);
  });
});
