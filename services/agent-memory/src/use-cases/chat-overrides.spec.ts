import { DomainError } from '@agentplatform/service-kit';
import { countTokens } from '../llm/tokenizer.js';
import { inMemoryAgentMemoryDeps } from '../testing/in-memory.js';
import { chatWithAgent } from './chat-with-agent.js';
import { createAgent } from './manage-agents.js';

/** What the OpenAI-compatible route passes into a turn (docs/design.md section 11). */
describe('chatWithAgent with the caller’s overrides', () => {
  beforeAll(() => countTokens('warm up'));

  async function setup() {
    const { deps, fakes } = inMemoryAgentMemoryDeps();
    const agent = await createAgent(deps, {
      tenantId: 't1',
      name: 'Helper',
      type: 'assistant',
      config: { system_prompt: 'You are Helper.', temperature: 0.3, max_tokens: 50 },
    } as never);
    fakes.credits.balances.set('t1', 100);
    const complete = jest.spyOn(deps.llm, 'complete');
    return { deps, agent, complete };
  }

  it('uses the caller’s turns as history and its system messages after the agent’s prompt', async () => {
    const { deps, agent, complete } = await setup();
    const outcome = await chatWithAgent(deps, {
      tenantId: 't1',
      agentId: agent.id,
      message: 'What did I say?',
      overrides: {
        context: [
          { role: 'user', content: 'I like tea' },
          { role: 'assistant', content: 'Noted.' },
        ],
        instructions: ['Answer in one line.'],
      },
    });
    const request = complete.mock.calls[0]![0];
    expect(request.messages).toEqual([
      { role: 'system', content: 'You are Helper.\n\nAnswer in one line.' },
      { role: 'user', content: 'I like tea' },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'What did I say?' },
    ]);
    expect(request.temperature).toBe(0.3);
    expect(outcome.content).toContain('I like tea');
  });

  it('takes a temperature and a max_tokens up to the agent’s, never above it', async () => {
    const { deps, agent, complete } = await setup();
    await chatWithAgent(deps, {
      tenantId: 't1',
      agentId: agent.id,
      message: 'hi',
      overrides: { temperature: 1.5, maxTokens: 5 },
    });
    await chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'hi', overrides: { maxTokens: 5000 } });
    expect(complete.mock.calls.map(([r]) => [r.temperature, r.maxTokens])).toEqual([
      [1.5, 5],
      [0.3, 50],
    ]);
  });

  it('refuses a temperature outside 0 to 2 and a max_tokens below 1, naming the field', async () => {
    const { deps, agent } = await setup();
    const refusal = (overrides: { temperature?: number; maxTokens?: number }) =>
      chatWithAgent(deps, { tenantId: 't1', agentId: agent.id, message: 'hi', overrides }).catch((error: DomainError) =>
        error.details.map((d) => d.field),
      );
    expect(await refusal({ temperature: 2.5 })).toEqual(['temperature']);
    expect(await refusal({ maxTokens: 0 })).toEqual(['max_tokens']);
  });
});
