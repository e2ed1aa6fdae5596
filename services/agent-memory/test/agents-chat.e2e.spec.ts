import { startTenantPlatform, suiteFixture, waitFor } from '@agentplatform/testing';
import { identityClient, newTenant, parseSse } from './support';

/**
 * Chat through the gateway with the offline local responder: memories, history, sessions, SSE,
 * the chat events on Kafka, and the credits each chat costs.
 */
describe('agent chat through the gateway', () => {
  const suite = suiteFixture(() => startTenantPlatform({ services: ['identity', 'agent-memory'] }, 'agents-chat'));

  const createAgent = async (body: Record<string, unknown> = {}) => {
    const res = await suite.http.post('/api/v1/agents', { name: 'Support bot', type: 'support', ...body });
    expect(res.status).toBe(201);
    return res.body;
  };

  describe('chat with the local responder', () => {
    it('answers from a stored memory, reports model local and real token usage, and keeps the session', async () => {
      const agent = await createAgent({ memory_types: ['semantic'] });
      const refund = await suite.http.post('/api/v1/memory', {
        agent_id: agent.id,
        content: 'Refunds are processed within 5 business days after the return arrives.',
        metadata: { category: 'billing' },
      });
      await suite.http.post('/api/v1/memory', { agent_id: agent.id, content: 'The office dog is called Biscuit.' });
      // An add answers before its vector exists. Until then the memory ranks by its lexical score
      // alone (one of the question's three terms: under the chat's min_score); this test is about
      // the answer from a found memory, so it waits for the vector (on a loaded CI machine the
      // model may still be loading when the add answers).
      await waitFor(
        async () =>
          (await suite.http.get(`/api/v1/memory/${refund.body.id}`)).body.embedding?.dimension > 0 ? true : undefined,
        { timeoutMs: 120_000, what: 'the refund memory embedded' },
      );

      const res = await suite.http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'How long do refunds take?' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^msg_/),
        session_id: expect.stringMatching(/^ses_/),
        role: 'assistant',
        model: 'local',
      });
      expect(res.body.content).toContain('Refunds are processed within 5 business days');
      expect(res.body.content).not.toContain('Biscuit');
      const { prompt_tokens, completion_tokens, total_tokens } = res.body.usage;
      expect(prompt_tokens).toBeGreaterThan(10);
      expect(completion_tokens).toBeGreaterThan(5);
      expect(total_tokens).toBe(prompt_tokens + completion_tokens);
      expect(res.body.credits_used).toBe(1);

      const followUp = await suite.http.post(`/api/v1/agents/${agent.id}/chat`, {
        message: 'Tell me about zebras',
        session_id: res.body.session_id,
      });
      expect(followUp.status).toBe(200);
      expect(followUp.body.session_id).toBe(res.body.session_id);
      // No memory about zebras: the responder falls back to the session's recent turns.
      expect(followUp.body.content).toContain('How long do refunds take?');

      const sessions = await suite.http.get(`/api/v1/agents/${agent.id}/sessions`);
      expect(sessions.status).toBe(200);
      expect(sessions.body).toMatchObject({ total: 1, page: 1 });
      expect(sessions.body.sessions[0]).toMatchObject({
        id: res.body.session_id,
        message_count: 4,
        title: 'How long do refunds take?',
      });

      const messages = await suite.http.get(`/api/v1/agents/${agent.id}/sessions/${res.body.session_id}/messages`);
      expect(messages.status).toBe(200);
      expect(messages.body.total).toBe(4);
      expect(messages.body.messages.map((m: { role: string }) => m.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
      expect(messages.body.messages[1]).toMatchObject({
        id: res.body.id,
        content: res.body.content,
        model: 'local',
        usage: res.body.usage,
      });
      expect((await suite.http.get(`/api/v1/agents/${agent.id}/sessions/ses_nope/messages`)).status).toBe(404);
    }, 180_000);

    it('keeps every message and an exact count when many chats of one session and new sessions run at once', async () => {
      // Concurrent turns are stored together (one write per kind for the group, a session's
      // touches folded into one update): nothing of one turn may be lost or counted twice. All 16
      // at once: a tenant's share of the gateway's places for agent-memory (half of 32).
      const SHARED = 10;
      const FRESH = 6;
      const agent = await createAgent();
      const shared = Array.from({ length: SHARED }, (_, i) =>
        suite.http.post(`/api/v1/agents/${agent.id}/chat`, { message: `shared turn ${i}`, session_id: 'parallel-1' }),
      );
      const fresh = Array.from({ length: FRESH }, (_, i) =>
        suite.http.post(`/api/v1/agents/${agent.id}/chat`, { message: `fresh turn ${i}` }),
      );
      const answers = await Promise.all([...shared, ...fresh]);
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
      expect(new Set(answers.slice(0, SHARED).map((r) => r.body.session_id))).toEqual(new Set(['parallel-1']));
      expect(new Set(answers.slice(SHARED).map((r) => r.body.session_id)).size).toBe(FRESH);

      const sessions = await suite.http.get(`/api/v1/agents/${agent.id}/sessions?per_page=100`);
      expect(sessions.body.total).toBe(FRESH + 1);
      const counts = Object.fromEntries(
        sessions.body.sessions.map((s: { id: string; message_count: number }) => [s.id, s.message_count]),
      );
      expect(counts['parallel-1']).toBe(2 * SHARED);
      for (const r of answers.slice(SHARED)) expect(counts[r.body.session_id]).toBe(2);

      const stored = await suite.http.get(`/api/v1/agents/${agent.id}/sessions/parallel-1/messages?per_page=100`);
      expect(stored.body.total).toBe(2 * SHARED);
      const contents = stored.body.messages.map((m: { content: string }) => m.content);
      for (let i = 0; i < SHARED; i++) expect(contents).toContain(`shared turn ${i}`);
      for (const r of answers.slice(0, SHARED)) expect(contents).toContain(r.body.content);
      // Each turn's events carry its own request's id, though the group was stored by one flush.
      const ofAgent = () =>
        suite.tap.filter((e) => e.type.startsWith('agent.message.') && e.data.agent_id === agent.id);
      const events = await waitFor(() => (ofAgent().length >= 2 * (SHARED + FRESH) ? ofAgent() : undefined), {
        timeoutMs: 30_000,
        what: 'the message events',
      });
      const messages = [
        ...Array.from({ length: SHARED }, (_, i) => `shared turn ${i}`),
        ...Array.from({ length: FRESH }, (_, i) => `fresh turn ${i}`),
      ];
      const created = new Map(
        events.filter((e) => e.type === 'agent.message.created').map((e) => [e.data.content as string, e.request_id]),
      );
      const completed = new Map(
        events
          .filter((e) => e.type === 'agent.message.completed')
          .map((e) => [e.data.message_id as string, e.request_id]),
      );
      expect(created.size).toBe(SHARED + FRESH);
      expect(completed.size).toBe(SHARED + FRESH);
      answers.forEach((r, i) => {
        expect(created.get(messages[i]!)).toBe(r.headers.get('x-request-id'));
        expect(completed.get(r.body.id)).toBe(r.headers.get('x-request-id'));
      });
    });

    it('stores each exchange as an episodic memory when episodic is on, and recalls it later', async () => {
      const agent = await createAgent({ memory_types: ['semantic', 'episodic'] });
      const first = await suite.http.post(`/api/v1/agents/${agent.id}/chat`, {
        message: 'My favourite colour is turquoise.',
      });
      expect(first.status).toBe(200);
      const episodic = await suite.http.get(`/api/v1/memory?agent_id=${agent.id}&memory_type=episodic`);
      expect(episodic.body.total).toBe(1);
      expect(episodic.body.items[0].content).toContain('User: My favourite colour is turquoise.');
      expect(episodic.body.items[0].metadata).toMatchObject({
        source: 'chat',
        session_id: first.body.session_id,
        message_id: first.body.id,
      });

      // A new session has no history: the answer comes from the episodic memory.
      const later = await suite.http.post(`/api/v1/agents/${agent.id}/chat`, {
        message: 'What is my favourite colour?',
      });
      expect(later.body.session_id).not.toBe(first.body.session_id);
      expect(later.body.content).toContain('turquoise');

      const semanticOnly = await createAgent({ memory_types: ['semantic'] });
      await suite.http.post(`/api/v1/agents/${semanticOnly.id}/chat`, { message: 'hello there' });
      expect((await suite.http.get(`/api/v1/memory?agent_id=${semanticOnly.id}`)).body.total).toBe(0);
    });

    it('streams the reply as server-sent events when asked for text/event-stream', async () => {
      const agent = await createAgent({ memory_types: ['semantic'] });
      await suite.http.post('/api/v1/memory', { agent_id: agent.id, content: 'The wifi password is on the fridge.' });
      const res = await suite.http.post(
        `/api/v1/agents/${agent.id}/chat`,
        { message: 'Where is the wifi password?' },
        { headers: { accept: 'text/event-stream' } },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const events = parseSse(res.text);
      expect(events[0].event).toBe('start');
      expect(events[0].data).toMatchObject({
        id: expect.stringMatching(/^msg_/),
        session_id: expect.stringMatching(/^ses_/),
        model: 'local',
      });
      const deltas = events.filter((e) => e.event === 'delta');
      expect(deltas.length).toBeGreaterThan(3);
      const done = events[events.length - 1];
      expect(done.event).toBe('done');
      expect(deltas.map((d) => d.data.content).join('')).toBe(done.data.content);
      expect(done.data.content).toContain('The wifi password is on the fridge.');
      expect(done.data).toMatchObject({
        id: events[0].data.id,
        session_id: events[0].data.session_id,
        role: 'assistant',
        model: 'local',
      });
      expect(done.data.usage.total_tokens).toBe(done.data.usage.prompt_tokens + done.data.usage.completion_tokens);
      // The /v1 envelope leaves the stream alone.
      const v1 = await suite.http.post(
        `/v1/agents/${agent.id}/chat`,
        { message: 'wifi?' },
        { headers: { accept: 'text/event-stream' } },
      );
      expect(parseSse(v1.text).map((e) => e.event)).toContain('done');
      // The streamed turn is stored like any other.
      const messages = await suite.http.get(`/api/v1/agents/${agent.id}/sessions/${done.data.session_id}/messages`);
      expect(messages.body.messages[1]).toMatchObject({ id: done.data.id, content: done.data.content });
    });

    it('refuses a streamed chat with an ordinary JSON error before the stream starts', async () => {
      const res = await suite.http.post(
        '/api/v1/agents/agt_missing/chat',
        { message: 'hi' },
        { headers: { accept: 'text/event-stream' } },
      );
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('not_found');
    });

    it('refuses an inactive agent with 409 and an empty message with 400', async () => {
      const agent = await createAgent({ status: 'inactive' });
      const res = await suite.http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'hi' });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('conflict');
      const empty = await suite.http.post(`/api/v1/agents/${agent.id}/chat`, { message: '' });
      expect(empty.status).toBe(400);
      expect(empty.body.details[0].field).toBe('message');
      await suite.http.patch(`/api/v1/agents/${agent.id}`, { status: 'active' });
      expect((await suite.http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'hi' })).status).toBe(200);
    });

    it('fires agent.message.created and agent.message.completed with SPEC’s data fields', async () => {
      const agent = await createAgent();
      const res = await suite.http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'Ping for events' });
      const created = await suite.tap.wait('agent.message.created', (e) => e.data.agent_id === agent.id);
      const completed = await suite.tap.wait('agent.message.completed', (e) => e.data.agent_id === agent.id);
      expect(created.tenant_id).toBe(suite.tenantId);
      expect(created.data).toMatchObject({
        agent_id: agent.id,
        conversation_id: res.body.session_id,
        content: 'Ping for events',
      });
      expect(created.data.message_id).toMatch(/^msg_/);
      expect(completed.data).toEqual({
        agent_id: agent.id,
        conversation_id: res.body.session_id,
        message_id: res.body.id,
        content: res.body.content,
        tokens_used: res.body.usage.total_tokens,
        latency_ms: expect.any(Number),
        tool_calls: 0,
      });
      expect(completed.api_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(created.id < completed.id).toBe(true);
    });
  });

  describe('credits', () => {
    it('charges each chat in the ledger and answers 402 insufficient_credits at zero balance', async () => {
      const other = await newTenant(suite.platform);
      const agent = (await other.http.post('/api/v1/agents', { name: 'Cost', type: 'assistant' })).body;
      const before = (await other.http.get('/api/v1/billing/credits')).body.balance;
      const chat = await other.http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'How much does this cost?' });
      expect(chat.status).toBe(200);
      const after = await other.http.get('/api/v1/billing/credits');
      expect(after.body.balance).toBe(before - chat.body.credits_used);
      // The chat reserved its estimate, then its settle gave back what it did not use.
      const [settled, reserved] = after.body.ledger as Array<{ type: string; amount: number }>;
      expect(reserved.type).toBe('reserve');
      expect(settled.type).toBe('settle');
      expect(reserved.amount + settled.amount).toBe(-chat.body.credits_used);

      const identity = identityClient(suite.platform);
      try {
        const { balance } = await identity.client.getBalance({ tenantId: other.user.tenantId });
        await identity.client.charge({
          tenantId: other.user.tenantId,
          amount: balance,
          idempotencyKey: `drain-${other.user.tenantId}`,
          description: 'test: drain',
        });
        const refused = await other.http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'Anyone there?' });
        expect(refused.status).toBe(402);
        expect(refused.body.error).toBe('insufficient_credits');
        const streamed = await other.http.post(
          `/api/v1/agents/${agent.id}/chat`,
          { message: 'Anyone there?' },
          { headers: { accept: 'text/event-stream' } },
        );
        expect(streamed.status).toBe(402);
        expect((await identity.client.getBalance({ tenantId: other.user.tenantId })).balance).toBe(0);
        await waitFor(async () => (await other.http.get(`/api/v1/agents/${agent.id}/sessions`)).body.total === 1, {
          what: 'no session for refused chats',
        });
      } finally {
        identity.channel.close();
      }
    });
  });
});
