import { startTenantPlatform, suiteFixture } from '@agentplatform/testing';
import { memoryHelpers } from './support';

/** Memory items through the gateway: CRUD and consolidation (search: memory-search.e2e.spec.ts). */
describe('memory through the gateway', () => {
  const suite = suiteFixture(() => startTenantPlatform({ services: ['identity', 'agent-memory'] }, 'memory'));
  const { newAgent, add, startReplica, search } = memoryHelpers(suite);

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
