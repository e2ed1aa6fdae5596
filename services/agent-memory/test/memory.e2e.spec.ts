import path from 'node:path';
import { agentMemoryV1 } from '@agentplatform/contracts';
import { createGrpcClient, openChannel } from '@agentplatform/service-kit';
import { ServiceProcess, startTenantPlatform, suiteFixture, waitFor } from '@agentplatform/testing';
import { newTenant } from './support';

/** Memory items through the gateway: CRUD, hybrid search with filters, ranking, consolidation. */
describe('memory through the gateway', () => {
  const suite = suiteFixture(() => startTenantPlatform({ services: ['identity', 'agent-memory'] }, 'memory'));

  const newAgent = async (memoryTypes = ['semantic', 'episodic']) => {
    const res = await suite.http.post('/api/v1/agents', {
      name: 'Memory agent',
      type: 'research',
      memory_types: memoryTypes,
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  const add = async (
    agentId: string,
    content: string,
    metadata: Record<string, unknown> = {},
    memoryType = 'semantic',
  ) => {
    const res = await suite.http.post('/api/v1/memory', {
      agent_id: agentId,
      memory_type: memoryType,
      content,
      metadata,
    });
    expect(res.status).toBe(201);
    return res.body;
  };

  /** A second agent-memory replica beside the gateway's, with a gRPC client to it; stop it after. */
  const startReplica = async () => {
    const replica = new ServiceProcess(
      'agent-memory',
      {
        ...process.env,
        LOG_LEVEL: 'info',
        MONGODB_URI: suite.platform.mongoUri,
        MONGODB_DATABASE: suite.platform.database('agent-memory'),
        KAFKA_BROKERS: suite.platform.kafkaBrokers.join(','),
        KAFKA_TOPIC: suite.platform.topic,
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: '0',
        METRICS_PORT: '0',
        IDENTITY_GRPC_ADDR: `127.0.0.1:${suite.platform.service('identity').ready!.grpc_port}`,
        DATA_ENCRYPTION_KEY: suite.platform.dataEncryptionKey,
      },
      path.join(suite.platform.logDir, 'agent-memory-replica.log'),
    );
    const ready = await replica.start();
    const channel = openChannel(`127.0.0.1:${ready.grpc_port}`);
    return {
      client: createGrpcClient(agentMemoryV1.AgentMemoryServiceDefinition, channel, { deadlineMs: 10_000 }),
      stop: async () => {
        channel.close();
        await replica.stop();
      },
    };
  };

  const search = async (body: Record<string, unknown>) => {
    const res = await suite.http.post('/api/v1/memory/search', body);
    expect(res.status).toBe(200);
    return res.body.results as Array<{ id: string; content: string; score: number; metadata: Record<string, unknown> }>;
  };

  describe('add, get, list, update, delete', () => {
    it('adds an item (201 with the stored item), gets and lists it', async () => {
      const agentId = await newAgent();
      const res = await suite.http.post('/api/v1/memory', {
        agent_id: agentId,
        memory_type: 'semantic',
        content: 'The customer prefers email over phone calls.',
        metadata: { source: 'crm', category: 'preferences', score: 4, nested: { lang: 'en' } },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^mem_/),
        agent_id: agentId,
        memory_type: 'semantic',
        content: 'The customer prefers email over phone calls.',
        metadata: { source: 'crm', category: 'preferences', score: 4, nested: { lang: 'en' } },
        merged_from: [],
        // The add answers before the embedding backlog has made the item's vector.
        embedding: { provider: '', dimension: 0 },
      });
      const got = await suite.http.get(`/api/v1/memory/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ ...res.body, embedding: expect.any(Object) });
      const defaultType = await suite.http.post('/api/v1/memory', { agent_id: agentId, content: 'No type given' });
      expect(defaultType.body.memory_type).toBe('semantic');
      expect(defaultType.body.metadata).toEqual({});

      const list = await suite.http.get(`/api/v1/memory?agent_id=${agentId}&per_page=1`);
      expect(list.body).toMatchObject({ total: 2, page: 1, per_page: 1 });
      expect(list.body.items[0].id).toBe(defaultType.body.id);
    });

    it("keeps a full page's total in step with adds, batches and deletes", async () => {
      // A full first page takes its total from the agent's memory count (the quota's counter),
      // not from counting the collection; the count must match what paging shows.
      const agentId = await newAgent();
      const total = async () => (await suite.http.get(`/api/v1/memory?agent_id=${agentId}&per_page=2`)).body.total;
      const added = [];
      for (const content of ['one', 'two', 'three'])
        added.push((await suite.http.post('/api/v1/memory', { agent_id: agentId, content })).body.id as string);
      expect(await total()).toBe(3);
      const batch = await suite.http.post('/api/v1/memory/batch', {
        agent_id: agentId,
        items: [{ content: 'four' }, { content: 'five' }],
      });
      expect(batch.status).toBe(201);
      expect(await total()).toBe(5);
      expect((await suite.http.delete(`/api/v1/memory/${added[0]}`)).status).toBe(200);
      expect((await suite.http.delete(`/api/v1/memory/${added[0]}`)).status).toBe(404);
      expect(await total()).toBe(4);
      const all = await suite.http.get(`/api/v1/memory?agent_id=${agentId}&per_page=100`);
      expect(all.body.items).toHaveLength(4);
      expect(await total()).toBe(4);
    });

    it.each([
      ['missing agent_id', { content: 'x' }, 'agent_id'],
      ['empty content', { agent_id: 'agt_x', content: '' }, 'content'],
      ['unknown memory type', { agent_id: 'agt_x', content: 'x', memory_type: 'dream' }, 'memory_type'],
      ['metadata not an object', { agent_id: 'agt_x', content: 'x', metadata: [1, 2] }, 'metadata'],
    ])('refuses %s with a 400 naming the field', async (_label, body, field) => {
      const res = await suite.http.post('/api/v1/memory', body);
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
    });

    it('refuses a memory type the agent has not enabled, and an unknown agent', async () => {
      const agentId = await newAgent(['semantic']);
      const res = await suite.http.post('/api/v1/memory', {
        agent_id: agentId,
        memory_type: 'procedural',
        content: 'Step 1',
      });
      expect(res.status).toBe(400);
      expect(res.body.details[0]).toMatchObject({
        field: 'memory_type',
        message: expect.stringContaining('not enabled'),
      });
      expect((await suite.http.post('/api/v1/memory', { agent_id: 'agt_unknown', content: 'x' })).status).toBe(404);
    });

    it('refuses a memory type another replica disabled after this one last wrote to the agent', async () => {
      const agentId = await newAgent(['semantic', 'episodic']);
      const first = await add(agentId, 'Known to the replica that wrote it.');
      const { client: other, stop } = await startReplica();
      try {
        await other.updateAgent({ tenantId: suite.tenantId, agentId, memoryTypes: { values: ['episodic'] } });
      } finally {
        await stop();
      }
      const refused = await suite.http.post('/api/v1/memory', { agent_id: agentId, content: 'A semantic fact.' });
      expect(refused.status).toBe(400);
      expect(refused.body.details).toEqual([
        expect.objectContaining({ field: 'memory_type', message: expect.stringContaining('not enabled') }),
      ]);
      const event = await add(agentId, 'An episode.', {}, 'episodic');
      const listed = await suite.http.get(`/api/v1/memory?agent_id=${agentId}`);
      expect(listed.status).toBe(200);
      expect(listed.body.items.map((m: { id: string }) => m.id).sort()).toEqual([first.id, event.id].sort());
      const found = await search({ agent_id: agentId, query: 'semantic fact' });
      expect(found.map((r) => r.content)).not.toContain('A semantic fact.');
    });

    it('updates content (re-embedded and re-indexed) and metadata, and deletes', async () => {
      const agentId = await newAgent();
      const item = await add(agentId, 'The launch is planned for March.', { team: 'marketing' });
      await add(agentId, 'Lunch is served at noon in the cafeteria.');
      expect((await search({ agent_id: agentId, query: 'launch March' }))[0].id).toBe(item.id);

      const res = await suite.http.patch(`/api/v1/memory/${item.id}`, {
        content: 'The launch moved to September.',
        metadata: { team: 'product' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: item.id,
        content: 'The launch moved to September.',
        metadata: { team: 'product' },
      });
      expect(res.body.updated_at > item.updated_at).toBe(true);
      const after = await search({ agent_id: agentId, query: 'launch September' });
      expect(after[0]).toMatchObject({
        id: item.id,
        content: 'The launch moved to September.',
        metadata: { team: 'product' },
      });
      expect((await search({ agent_id: agentId, query: 'March', min_score: 0.3 })).map((r) => r.id)).not.toContain(
        item.id,
      );

      const badPatch = await suite.http.patch(`/api/v1/memory/${item.id}`, { content: '' });
      expect(badPatch.status).toBe(400);
      expect(badPatch.body.details[0].field).toBe('content');

      expect((await suite.http.delete(`/api/v1/memory/${item.id}`)).status).toBe(200);
      expect((await suite.http.get(`/api/v1/memory/${item.id}`)).status).toBe(404);
      expect((await search({ agent_id: agentId, query: 'launch September' })).map((r) => r.id)).not.toContain(item.id);
      expect((await suite.http.delete(`/api/v1/memory/${item.id}`)).status).toBe(404);
    });
  });

  describe('search', () => {
    let agentId: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      agentId = await newAgent(['semantic', 'episodic', 'procedural']);
      const items: Array<[string, string, Record<string, unknown>, string?]> = [
        [
          'refund',
          'Our refund policy allows returns within 30 days of purchase.',
          { category: 'billing', priority: 3, tags: ['refund', 'policy'], source: 'faq', region: { code: 'EU' } },
        ],
        [
          'digital',
          'Refunds for digital downloads are not possible once the file was opened.',
          { category: 'billing', priority: 1, tags: ['refund'], source: 'legal' },
        ],
        [
          'phone',
          'Enterprise customers get phone support around the clock.',
          { category: 'support', priority: 5, tags: ['enterprise'], source: 'faq' },
        ],
        [
          'password',
          'Passwords must be changed every 90 days for compliance.',
          { category: 'security', priority: 4, tags: ['password'], source: 'policy-doc' },
        ],
        [
          'ratelimit',
          'The API rate limit on the pro plan is 600 requests per minute.',
          { category: 'api', priority: 2, tags: ['limits'], source: 'docs' },
        ],
        [
          'invoice',
          'Invoices are emailed on the first day of every month.',
          { category: 'billing', priority: 2, tags: ['invoice'], source: 'faq', updated: '2026-03-01' },
        ],
        [
          'darkmode',
          'The mobile app supports dark mode since version 3.2.',
          { category: 'product', priority: 1, tags: ['mobile'], source: 'release-notes', updated: '2026-05-10' },
        ],
        [
          'shipping',
          'Shipping to Canada takes five to seven business days.',
          { category: 'logistics', priority: 2, tags: ['shipping'], source: 'faq' },
        ],
        [
          'twofactor',
          'Two-factor authentication can be enabled in the security settings.',
          { category: 'security', priority: 3, tags: ['2fa'], source: 'docs' },
        ],
        [
          'backup',
          'Customer data is backed up nightly to a second region.',
          { category: 'security', priority: 2, tags: ['backup'], source: 'docs' },
        ],
        [
          'ceo',
          'Maria Lopez has been the chief executive officer since 2021.',
          { category: 'company', priority: 1, tags: [], source: 'wiki' },
        ],
        [
          'onboarding',
          'To onboard a new employee: create the account, assign a laptop, book the intro call.',
          { category: 'hr', priority: 2, tags: ['howto'], source: 'wiki' },
          'procedural',
        ],
      ];
      for (const [key, content, metadata, type] of items)
        ids[key] = (await add(agentId, content, metadata, type ?? 'semantic')).id;
      // Some checks below compare the scores of two searches: a vector stored by the backlog
      // between them would move a score (it failed that way once on a slow machine).
      await waitFor(
        async () => {
          const res = await suite.http.get(`/api/v1/memory?agent_id=${agentId}&per_page=100`);
          const listed = res.body.items as Array<{ embedding: { dimension: number } }>;
          return listed.length === items.length && listed.every((item) => item.embedding.dimension > 0);
        },
        { timeoutMs: 60_000, what: 'every searched memory to have its vector' },
      );
    });

    it.each([
      ['What is the refund policy for returns?', 'refund'],
      ['Can I get a refund for a digital download?', 'digital'],
      ['phone support for enterprise customers', 'phone'],
      ['how often do passwords have to be changed', 'password'],
      ['rate limit of the pro plan', 'ratelimit'],
      ['when are invoices emailed', 'invoice'],
      ['does the mobile app have dark mode', 'darkmode'],
      ['how long does shiping to canada take', 'shipping'],
      ['enable two factor authentification', 'twofactor'],
      ['how is customer data backed up', 'backup'],
      ['who is the chief executive', 'ceo'],
      ['steps to onboard a new employee', 'onboarding'],
    ])('ranks the relevant item first for %j', async (query, expected) => {
      const results = await search({ agent_id: agentId, query, top_k: 5 });
      expect(results[0].id).toBe(ids[expected]);
      for (const r of results) expect(r.score).toBeGreaterThanOrEqual(0);
      for (const r of results) expect(r.score).toBeLessThanOrEqual(1);
      const scores = results.map((r) => r.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      // The best match stands clearly above the rest.
      expect(results[0].score - (results[1]?.score ?? 0)).toBeGreaterThan(0.05);
    });

    it('returns SPEC fields, honours top_k and memory_type', async () => {
      const results = await search({ agent_id: agentId, query: 'billing refund invoice policy', top_k: 2 });
      expect(results).toHaveLength(2);
      expect(Object.keys(results[0]).sort()).toEqual([
        'content',
        'created_at',
        'id',
        'memory_type',
        'metadata',
        'score',
      ]);
      const procedural = await search({
        agent_id: agentId,
        query: 'employee account laptop refund',
        memory_type: 'procedural',
      });
      expect(procedural.map((r) => r.id)).toEqual([ids.onboarding]);
    });

    it.each([
      ['eq (shorthand)', { category: 'billing' }, ['refund', 'digital', 'invoice']],
      ['eq', { category: { eq: 'security' } }, ['password', 'twofactor', 'backup']],
      ['ne', { category: { ne: 'billing' }, source: 'faq' }, ['phone', 'shipping']],
      ['in', { source: { in: ['legal', 'wiki'] } }, ['digital', 'ceo', 'onboarding']],
      ['gt', { priority: { gt: 3 } }, ['phone', 'password']],
      ['gte and lte', { priority: { gte: 3, lte: 4 } }, ['refund', 'password', 'twofactor']],
      ['lt', { priority: { lt: 2 } }, ['digital', 'darkmode', 'ceo']],
      ['string range', { updated: { gte: '2026-04-01' } }, ['darkmode']],
      ['contains in an array', { tags: { contains: 'refund' } }, ['refund', 'digital']],
      ['contains in a string', { source: { contains: 'NOTES' } }, ['darkmode']],
      ['nested path', { 'region.code': 'EU' }, ['refund']],
    ])('filters on metadata with %s', async (_label, filters, expected) => {
      const results = await search({
        agent_id: agentId,
        query: 'policy refund support data plan',
        top_k: 100,
        filters,
      });
      expect(results.map((r) => r.id).sort()).toEqual(expected.map((k) => ids[k]).sort());
    });

    it('drops results under min_score', async () => {
      const all = await search({ agent_id: agentId, query: 'refund policy returns', top_k: 100 });
      expect(all.length).toBeGreaterThan(3);
      const cut = all[2].score;
      const kept = await search({ agent_id: agentId, query: 'refund policy returns', top_k: 100, min_score: cut });
      expect(kept.map((r) => r.id)).toEqual(all.filter((r) => r.score >= cut).map((r) => r.id));
      expect(kept.every((r) => r.score >= cut)).toBe(true);
      expect(await search({ agent_id: agentId, query: 'refund policy returns', min_score: 1 })).toEqual([]);
    });

    it.each([
      ['top_k 0', { top_k: 0 }, 'top_k'],
      ['top_k 101', { top_k: 101 }, 'top_k'],
      ['top_k not an integer', { top_k: 2.5 }, 'top_k'],
      ['min_score above 1', { min_score: 1.5 }, 'min_score'],
      ['empty query', { query: '' }, 'query'],
      ['unknown memory type', { memory_type: 'dream' }, 'memory_type'],
      ['unknown operator', { filters: { priority: { between: [1, 2] } } }, 'filters.priority.between'],
      ['in without an array', { filters: { source: { in: 'faq' } } }, 'filters.source.in'],
      ['gt with an object', { filters: { priority: { gt: { x: 1 } } } }, 'filters.priority.gt'],
    ])('refuses %s with a 400 naming the field', async (_label, patch, field) => {
      const res = await suite.http.post('/api/v1/memory/search', { agent_id: agentId, query: 'refund', ...patch });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
    });

    it('never serves an agent cached for its tenant to another tenant', async () => {
      // The version check reads the agent by id alone and compares the tenant in code.
      expect((await search({ agent_id: agentId, query: 'refund policy' })).length).toBeGreaterThan(0);
      const other = await newTenant(suite.platform);
      const res = await other.http.post('/api/v1/memory/search', { agent_id: agentId, query: 'refund policy' });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    });

    it('sees writes made through another replica (the cache is checked against the agent version)', async () => {
      const { client: other, stop } = await startReplica();
      try {
        const query = { tenantId: suite.tenantId, agentId, query: 'penguins in the zoo', topK: 3 };
        expect((await other.searchMemory(query)).results.map((r) => r.content)).not.toContain(
          'The zoo has twelve penguins.',
        );
        const added = await add(agentId, 'The zoo has twelve penguins.');
        expect((await other.searchMemory(query)).results[0].id).toBe(added.id);
        await other.deleteMemory({ tenantId: suite.tenantId, memoryId: added.id });
        expect((await search({ agent_id: agentId, query: 'penguins in the zoo' })).map((r) => r.id)).not.toContain(
          added.id,
        );
        const viaReplica = await other.addMemory({
          tenantId: suite.tenantId,
          agentId,
          content: 'Penguins are fed at three.',
          metadata: {},
        });
        expect((await search({ agent_id: agentId, query: 'when are penguins fed' }))[0].id).toBe(viaReplica.id);
        await suite.http.delete(`/api/v1/memory/${viaReplica.id}`);
      } finally {
        await stop();
      }
    });
  });

  describe('consolidation', () => {
    it('merges near-duplicates of one type, records what it merged, and fires memory.consolidated', async () => {
      const agentId = await newAgent();
      const keep = await add(agentId, 'The user prefers dark mode in the code editor.', { source: 'chat', seen: 1 });
      const dup1 = await add(agentId, 'User prefers dark mode in the code editor', {
        source: 'survey',
        channel: 'web',
      });
      const dup2 = await add(agentId, 'the user prefers DARK MODE in the code editor!', { extra: true });
      const episodicTwin = await add(agentId, 'The user prefers dark mode in the code editor.', {}, 'episodic');
      const other = await add(agentId, 'The user prefers light mode on the phone.');
      const unrelated = await add(agentId, 'Quarterly taxes are due in April.');

      const res = await suite.http.post('/api/v1/memory/consolidate', { agent_id: agentId });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ merged: 1, removed: 2, remaining: 4 });
      expect(res.body.groups).toHaveLength(1);
      const group = res.body.groups[0];
      expect([keep.id, dup1.id, dup2.id]).toContain(group.kept_id);
      expect([...group.merged_ids, group.kept_id].sort()).toEqual([keep.id, dup1.id, dup2.id].sort());

      const kept = await suite.http.get(`/api/v1/memory/${group.kept_id}`);
      expect(kept.body.merged_from.sort()).toEqual([...group.merged_ids].sort());
      expect(kept.body.metadata).toMatchObject({ channel: 'web', extra: true });
      for (const id of group.merged_ids) expect((await suite.http.get(`/api/v1/memory/${id}`)).status).toBe(404);
      for (const id of [episodicTwin.id, other.id, unrelated.id])
        expect((await suite.http.get(`/api/v1/memory/${id}`)).status).toBe(200);
      const results = await search({ agent_id: agentId, query: 'dark mode editor', memory_type: 'semantic' });
      expect(results.filter((r) => r.content.toLowerCase().includes('dark mode'))).toHaveLength(1);

      const event = await suite.tap.wait('memory.consolidated', (e) => e.data.agent_id === agentId);
      expect(event.tenant_id).toBe(suite.tenantId);
      expect(event.data).toEqual({ agent_id: agentId, merged: 1, removed: 2, remaining: 4 });

      const again = await suite.http.post('/api/v1/memory/consolidate', { agent_id: agentId });
      expect(again.body).toMatchObject({ merged: 0, removed: 0, remaining: 4, groups: [] });
    });

    it('validates its input', async () => {
      expect((await suite.http.post('/api/v1/memory/consolidate', {})).body.details[0].field).toBe('agent_id');
      const bad = await suite.http.post('/api/v1/memory/consolidate', { agent_id: 'agt_x', threshold: 0.1 });
      expect(bad.status).toBe(400);
      expect(bad.body.details[0].field).toBe('threshold');
      expect((await suite.http.post('/api/v1/memory/consolidate', { agent_id: 'agt_unknown' })).status).toBe(404);
    });
  });
});
