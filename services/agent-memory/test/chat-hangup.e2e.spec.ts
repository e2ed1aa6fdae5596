import { request } from 'node:http';
import { suiteFixture, waitFor } from '@agentplatform/testing';
import { startWithFakeLlm } from './fake-openai';
import { newTenant } from './support';

/** Long enough that only a hang-up can end the model's wait within the test. */
const SLOW_MODEL_MS = 60_000;

/**
 * A chat whose client hangs up ends with it (docs/agents-and-memory.md, "Chat"): chat has no
 * Idempotency-Key replay, so nobody can ever read that answer. agent-memory is bounded to one call
 * in flight: while an abandoned turn kept running, every other call to it was shed with 503.
 */
describe('a chat whose client hangs up', () => {
  const suite = suiteFixture(() =>
    startWithFakeLlm({ services: ['identity', 'agent-memory'] }, { GRPC_MAX_IN_FLIGHT: '1' }),
  );

  const native = (agentId: string) => ({
    path: `/api/v1/agents/${agentId}/chat`,
    body: { message: 'Take all the time you need' },
  });
  const openAi = (agentId: string) => ({
    path: '/openai/v1/chat/completions',
    body: { model: agentId, messages: [{ role: 'user', content: 'Take all the time you need' }] },
  });

  it.each([
    ['JSON', native, 'application/json'],
    ['streamed', native, 'text/event-stream'],
    ['OpenAI JSON', openAi, 'application/json'],
  ])('%s: the model call ends, nothing is charged and the place is free again', async (_, route, accept) => {
    const { platform, fake } = suite;
    const { user, http } = await newTenant(platform);
    const agent = await http.post('/api/v1/agents', { name: 'Patient', type: 'assistant' });
    expect(agent.status).toBe(201);
    const balance = async () => (await http.get('/api/v1/billing/credits')).body.balance as number;
    const before = await balance();
    const chatsBefore = fake.chats().length;
    const abandonedBefore = fake.abandoned;

    fake.delays.push(SLOW_MODEL_MS);
    const { path, body } = route(agent.body.id);
    const url = new URL(path, platform.url);
    const client = request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json', accept },
    });
    client.on('error', () => undefined);
    client.end(JSON.stringify(body));
    await waitFor(() => fake.chats().length > chatsBefore || undefined, { what: 'the chat to reach the model' });

    const hungUp = Date.now();
    client.destroy();
    await waitFor(() => fake.abandoned > abandonedBefore || undefined, {
      timeoutMs: 5_000,
      what: 'agent-memory to stop waiting for the model',
    });
    expect(Date.now() - hungUp).toBeLessThan(5_000);

    // The one place in agent-memory is free: the next call is served, not shed.
    const added = await waitFor(
      async () => {
        const answer = await http.post('/api/v1/memory', { agent_id: agent.body.id, content: 'Still here' });
        return answer.status === 503 ? undefined : answer;
      },
      { timeoutMs: 5_000, what: 'a call after the hang-up to be served' },
    );
    expect(added.status).toBe(201);
    // No round finished: the reservation is released, nothing charged.
    await waitFor(async () => (await balance()) === before || undefined, {
      timeoutMs: 5_000,
      what: 'the reservation to be released',
    });
  });
});
