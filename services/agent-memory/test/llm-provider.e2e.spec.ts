import { suiteFixture, waitFor } from '@agentplatform/testing';
import { EMBEDDING_DIMENSION, FAKE_USAGE, startWithFakeLlm } from './fake-openai';
import { newTenant, parseSse, type Http } from './support';

/**
 * The OpenAI-compatible providers against a real HTTP server started by the test: chat
 * completions (JSON and streaming, retries, usage and credits from the provider's answer) and
 * embeddings (switching provider re-embeds the stored items).
 */
describe('OpenAI-compatible LLM and embeddings providers', () => {
  // Starts on the hashing embedding, so the switch below is to the endpoint.
  const suite = suiteFixture(() =>
    startWithFakeLlm({ services: ['identity', 'agent-memory'] }, { EMBEDDINGS_MODEL_DIR: 'none' }),
  );
  let http: Http;

  beforeAll(async () => {
    http = (await newTenant(suite.platform)).http;
  });

  const newAgent = async (body: Record<string, unknown> = {}) =>
    (await http.post('/api/v1/agents', { name: 'Acme helper', type: 'assistant', memory_types: ['semantic'], ...body }))
      .body;

  it('sends the agent’s config, memories and history, and returns the provider’s content and usage', async () => {
    const agent = await newAgent({
      config: { model: 'acme-large', temperature: 0.3, max_tokens: 200, system_prompt: 'You are Acme’s helper.' },
    });
    await http.post('/api/v1/memory', { agent_id: agent.id, content: 'Acme was founded in 1999 in Lisbon.' });
    const before = (await http.get('/api/v1/billing/credits')).body.balance;
    suite.fake.requests.length = 0;

    const res = await http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'When was Acme founded?' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      role: 'assistant',
      model: 'acme-large',
      content: '[acme-large] You asked: When was Acme founded?',
      usage: FAKE_USAGE,
      credits_used: 3,
    });

    const [sent] = suite.fake.chats();
    expect(sent.headers.authorization).toBe('Bearer sk-test-123');
    expect(sent.headers['content-type']).toContain('application/json');
    expect(sent.body).toMatchObject({ model: 'acme-large', temperature: 0.3, max_tokens: 200 });
    expect(sent.body.stream).toBeUndefined();
    expect(sent.body.messages[0].role).toBe('system');
    expect(sent.body.messages[0].content).toContain('You are Acme’s helper.');
    expect(sent.body.messages[0].content).toContain('Acme was founded in 1999 in Lisbon.');
    expect(sent.body.messages.slice(1)).toEqual([{ role: 'user', content: 'When was Acme founded?' }]);

    const after = await http.get('/api/v1/billing/credits');
    expect(after.body.balance).toBe(before - 3);

    const followUp = await http.post(`/api/v1/agents/${agent.id}/chat`, {
      message: 'And where?',
      session_id: res.body.session_id,
    });
    expect(followUp.status).toBe(200);
    expect(suite.fake.chats()[1].body.messages.slice(1)).toEqual([
      { role: 'user', content: 'When was Acme founded?' },
      { role: 'assistant', content: res.body.content },
      { role: 'user', content: 'And where?' },
    ]);
  });

  it('uses LLM_MODEL when the agent names no model', async () => {
    const agent = await newAgent();
    const res = await http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'Hi' });
    expect(res.body.model).toBe('fake-default');
    expect(suite.fake.chats().at(-1)!.body.model).toBe('fake-default');
  });

  it('retries 429 and 5xx answers with backoff, and reports a provider failure as 503 without retrying 4xx', async () => {
    const agent = await newAgent();
    suite.fake.requests.length = 0;
    suite.fake.failures.push({ status: 429, retryAfter: '0' }, { status: 503 });
    const res = await http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'Are you there?' });
    expect(res.status).toBe(200);
    expect(res.body.content).toBe('[fake-default] You asked: Are you there?');
    expect(suite.fake.chats()).toHaveLength(3);

    suite.fake.requests.length = 0;
    suite.fake.failures.push({ status: 400 });
    const refused = await http.post(`/api/v1/agents/${agent.id}/chat`, { message: 'Bad request please' });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe('service_unavailable');
    expect(suite.fake.chats()).toHaveLength(1);
  });

  it('streams the provider’s tokens as server-sent events, with the provider’s usage at the end', async () => {
    const agent = await newAgent({ config: { model: 'acme-stream' } });
    suite.fake.requests.length = 0;
    const res = await http.post(
      `/api/v1/agents/${agent.id}/chat`,
      { message: 'Stream me a reply' },
      { headers: { accept: 'text/event-stream' } },
    );
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(events[0]).toMatchObject({ event: 'start', data: { model: 'acme-stream' } });
    const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data.content);
    const expected = '[acme-stream] You asked: Stream me a reply';
    expect(deltas.length).toBeGreaterThanOrEqual(expected.split(' ').length);
    expect(deltas.join('')).toBe(expected);
    const done = events.at(-1)!;
    expect(done).toMatchObject({ event: 'done', data: { content: expected, usage: FAKE_USAGE, credits_used: 3 } });
    expect(suite.fake.chats()[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(suite.fake.chats()[0].headers.accept).toBe('text/event-stream');
  });

  it('re-embeds stored items in the background when the embeddings provider changes, never mixing vectors', async () => {
    const agent = await newAgent();
    const items = [];
    for (const content of [
      'Penguins live in the southern hemisphere.',
      'Camels store fat in their humps.',
      'Owls hunt at night.',
    ]) {
      items.push((await http.post('/api/v1/memory', { agent_id: agent.id, content })).body);
    }
    // Vectors come from the embedding backlog, after the add answered.
    const embeddedBy = (provider: string, ids: string[]) =>
      waitFor(
        async () => {
          const got = await Promise.all(ids.map((id) => http.get(`/api/v1/memory/${id}`)));
          return got.every((r) => r.body.embedding?.provider === provider) ? got : undefined;
        },
        { what: `memories embedded by ${provider}`, timeoutMs: 60_000 },
      );
    await embeddedBy(
      'local-hash-v1',
      items.map((i) => i.id),
    );

    const service = suite.platform.service('agent-memory');
    service.setEnv({
      EMBEDDINGS_BASE_URL: suite.fake.url,
      EMBEDDINGS_MODEL: 'fake-embed',
      EMBEDDINGS_API_KEY: 'sk-embed',
    });
    await service.stop();
    // Reset before the start: the backlog begins re-embedding as soon as the service is up.
    suite.fake.requests.length = 0;
    await service.start();

    const res = await waitFor(
      async () => {
        const r = await http.post('/api/v1/memory/search', { agent_id: agent.id, query: 'where do penguins live' });
        return r.status === 200 ? r : undefined;
      },
      { what: 'agent-memory back' },
    );
    await embeddedBy(
      'openai:fake-embed',
      items.map((i) => i.id),
    );
    const ranked = await http.post('/api/v1/memory/search', { agent_id: agent.id, query: 'where do penguins live' });
    expect(ranked.body.results[0].content).toBe('Penguins live in the southern hemisphere.');
    expect(res.status).toBe(200);
    const inputs = suite.fake.embeddings().flatMap((r) => r.body.input as string[]);
    // Every stored item (this agent's and the earlier tests' agents') was re-embedded once, and the query.
    expect(inputs).toEqual(expect.arrayContaining([...items.map((i) => i.content), 'where do penguins live']));
    expect(new Set(inputs).size).toBe(inputs.length);
    expect(suite.fake.embeddings()[0].headers.authorization).toBe('Bearer sk-embed');
    for (const item of items) {
      const stored = await http.get(`/api/v1/memory/${item.id}`);
      expect(stored.body.embedding).toEqual({ provider: 'openai:fake-embed', dimension: EMBEDDING_DIMENSION });
    }
    const added = await http.post('/api/v1/memory', { agent_id: agent.id, content: 'Owls can turn their heads far.' });
    expect(added.body.embedding).toEqual({ provider: '', dimension: 0 });
    await embeddedBy('openai:fake-embed', [added.body.id]);
    // Already re-embedded: a second search embeds only its query.
    suite.fake.requests.length = 0;
    await http.post('/api/v1/memory/search', { agent_id: agent.id, query: 'owls' });
    expect(suite.fake.embeddings().flatMap((r) => r.body.input)).toEqual(['owls']);
  }, 180_000);
});
