import OpenAI from 'openai';
import { createApiKey, startTenantPlatform, suiteFixture, type Http } from '@agentplatform/testing';

/**
 * What a completion without a session keeps (docs/design.md section 11: the request's messages are
 * the context, and nothing is stored but the memories the agent's memory types keep), and how a
 * reply cut at max_tokens ends (`finish_reason: "length"`), through the official `openai` package
 * and the local responder.
 */
describe('the OpenAI-compatible API: sessionless turns and cut replies', () => {
  const suite = suiteFixture(() =>
    startTenantPlatform({ services: ['identity', 'agent-memory'], env: { DEFAULT_PLAN: 'free' } }, 'openai-nostore'),
  );

  let client: OpenAI;

  async function createAgent(http: Http, body: Record<string, unknown> = {}): Promise<string> {
    const res = await http.post('/api/v1/agents', { name: 'Helper', type: 'assistant', ...body });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  const sessions = async (agentId: string) =>
    (await suite.http.get(`/api/v1/agents/${agentId}/sessions`)).body.total as number;
  const balance = async () => (await suite.http.get('/api/v1/billing/credits')).body.balance as number;

  beforeAll(async () => {
    const key = await createApiKey(suite.platform.url, suite.user.accessToken, ['agents:read', 'agents:write']);
    client = new OpenAI({ baseURL: `${suite.platform.url}/openai/v1`, apiKey: key.key, maxRetries: 0 });
  });

  it('stores no session or message for a sessionless completion, and charges and reports it as the native chat', async () => {
    const agentId = await createAgent(suite.http, { memory_types: ['semantic'], config: { max_tokens: 200 } });
    const question = 'What are your opening hours?';

    const beforeNative = await balance();
    const native = await suite.http.post(`/api/v1/agents/${agentId}/chat`, { message: question });
    expect(native.status).toBe(200);
    const afterNative = await balance();
    expect(await sessions(agentId)).toBe(1);

    const { data: completion, response } = await client.chat.completions
      .create({ model: agentId, messages: [{ role: 'user', content: question }] })
      .withResponse();
    const streamed = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: question }],
      stream: true,
    });
    for await (const _chunk of streamed) {
      // Read to the end: the turn is stored (or not) by then.
    }
    const afterOpenAi = await balance();

    // The native chat's session only: the two sessionless turns left none behind.
    expect(await sessions(agentId)).toBe(1);
    expect(response.headers.get('x-session-id')).toBeNull();
    expect(completion.choices[0]!.message.content).toBe(native.body.content);
    // Charged as the native turn, each.
    expect(beforeNative - afterNative).toBe(native.body.credits_used);
    expect(afterNative - afterOpenAi).toBe(2 * native.body.credits_used);
    // The completed events of the stored and the unstored turn carry the same reply and usage
    // (openai.e2e.spec.ts compares them field by field).
    const nativeEvent = await suite.tap.wait('agent.message.completed', (e) => e.data.message_id === native.body.id);
    const openAiEvent = await suite.tap.wait('agent.message.completed', (e) => e.data.message_id === completion.id);
    expect(openAiEvent.data).toMatchObject({
      agent_id: agentId,
      content: nativeEvent.data.content,
      tokens_used: nativeEvent.data.tokens_used,
    });
  });

  it('keeps the episodic memory of a sessionless turn, as the agent’s memory types say', async () => {
    const agentId = await createAgent(suite.http, { memory_types: ['episodic'] });
    const completion = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'My favourite colour is teal.' }],
    });
    const memories = await suite.http.get(`/api/v1/memory?agent_id=${agentId}&memory_type=episodic`);
    expect(memories.status).toBe(200);
    expect(memories.body.items.map((m: { content: string }) => m.content)).toEqual([
      `User: My favourite colour is teal.\nAssistant: ${completion.choices[0]!.message.content}`,
    ]);
    expect(await sessions(agentId)).toBe(0);
  });

  it('answers finish_reason "length" when max_tokens cut the reply, streamed or not, and stop otherwise', async () => {
    const agentId = await createAgent(suite.http, { memory_types: ['semantic'], config: { max_tokens: 200 } });
    const messages = [{ role: 'user' as const, content: 'What is the office wifi password?' }];

    const cut = await client.chat.completions.create({ model: agentId, messages, max_completion_tokens: 4 });
    expect(cut.usage!.completion_tokens).toBe(4);
    expect(cut.choices[0]!.finish_reason).toBe('length');

    const whole = await client.chat.completions.create({ model: agentId, messages });
    expect(whole.usage!.completion_tokens).toBeLessThan(200);
    expect(whole.choices[0]!.finish_reason).toBe('stop');

    const stream = await client.chat.completions.create({ model: agentId, messages, max_tokens: 4, stream: true });
    const reasons: Array<string | null> = [];
    for await (const chunk of stream) reasons.push(...chunk.choices.map((c) => c.finish_reason));
    expect(reasons.filter((r) => r !== null)).toEqual(['length']);
  });

  it('says max_tokens on the native chat when the agent’s max_tokens cut the reply', async () => {
    const agentId = await createAgent(suite.http, { memory_types: ['semantic'], config: { max_tokens: 5 } });
    const chat = await suite.http.post(`/api/v1/agents/${agentId}/chat`, { message: 'Tell me about yourself' });
    expect(chat.status).toBe(200);
    expect(chat.body).toMatchObject({ stop_reason: 'max_tokens', usage: { completion_tokens: 5 } });
  });
});
