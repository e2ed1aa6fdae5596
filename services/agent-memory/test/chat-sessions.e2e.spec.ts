import { Receiver, type Platform } from '@agentplatform/testing';
import { type FakeOpenAi, startWithFakeLlm } from './fake-openai';
import { newTenant, type Http } from './support';

const call = (name: string, args: unknown) => ({ tool_calls: [{ name, arguments: args }] });

/**
 * Client-chosen session ids (docs/design.md section 6), through the gateway, with real services
 * and an OpenAI-protocol server the test scripts to play the model.
 */
describe('client-chosen session ids', () => {
  let fake: FakeOpenAi;
  let platform: Platform;
  let http: Http;
  let receiver: Receiver;
  let suite: Awaited<ReturnType<typeof startWithFakeLlm>> | undefined;

  beforeAll(async () => {
    receiver = await Receiver.start();
    suite = await startWithFakeLlm({}, { EMBEDDINGS_MODEL_DIR: 'none' });
    ({ fake, platform } = suite);
    http = (await newTenant(platform)).http;
  });

  afterAll(async () => {
    await suite?.stop();
    await receiver?.close();
  });

  beforeEach(() => {
    fake.requests.length = 0;
    fake.script.length = 0;
  });

  const newAgent = async (config: Record<string, unknown>) => {
    const res = await http.post('/api/v1/agents', {
      name: 'Session user',
      type: 'assistant',
      memory_types: ['semantic'],
      config,
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const chat = (agentId: string, body: Record<string, unknown>) => http.post(`/api/v1/agents/${agentId}/chat`, body);
  const receiverUrl = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

  it('creates the session on first use, continues it on reuse, and keeps it per agent', async () => {
    const a = await newAgent({});
    const b = await newAgent({});
    const first = await chat(a.id, { message: 'My name is Ada.', session_id: 'ticket-4711' });
    expect(first.status).toBe(200);
    expect(first.body.session_id).toBe('ticket-4711');
    const again = await chat(a.id, { message: 'What is my name?', session_id: 'ticket-4711' });
    expect(again.body.session_id).toBe('ticket-4711');
    expect(fake.chats()[1].body.messages.map((m: any) => m.content)).toContain('My name is Ada.');

    const onB = await chat(b.id, { message: 'Hello B', session_id: 'ticket-4711' });
    expect(onB.status).toBe(200);
    expect(fake.chats()[2].body.messages.map((m: any) => m.content)).not.toContain('My name is Ada.');

    const sessionsA = await http.get(`/api/v1/agents/${a.id}/sessions`);
    expect(sessionsA.body.sessions).toEqual([expect.objectContaining({ id: 'ticket-4711', message_count: 4 })]);
    const sessionsB = await http.get(`/api/v1/agents/${b.id}/sessions`);
    expect(sessionsB.body.sessions).toEqual([expect.objectContaining({ id: 'ticket-4711', message_count: 2 })]);
    const messages = await http.get(`/api/v1/agents/${a.id}/sessions/ticket-4711/messages`);
    expect(messages.body.messages.map((m: any) => m.session_id)).toEqual(Array(4).fill('ticket-4711'));
  });

  it('creates one session for concurrent first uses of an id', async () => {
    const agent = await newAgent({});
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => chat(agent.id, { message: `hello ${i}`, session_id: 'race:1' })),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const sessions = await http.get(`/api/v1/agents/${agent.id}/sessions`);
    expect(sessions.body.sessions).toHaveLength(1);
    expect(sessions.body.sessions[0]).toMatchObject({ id: 'race:1', message_count: 10 });
  });

  it.each([['has space'], ['x'.repeat(129)], [''], ['slash/inside']])('refuses the id %j with 400', async (id) => {
    const agent = await newAgent({});
    const res = await chat(agent.id, { message: 'hi', session_id: id });
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('session_id');
  });

  it('delivers agent.message.* events for such a chat to a subscribed webhook', async () => {
    const hook = await http.post('/api/v1/webhooks', {
      url: receiverUrl('/agent-events'),
      events: ['agent.message.created', 'agent.message.completed'],
    });
    expect(hook.status).toBe(201);
    const agent = await newAgent({ tools: [{ type: 'memory_search' }] });
    fake.script.push(call('memory_search', { query: 'anything' }));
    const res = await chat(agent.id, { message: 'Hello there', session_id: 'crm-42' });
    expect(res.status).toBe(200);

    const requests = await receiver.waitForRequests(2, { path: '/agent-events', timeoutMs: 30_000 });
    const events = requests.map((r) => JSON.parse(r.body));
    const created = events.find((e) => e.type === 'agent.message.created');
    const completed = events.find((e) => e.type === 'agent.message.completed');
    expect(created.data).toMatchObject({ agent_id: agent.id, conversation_id: 'crm-42', content: 'Hello there' });
    expect(completed.data).toMatchObject({
      agent_id: agent.id,
      conversation_id: 'crm-42',
      message_id: res.body.id,
      tool_calls: 1,
    });
  });
});
