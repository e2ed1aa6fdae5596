import { MongoClient } from 'mongodb';
import { seedMemories, type SeededMemory, startTenantPlatform, suiteFixture } from '@agentplatform/testing';
import { newTenant, type Http } from './support';

/**
 * `POST /memory/batch` through the gateway, with the real services: all or none, each item what a
 * single add answers, the memories quota under parallel batches, tenants apart, lexical search at
 * once. The free plan (10,000 memories per agent, 60 requests a minute per tenant): each test
 * registers its own tenant.
 */
describe('memory batch add through the gateway', () => {
  const suite = suiteFixture(() =>
    startTenantPlatform({ services: ['identity', 'agent-memory'], env: { DEFAULT_PLAN: 'free' } }, 'memory-batch'),
  );

  const tenant = () => newTenant(suite.platform);

  const newAgent = async (http: Http, memoryTypes = ['semantic', 'episodic']) => {
    const res = await http.post('/api/v1/agents', { name: 'Batch agent', type: 'research', memory_types: memoryTypes });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  const listed = async (http: Http, agentId: string) =>
    (await http.get(`/api/v1/memory?agent_id=${agentId}&per_page=100`)).body as { total: number; items: any[] };

  it('stores every item and answers them in request order, each as a single add answers it', async () => {
    const { http } = await tenant();
    const agentId = await newAgent(http);
    const items = [
      { memory_type: 'episodic', content: 'Alice: I booked the trip to Lisbon for May.', metadata: { session: 3 } },
      { content: 'Bob: Are you taking the train?' },
      { memory_type: 'semantic', content: '  Refunds take 5 to 7 business days.  ', metadata: { nested: { a: 1 } } },
    ];
    const res = await http.post('/api/v1/memory/batch', { agent_id: agentId, items });
    expect(res.status).toBe(201);
    expect(res.body.items).toHaveLength(3);
    expect(res.body.items.map((i: any) => [i.memory_type, i.content, i.metadata])).toEqual([
      ['episodic', 'Alice: I booked the trip to Lisbon for May.', { session: 3 }],
      ['semantic', 'Bob: Are you taking the train?', {}],
      ['semantic', 'Refunds take 5 to 7 business days.', { nested: { a: 1 } }],
    ]);
    const single = await http.post('/api/v1/memory', { agent_id: agentId, content: 'one more' });
    for (const item of res.body.items) {
      // Same fields as a single add's answer, and what a read of the item answers.
      expect(Object.keys(item).sort()).toEqual(Object.keys(single.body).sort());
      expect(item).toMatchObject({ agent_id: agentId, merged_from: [], embedding: { provider: '', dimension: 0 } });
      const got = await http.get(`/api/v1/memory/${item.id}`);
      expect(got.body).toEqual({ ...item, embedding: expect.any(Object) });
    }
    // Newest first: the batch's items were created in request order, before the single add.
    expect((await listed(http, agentId)).items.map((i) => i.id)).toEqual([
      single.body.id,
      ...res.body.items.map((i: any) => i.id).reverse(),
    ]);
  });

  it.each([
    ['no items', { items: [] }, ['items']],
    ['101 items', { items: Array.from({ length: 101 }, () => ({ content: 'x' })) }, ['items']],
    [
      'an empty content',
      { items: [{ content: 'ok' }, { content: 'ok' }, { content: 'ok' }, { content: '' }] },
      ['items[3].content'],
    ],
    ['a blank content', { items: [{ content: 'ok' }, { content: '   ' }] }, ['items[1].content']],
    ['an unknown type', { items: [{ content: 'x', memory_type: 'dream' }] }, ['items[0].memory_type']],
    ['metadata not an object', { items: [{ content: 'x' }, { content: 'y', metadata: [1] }] }, ['items[1].metadata']],
    [
      'a type the agent has not enabled',
      { items: [{ content: 'x' }, { content: 'y', memory_type: 'procedural' }] },
      ['items[1].memory_type'],
    ],
  ])('refuses %s with a 400 naming the field, and stores nothing', async (_label, body, fields) => {
    const { http } = await tenant();
    const agentId = await newAgent(http);
    const res = await http.post('/api/v1/memory/batch', { agent_id: agentId, ...body });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(fields);
    expect((await listed(http, agentId)).total).toBe(0);
  });

  it('refuses batches that do not fit the memories quota whole, under parallel batches', async () => {
    const { user, http } = await tenant();
    const agentId = await newAgent(http);
    // 9,980 memories written straight into the service's database stand for a long history.
    const mongo = await MongoClient.connect(suite.platform.mongoUri);
    try {
      const memories = mongo.db(suite.platform.database('agent-memory')).collection<SeededMemory>('memories');
      await seedMemories(memories, user.tenantId, agentId, 9_980);
    } finally {
      await mongo.close();
    }
    // 20 units left; six parallel batches of 7: two fit, four are refused whole.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, b) =>
        http.post('/api/v1/memory/batch', {
          agent_id: agentId,
          items: Array.from({ length: 7 }, (_, i) => ({ content: `batch ${b} item ${i}` })),
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 403, 403, 403, 403]);
    for (const refused of answers.filter((a) => a.status === 403)) {
      expect(refused.body).toMatchObject({
        error: 'quota_exceeded',
        details: [{ field: 'memories', message: 'limit 10000 on plan free' }],
      });
    }
    expect((await http.get(`/api/v1/memory?agent_id=${agentId}&per_page=1`)).body.total).toBe(9_994);
    // The six units left: a batch of 7 is refused, one of 6 fits exactly.
    const seven = Array.from({ length: 7 }, (_, i) => ({ content: `last ${i}` }));
    expect((await http.post('/api/v1/memory/batch', { agent_id: agentId, items: seven })).status).toBe(403);
    expect((await http.post('/api/v1/memory/batch', { agent_id: agentId, items: seven.slice(1) })).status).toBe(201);
    expect((await http.post('/api/v1/memory', { agent_id: agentId, content: 'over' })).status).toBe(403);
  });

  it("answers 404 for another tenant's agent and an unknown one, storing nothing", async () => {
    const owner = await tenant();
    const agentId = await newAgent(owner.http);
    const other = await tenant();
    const items = [{ content: 'planted by another tenant' }];
    const res = await other.http.post('/api/v1/memory/batch', { agent_id: agentId, items });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
    expect((await other.http.post('/api/v1/memory/batch', { agent_id: 'agt_unknown', items })).status).toBe(404);
    expect((await listed(owner.http, agentId)).total).toBe(0);
  });

  it('makes batch-added items lexically searchable in the answer’s wake', async () => {
    const { http } = await tenant();
    const agentId = await newAgent(http);
    const res = await http.post('/api/v1/memory/batch', {
      agent_id: agentId,
      items: [
        { content: 'The penguin enclosure opens at nine.' },
        { content: 'Lunch is served at noon in the cafeteria.' },
        { content: 'The giraffe house closes for repairs in June.' },
      ],
    });
    expect(res.status).toBe(201);
    const search = await http.post('/api/v1/memory/search', { agent_id: agentId, query: 'giraffe repairs', top_k: 3 });
    expect(search.status).toBe(200);
    expect(search.body.results[0].id).toBe(res.body.items[2].id);
    const penguins = await http.post('/api/v1/memory/search', { agent_id: agentId, query: 'penguin', top_k: 1 });
    expect(penguins.body.results.map((r: { id: string }) => r.id)).toEqual([res.body.items[0].id]);
  });

  it('replays a retry with the same Idempotency-Key instead of storing the items twice', async () => {
    const { http } = await tenant();
    const agentId = await newAgent(http);
    const headers = { 'idempotency-key': `batch-${agentId}` };
    const body = { agent_id: agentId, items: [{ content: 'first import line' }, { content: 'second import line' }] };
    const first = await http.post('/api/v1/memory/batch', body, { headers });
    expect(first.status).toBe(201);
    const retry = await http.post('/api/v1/memory/batch', body, { headers });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect((await listed(http, agentId)).total).toBe(2);
  });

  it('emits per item exactly what a single add emits: no event', async () => {
    const { user, http } = await tenant();
    const agentId = await newAgent(http);
    expect((await http.post('/api/v1/memory', { agent_id: agentId, content: 'a single add' })).status).toBe(201);
    const items = Array.from({ length: 5 }, (_, i) => ({ content: `batch line ${i}` }));
    expect((await http.post('/api/v1/memory/batch', { agent_id: agentId, items })).status).toBe(201);
    // Consolidation's event goes through the same outbox after the adds: once it is out, whatever
    // the adds emitted would be too.
    expect((await http.post('/api/v1/memory/consolidate', { agent_id: agentId })).status).toBe(200);
    await suite.tap.wait('memory.consolidated', (e) => e.data.agent_id === agentId);
    const events = suite.tap.filter((e) => e.tenant_id === user.tenantId && e.type.startsWith('memory.'));
    expect(events.map((e) => e.type)).toEqual(['memory.consolidated']);
  });
});
