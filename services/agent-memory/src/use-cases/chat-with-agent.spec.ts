import { DomainError } from '@agentplatform/service-kit';
import { chatCost } from '../domain/chat.js';
import { ProviderError } from '../http/provider-call.js';
import type { LlmProvider, LlmRequest } from '../llm/llm-provider.js';
import { countTokens } from '../llm/tokenizer.js';
import { inMemoryAgentMemoryDeps } from '../testing/in-memory.js';
import { retryPendingCharges } from './chat-credits.js';
import { chatWithAgent, type ChatSink } from './chat-with-agent.js';
import { createAgent, updateAgent } from './manage-agents.js';
import { addMemory } from './add-memory.js';

const BALANCE = 100;

async function setup(agentFields: { status?: string; memoryTypes?: string[] } = {}) {
  const { deps, fakes } = inMemoryAgentMemoryDeps();
  const agent = await createAgent(deps, { tenantId: 't1', name: 'Helper', type: 'assistant', ...agentFields } as never);
  fakes.credits.balances.set('t1', BALANCE);
  const eventsBefore = fakes.outbox.events.length;
  const turnEvents = () => fakes.outbox.types().slice(eventsBefore);
  const stored = () => [...fakes.chats.messages.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  return { deps, fakes, agent, turnEvents, stored };
}

const episodic = (fakes: Awaited<ReturnType<typeof setup>>['fakes']) =>
  [...fakes.memories.byId.values()].filter((m) => m.memoryType === 'episodic');

describe('chatWithAgent', () => {
  // The tokenizer builds its BPE tables on first use (seconds on a loaded machine), once per worker.
  beforeAll(() => countTokens('warm up'));

  it('stores the question and the reply, and charges the real cost out of the reservation', async () => {
    const { deps, fakes, agent, turnEvents, stored } = await setup();
    const reserve = jest.spyOn(fakes.credits, 'reserve');

    const outcome = await chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'What are your hours?' });

    expect(outcome).toMatchObject({ role: 'assistant', model: 'local', sessionId: expect.stringMatching(/^ses_/) });
    expect(outcome.content).toContain("I don't have a stored memory about that yet");
    expect(stored().map((m) => [m.id, m.role, m.content])).toEqual([
      [outcome.userMessageId, 'user', 'What are your hours?'],
      [outcome.messageId, 'assistant', outcome.content],
    ]);
    expect(fakes.chats.sessions.get(outcome.sessionId)).toMatchObject({
      tenantId: 't1',
      agentId: agent.id,
      title: 'What are your hours?',
      messageCount: 2,
    });
    expect(turnEvents()).toEqual(['agent.message.created', 'agent.message.completed']);

    // The reservation covered the most the turn could cost; the settle charged what it used.
    const reserved = reserve.mock.calls[0]![0].amount;
    expect(outcome.credits).toBe(chatCost(outcome.usage.totalTokens));
    expect(reserved).toBeGreaterThan(outcome.credits);
    const operation = `chat:${outcome.messageId}`;
    expect(fakes.credits.settled.get(operation)).toBe(outcome.credits);
    expect(fakes.credits.held.size).toBe(0);
    expect(fakes.credits.balance('t1')).toBe(BALANCE - outcome.credits);
    expect(fakes.chats.charges.size).toBe(0);
  });

  it("answers from the agent's memories", async () => {
    const { deps, agent } = await setup();
    await addMemory(deps, { tenantId: 't1', agentId: agent.id, content: 'The shop opens at nine and closes at five' });
    const outcome = await chatWithAgent(deps, {
      tenantId: 't1',
      agentId: agent.id,
      message: 'When does the shop open?',
    });
    expect(outcome.content).toBe('From what I remember: The shop opens at nine and closes at five');
  });

  it('stores the exchange as an episodic memory when the agent has episodic memory', async () => {
    const { deps, fakes, agent } = await setup();
    await addMemory(deps, { tenantId: 't1', agentId: agent.id, content: 'Ada likes tea' });
    const outcome = await chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'My name is Ada' });
    expect(episodic(fakes)).toEqual([
      expect.objectContaining({
        agentId: agent.id,
        content: `User: My name is Ada\nAssistant: ${outcome.content}`,
        metadata: {
          source: 'chat',
          session_id: outcome.sessionId,
          message_id: outcome.messageId,
          user_message_id: outcome.userMessageId,
        },
      }),
    ]);
    // Counted toward the memories quota with the fact added before.
    expect(fakes.quotas.counted(agent.id, 'memories')).toBe(2);
  });

  it('stores no episodic memory when the agent has it off', async () => {
    const { deps, fakes, agent, turnEvents } = await setup({ memoryTypes: ['semantic'] });
    await chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'My name is Ada' });
    expect(fakes.memories.byId.size).toBe(0);
    expect(turnEvents()).toEqual(['agent.message.created', 'agent.message.completed']);
  });

  it('continues a session the client names, creating it on first use, with its history in the prompt', async () => {
    const { deps, fakes, agent } = await setup({ memoryTypes: ['semantic'] });
    const first = await chatWithAgent(deps, {
      tenantId: 't1',
      agentId: agent.id,
      message: 'I ordered a blue lamp',
      sessionId: 'order-42',
    });
    const second = await chatWithAgent(deps, {
      tenantId: 't1',
      agentId: agent.id,
      message: 'Has it shipped?',
      sessionId: 'order-42',
    });
    expect([first.sessionId, second.sessionId]).toEqual(['order-42', 'order-42']);
    expect(fakes.chats.sessions.size).toBe(1);
    expect([...fakes.chats.sessions.values()][0]).toMatchObject({ key: 'order-42', messageCount: 4 });
    expect(second.content).toContain('Earlier in this conversation you said: "I ordered a blue lamp"');
  });

  it("answers 404 for an unknown agent and another tenant's, 409 for an inactive one; nothing reserved or stored", async () => {
    const { deps, fakes } = await setup();
    const inactive = await createAgent(deps, { tenantId: 't1', name: 'Off', type: 'assistant', status: 'inactive' });
    const theirs = await createAgent(deps, { tenantId: 't2', name: 'Theirs', type: 'assistant' });
    fakes.credits.balances.set('t2', BALANCE);
    const reserve = jest.spyOn(fakes.credits, 'reserve');
    const eventsBefore = fakes.outbox.events.length;
    const chat = (agentId: string) => chatWithAgent(deps, { tenantId: 't1', agentId, message: 'hello' });

    await expect(chat('agt_missing')).rejects.toMatchObject({ code: 'not_found' });
    await expect(chat(theirs.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(chat(inactive.id)).rejects.toMatchObject({ code: 'conflict', message: /inactive/ });
    expect(reserve).not.toHaveBeenCalled();
    expect(fakes.chats.messages.size).toBe(0);
    expect(fakes.outbox.events.length).toBe(eventsBefore);
  });

  it("shares one agent read among turns that wait for it, never one that began before a turn's call", async () => {
    const { deps, agent } = await setup({ memoryTypes: ['semantic'] });
    const read = deps.agents.find.bind(deps.agents);
    // A read answers the agent as it was when the read began, 20 ms later (a round trip).
    const find = jest.spyOn(deps.agents, 'find').mockImplementation(async (tenantId, id) => {
      const found = await read(tenantId, id);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return found;
    });
    const chat = (message: string) => chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message });

    const together = await Promise.all(Array.from({ length: 6 }, (_, i) => chat(`Question ${i}?`)));
    expect(together).toHaveLength(6);
    // The first turn's read alone, then one read for the five that arrived while it was in flight.
    expect(find).toHaveBeenCalledTimes(2);

    // Paused while a turn's read is in flight: a turn made after the pause is refused.
    const before = chat('Still there?');
    await deps.agents.update('t1', agent.id, { status: 'inactive' }, new Date());
    const after = chat('And now?');
    await expect(before).resolves.toMatchObject({ role: 'assistant' });
    await expect(after).rejects.toMatchObject({ code: 'conflict' });
  });

  it('answers 402 when the balance cannot cover the reservation, and stores nothing', async () => {
    const { deps, fakes, agent, turnEvents } = await setup();
    fakes.credits.balances.set('t1', 0);
    await expect(chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'hello' })).rejects.toMatchObject({
      code: 'insufficient_credits',
    });
    expect(fakes.chats.messages.size).toBe(0);
    expect(fakes.chats.sessions.size).toBe(0);
    expect(fakes.memories.byId.size).toBe(0);
    expect(turnEvents()).toEqual([]);
    expect(fakes.credits.balance('t1')).toBe(0);
  });

  it.each([
    ['session_id', { sessionId: 'has spaces' }],
    ['session_id', { sessionId: 'x'.repeat(129) }],
    ['session_id', { sessionId: '' }],
    ['message', { message: '   ' }],
  ])('refuses a bad %s as a 400 naming it, before reserving', async (field, change) => {
    const { deps, fakes, agent } = await setup();
    const reserve = jest.spyOn(fakes.credits, 'reserve');
    await expect(
      chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'hello', ...change }),
    ).rejects.toMatchObject({ code: 'validation_error', details: [expect.objectContaining({ field })] });
    expect(reserve).not.toHaveBeenCalled();
    expect(fakes.chats.messages.size).toBe(0);
  });

  it('gives the reservation back and stores no reply when the model fails (503)', async () => {
    const { deps, fakes, agent, turnEvents, stored } = await setup();
    const failing: LlmProvider = {
      name: 'down',
      modelFor: () => 'down',
      complete: async () => {
        throw new ProviderError('upstream answered 502', 502);
      },
    };
    (deps as { llm: LlmProvider }).llm = failing;

    await expect(chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'hello' })).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    expect(fakes.credits.balance('t1')).toBe(BALANCE);
    expect(fakes.credits.released.size).toBe(1);
    expect(fakes.credits.settled.size).toBe(0);
    // The question was stored before the model was asked; no reply and no episodic memory follow it.
    expect(stored().map((m) => m.role)).toEqual(['user']);
    expect(turnEvents()).toEqual(['agent.message.created']);
    expect(episodic(fakes)).toEqual([]);
  });

  it('keeps the charge of a reply whose settle failed due, and the retry job charges it once identity answers', async () => {
    const { deps, fakes, agent } = await setup();
    jest
      .spyOn(fakes.credits, 'settle')
      .mockRejectedValueOnce(new DomainError('service_unavailable', 'identity is unreachable'));

    const outcome = await chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'hello' });
    expect([...fakes.chats.charges.keys()]).toEqual([outcome.messageId]);
    expect(fakes.credits.held.size).toBe(1);

    await expect(retryPendingCharges(deps)).resolves.toBe(1);
    expect(fakes.credits.settled.get(`chat:${outcome.messageId}`)).toBe(outcome.credits);
    expect(fakes.credits.balance('t1')).toBe(BALANCE - outcome.credits);
    expect(fakes.chats.charges.size).toBe(0);
    await expect(retryPendingCharges(deps)).resolves.toBe(0);
  });

  it('streams the reply to a sink: start with the ids, then pieces that make up the content', async () => {
    const { deps, agent } = await setup();
    const calls: string[] = [];
    let text = '';
    const sink: ChatSink = {
      start: (info) => calls.push(`start ${info.messageId} ${info.model}`),
      delta: (piece) => {
        calls.push('delta');
        text += piece;
      },
    };
    const outcome = await chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'hello' }, sink);
    expect(calls[0]).toBe(`start ${outcome.messageId} local`);
    expect(calls.length).toBeGreaterThan(1);
    expect(text).toBe(outcome.content);
  });

  /** A model that calls `tool` in its first round; later rounds wait for the turn to end. */
  function callsThenWaits(tool: string, args: Record<string, unknown>): LlmProvider {
    let round = 0;
    return {
      name: 'scripted',
      modelFor: () => 'scripted',
      complete: async (request: LlmRequest) => {
        const usage = { promptTokens: 900, completionTokens: 100, totalTokens: 1000 };
        if (round++ === 0) {
          return {
            content: '',
            model: 'scripted',
            usage,
            toolCalls: [{ id: 'c1', name: tool, arguments: JSON.stringify(args) }],
          };
        }
        return new Promise((_, reject) =>
          request.signal!.addEventListener('abort', () => reject(new ProviderError('aborted'))),
        );
      },
    };
  }

  it('ends the turn when its caller goes away: the finished round is charged, the rest given back', async () => {
    const { deps, fakes, agent } = await setup();
    await updateAgent(deps, { tenantId: 't1', agentId: agent.id, config: { tools: [{ type: 'memory_search' }] } });
    (deps as { llm: LlmProvider }).llm = callsThenWaits('memory_search', { query: 'hours' });
    const caller = new AbortController();
    const settle = jest.spyOn(fakes.credits, 'settle');
    const reserveOne = fakes.credits.reserve.bind(fakes.credits);
    const reserve = jest.spyOn(fakes.credits, 'reserve').mockImplementation(async (input) => {
      await reserveOne(input);
      // The second round is reserved: the caller gives up while it runs.
      if (input.operationId.endsWith(':1')) setTimeout(() => caller.abort(), 10);
    });

    await expect(
      chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'hello', signal: caller.signal }),
    ).rejects.toMatchObject({ code: 'service_unavailable', message: expect.stringContaining('caller') });
    expect(reserve).toHaveBeenCalledTimes(2);
    expect(settle).toHaveBeenCalledTimes(1);
    expect(fakes.credits.held.size).toBe(0);
    expect(fakes.credits.balance('t1')).toBe(BALANCE - 1);
  });

  it("refuses a tool call the chat's caller has no scope for: an error result, and nothing stored", async () => {
    const { deps, fakes, agent } = await setup({ memoryTypes: ['semantic'] });
    await updateAgent(deps, { tenantId: 't1', agentId: agent.id, config: { tools: [{ type: 'memory_add' }] } });
    let round = 0;
    (deps as { llm: LlmProvider }).llm = {
      name: 'scripted',
      modelFor: () => 'scripted',
      complete: async () =>
        round++ === 0
          ? {
              content: '',
              model: 'scripted',
              usage: { promptTokens: 10, completionTokens: 10, totalTokens: 20 },
              toolCalls: [{ id: 'c1', name: 'memory_add', arguments: '{"content":"a note"}' }],
            }
          : { content: 'ok', model: 'scripted', usage: { promptTokens: 10, completionTokens: 10, totalTokens: 20 } },
    };

    const outcome = await chatWithAgent(deps, {
      tenantId: 't1',
      agentId: agent.id,
      message: 'note it',
      caller: ['agents:write'],
    });
    expect(outcome.steps).toEqual([
      expect.objectContaining({ tool: 'memory_add', error: expect.stringContaining('memory:write') }),
    ]);
    expect(fakes.memories.byId.size).toBe(0);
  });

  it('stores no message and no session for a turn that asks so, yet charges it and sends its events', async () => {
    const { deps, fakes, agent, turnEvents } = await setup();
    const outcome = await chatWithAgent(deps, {
      tenantId: 't1',
      agentId: agent.id,
      message: 'What are your hours?',
      noStore: true,
      overrides: { context: [{ role: 'user', content: 'I am Ada.' }] },
    });
    expect(fakes.chats.messages.size).toBe(0);
    expect(fakes.chats.sessions.size).toBe(0);
    expect(fakes.chats.charges.size).toBe(0);
    expect(turnEvents()).toEqual(['agent.message.created', 'agent.message.completed']);
    expect(fakes.credits.balance('t1')).toBe(BALANCE - outcome.credits);
    await expect(
      chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'hi', sessionId: 's1', noStore: true }),
    ).rejects.toMatchObject({ code: 'validation_error', details: [{ field: 'session_id' }] });
  });

  it('says max_tokens when the reply was cut at its token limit, stop when it was not', async () => {
    const { deps, agent } = await setup();
    const cut = await chatWithAgent(deps, {
      tenantId: 't1',
      agentId: agent.id,
      message: 'What are your hours?',
      overrides: { maxTokens: 3 },
    });
    expect(cut).toMatchObject({ stopReason: 'max_tokens', usage: { completionTokens: 3 } });
    const whole = await chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'What are your hours?' });
    expect(whole.stopReason).toBe('stop');
  });
});
