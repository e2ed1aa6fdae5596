import { startTenantPlatform, suiteFixture } from '@agentplatform/testing';
import { newTenant } from './support';

/**
 * Agents through the gateway: CRUD and its validation, and tenant isolation (chat with the
 * offline responder and its credits: agents-chat.e2e.spec.ts).
 */
describe('agents through the gateway', () => {
  const suite = suiteFixture(() => startTenantPlatform({ services: ['identity', 'agent-memory'] }, 'agents'));

  const createAgent = async (body: Record<string, unknown> = {}) => {
    const res = await suite.http.post('/api/v1/agents', { name: 'Support bot', type: 'support', ...body });
    expect(res.status).toBe(201);
    return res.body;
  };

  describe('CRUD', () => {
    it('creates an agent with defaults, returns it, lists it and fires agent.created', async () => {
      const res = await suite.http.post('/api/v1/agents', {
        name: 'Helpdesk',
        type: 'support',
        description: 'Answers billing questions',
        memory_types: ['semantic', 'episodic'],
        config: {
          model: 'gpt-4o-mini',
          temperature: 0.2,
          max_tokens: 300,
          system_prompt: 'Be brief.',
          extra: 'dropped',
        },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^agt_/),
        name: 'Helpdesk',
        type: 'support',
        status: 'active',
        description: 'Answers billing questions',
        memory_types: ['semantic', 'episodic'],
        config: { model: 'gpt-4o-mini', temperature: 0.2, max_tokens: 300, system_prompt: 'Be brief.' },
      });
      expect(res.body.config.extra).toBeUndefined();
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);

      const defaults = await createAgent();
      expect(defaults.memory_types).toEqual(['semantic', 'episodic']);
      expect(defaults.status).toBe('active');

      const list = await suite.http.get('/api/v1/agents?per_page=1');
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ total: 2, page: 1, per_page: 1 });
      expect(list.body.agents.map((a: { id: string }) => a.id)).toEqual([defaults.id]);
      const page2 = await suite.http.get('/api/v1/agents?per_page=1&page=2');
      expect(page2.body.agents.map((a: { id: string }) => a.id)).toEqual([res.body.id]);
      // The total is the same whether it is counted (a full page, a page past the end) or follows
      // from a page that is not full.
      expect(page2.body.total).toBe(2);
      expect((await suite.http.get('/api/v1/agents?per_page=10')).body).toMatchObject({ total: 2 });
      expect((await suite.http.get('/api/v1/agents?per_page=1&page=3')).body).toMatchObject({ total: 2, agents: [] });

      const got = await suite.http.get(`/api/v1/agents/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);

      const event = await suite.tap.wait('agent.created', (e) => e.data.agent_id === res.body.id);
      expect(event.tenant_id).toBe(suite.tenantId);
      expect(event.data).toEqual({ agent_id: res.body.id, name: 'Helpdesk', type: 'support', status: 'active' });
    });

    it('updates only the given fields, merges config, and fires agent.updated naming them', async () => {
      const agent = await createAgent({ config: { model: 'm1', temperature: 1 } });
      const res = await suite.http.patch(`/api/v1/agents/${agent.id}`, {
        name: 'Renamed',
        config: { temperature: 0.5, model: null, system_prompt: 'Hi' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: agent.id, name: 'Renamed', type: 'support', status: 'active' });
      expect(res.body.config).toEqual({ temperature: 0.5, system_prompt: 'Hi' });
      expect(res.body.updated_at >= agent.updated_at).toBe(true);
      const event = await suite.tap.wait('agent.updated', (e) => e.data.agent_id === agent.id);
      expect(event.data.changed.sort()).toEqual(['config', 'name']);
      expect(event.data.status).toBe('active');
    });

    it('deletes an agent with its memories and sessions', async () => {
      const agent = await createAgent();
      expect((await suite.http.post('/api/v1/memory', { agent_id: agent.id, content: 'Remember me' })).status).toBe(
        201,
      );
      expect((await suite.http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'hello' })).status).toBe(200);
      const res = await suite.http.delete(`/api/v1/agents/${agent.id}`);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect((await suite.http.get(`/api/v1/agents/${agent.id}`)).status).toBe(404);
      expect((await suite.http.get(`/api/v1/memory?agent_id=${agent.id}`)).status).toBe(404);
      const all = await suite.http.get('/api/v1/memory');
      expect(all.body.items.filter((m: { agent_id: string }) => m.agent_id === agent.id)).toEqual([]);
      expect((await suite.http.delete(`/api/v1/agents/${agent.id}`)).status).toBe(404);
    });

    it.each([
      ['missing name', { type: 'support' }, 'name'],
      ['blank name', { name: '   ', type: 'support' }, 'name'],
      ['missing type', { name: 'A' }, 'type'],
      ['unknown type', { name: 'A', type: 'robot' }, 'type'],
      ['unknown status', { name: 'A', type: 'support', status: 'sleeping' }, 'status'],
      ['description not a string', { name: 'A', type: 'support', description: 42 }, 'description'],
      ['unknown memory type', { name: 'A', type: 'support', memory_types: ['semantic', 'dreams'] }, 'memory_types[1]'],
      ['memory_types not an array', { name: 'A', type: 'support', memory_types: 'semantic' }, 'memory_types'],
      ['temperature above 2', { name: 'A', type: 'support', config: { temperature: 2.5 } }, 'config.temperature'],
      ['temperature below 0', { name: 'A', type: 'support', config: { temperature: -0.1 } }, 'config.temperature'],
      [
        'max_tokens not a positive integer',
        { name: 'A', type: 'support', config: { max_tokens: 0 } },
        'config.max_tokens',
      ],
      ['empty model', { name: 'A', type: 'support', config: { model: '' } }, 'config.model'],
      [
        'system_prompt not a string',
        { name: 'A', type: 'support', config: { system_prompt: ['x'] } },
        'config.system_prompt',
      ],
      ['config not an object', { name: 'A', type: 'support', config: 'fast' }, 'config'],
    ])('refuses %s with a 400 naming the field', async (_label, body, field) => {
      const res = await suite.http.post('/api/v1/agents', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
    });

    it('names every wrong field at once, on create and on update', async () => {
      const res = await suite.http.post('/api/v1/agents', { type: 'robot', config: { temperature: 9 } });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'config.temperature',
        'name',
        'type',
      ]);
      const agent = await createAgent();
      const patch = await suite.http.patch(`/api/v1/agents/${agent.id}`, { status: 'paused', memory_types: ['x'] });
      expect(patch.status).toBe(400);
      expect(patch.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['memory_types[0]', 'status']);
      const v1 = await suite.http.post('/v1/agents', { name: 'A', type: 'robot' });
      expect(v1.status).toBe(400);
      expect(v1.body).toMatchObject({
        success: false,
        error: { code: 'validation_error', details: [{ field: 'type' }] },
      });
    });
  });

  describe('tenant isolation', () => {
    it('answers 404 for another tenant’s agent, sessions and memories, and 403 for a foreign tenant_id', async () => {
      const agent = await createAgent();
      const chat = await suite.http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'hi' });
      const memory = await suite.http.post('/api/v1/memory', { agent_id: agent.id, content: 'Private fact' });
      const other = await newTenant(suite.platform);
      const them = other.http;
      expect((await them.get(`/api/v1/agents/${agent.id}`)).status).toBe(404);
      expect((await them.patch(`/api/v1/agents/${agent.id}`, { name: 'x' })).status).toBe(404);
      expect((await them.delete(`/api/v1/agents/${agent.id}`)).status).toBe(404);
      expect((await them.post(`/api/v1/agents/${agent.id}/chat`, { message: 'hi' })).status).toBe(404);
      expect((await them.get(`/api/v1/agents/${agent.id}/sessions`)).status).toBe(404);
      expect((await them.get(`/api/v1/agents/${agent.id}/sessions/${chat.body.session_id}/messages`)).status).toBe(404);
      expect((await them.get(`/api/v1/memory/${memory.body.id}`)).status).toBe(404);
      expect((await them.patch(`/api/v1/memory/${memory.body.id}`, { content: 'x' })).status).toBe(404);
      expect((await them.delete(`/api/v1/memory/${memory.body.id}`)).status).toBe(404);
      expect((await them.post('/api/v1/memory', { agent_id: agent.id, content: 'x' })).status).toBe(404);
      expect((await them.post('/api/v1/memory/search', { agent_id: agent.id, query: 'fact' })).status).toBe(404);
      expect((await them.post('/api/v1/memory/consolidate', { agent_id: agent.id })).status).toBe(404);
      expect((await them.get('/api/v1/agents')).body.total).toBe(0);

      const foreign = await them.get(`/api/v1/agents?tenant_id=${suite.tenantId}`);
      expect(foreign.status).toBe(403);
      expect(foreign.body.error).toBe('forbidden');
      // A session id of one agent names another session on another agent (docs/design.md section 6):
      // the second agent's turn starts a session of its own and never sees the first one's turns.
      const second = await createAgent();
      const reused = await suite.http.post(`/api/v1/agents/${second.id}/chat`, {
        message: 'hi',
        session_id: chat.body.session_id,
      });
      expect(reused.status).toBe(200);
      expect(reused.body.session_id).toBe(chat.body.session_id);
      const secondMessages = await suite.http.get(
        `/api/v1/agents/${second.id}/sessions/${chat.body.session_id}/messages`,
      );
      expect(secondMessages.body.messages.map((m: { content: string }) => m.content)).toEqual([
        'hi',
        reused.body.content,
      ]);
    });
  });
});
