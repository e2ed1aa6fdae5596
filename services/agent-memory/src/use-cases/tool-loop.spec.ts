import { createLogger } from '@agentplatform/service-kit';
import type { LlmProvider, LlmRequest, LlmResult } from '../llm/llm-provider.js';
import { ToolError, type Tool } from '../tools/tool.js';
import { runToolLoop } from './tool-loop.js';

const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

/** A provider that answers from a script and records what it was asked. */
function scripted(answers: Array<Partial<LlmResult>>): LlmProvider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    name: 'scripted',
    requests,
    modelFor: () => 'm',
    async complete({ signal: _signal, ...request }) {
      requests.push(structuredClone(request));
      const next = answers.shift() ?? { content: 'done' };
      return { content: '', model: 'm', usage, ...next };
    },
  };
}

const request: LlmRequest = {
  temperature: 0,
  maxTokens: 100,
  messages: [{ role: 'user', content: 'hi' }],
  context: { agentName: 'a', userMessage: 'hi', history: [], memories: [] },
};

const tool = (name: string, run: Tool['run']): Tool => ({
  name,
  description: name,
  parameters: { type: 'object', properties: {} },
  run,
});

const options = { maxSteps: 8, toolTimeoutMs: 200, logger: createLogger('test', 'silent') };

describe('runToolLoop', () => {
  it('turns throws, unknown tools, bad arguments and timeouts into error results the model sees', async () => {
    const llm = scripted([
      {
        toolCalls: [
          { id: '1', name: 'ok', arguments: '{"x":1}' },
          { id: '2', name: 'throws', arguments: '{}' },
          { id: '3', name: 'missing', arguments: '{}' },
          { id: '4', name: 'ok', arguments: '[1,2]' },
          { id: '5', name: 'hangs', arguments: '{}' },
        ],
      },
    ]);
    const tools = [
      tool('ok', async (args) => ({ echoed: args })),
      tool('throws', async () => {
        throw new ToolError('nope');
      }),
      tool('hangs', () => new Promise(() => undefined)),
    ];
    const result = await runToolLoop(llm, request, tools, options);
    expect(result.content).toBe('done');
    expect(result.steps.map((s) => s.output ?? s.error)).toEqual([
      { echoed: { x: 1 } },
      'nope',
      'unknown tool "missing"',
      'the arguments are not a JSON object',
      'timed out after 200 ms',
    ]);
    const results = llm.requests[1].messages.filter((m) => m.role === 'tool');
    expect(results.map((m) => (m.role === 'tool' ? m.toolCallId : ''))).toEqual(['1', '2', '3', '4', '5']);
    expect(JSON.parse(results[1].content)).toEqual({ error: 'nope' });
    expect(result.usage.totalTokens).toBe(30);
  });

  it('hides unexpected errors behind a generic message', async () => {
    const llm = scripted([{ toolCalls: [{ id: '1', name: 'bug', arguments: '{}' }] }]);
    const result = await runToolLoop(
      llm,
      request,
      [
        tool('bug', async () => {
          throw new Error('secret internal detail');
        }),
      ],
      options,
    );
    expect(result.steps[0].error).toBe('the tool failed');
  });

  it('after max_steps rounds asks once more with tool_choice none', async () => {
    const call = { toolCalls: [{ id: 'c', name: 'ok', arguments: '{}' }] };
    const llm = scripted([call, call, call, call]);
    const result = await runToolLoop(llm, request, [tool('ok', async () => 1)], { ...options, maxSteps: 2 });
    expect(result.steps).toHaveLength(2);
    expect(llm.requests.map((r) => r.toolChoice)).toEqual([undefined, undefined, 'none']);
  });

  it('runs the first 8 calls of a round and gives the others an error result without running them', async () => {
    const llm = scripted([
      { toolCalls: Array.from({ length: 11 }, (_, i) => ({ id: `c${i}`, name: 'count', arguments: `{"i":${i}}` })) },
    ]);
    const ran: unknown[] = [];
    const result = await runToolLoop(llm, request, [tool('count', async (args) => ran.push(args.i))], options);
    expect(ran.sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(result.steps.slice(8).map((s) => s.error)).toEqual(
      Array(3).fill('not run: at most 8 tool calls per model round; call it again in the next round'),
    );
    // The model gets a result for every call it made, so its next request stays well-formed.
    expect(llm.requests[1].messages.filter((m) => m.role === 'tool')).toHaveLength(11);
  });

  it('offers no tools and makes one call when the agent has none', async () => {
    const llm = scripted([]);
    const result = await runToolLoop(llm, request, [], options);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0].tools).toBeUndefined();
    expect(result.steps).toEqual([]);
  });

  it('ends the turn with what it has when a further round cannot be reserved', async () => {
    const llm = scripted([
      { content: 'Let me look.', toolCalls: [{ id: '1', name: 'ok', arguments: '{}' }] },
      { content: 'never asked' },
    ]);
    const rounds: number[] = [];
    const result = await runToolLoop(llm, request, [tool('ok', async () => 'found')], {
      ...options,
      beforeRound: async (messages) => {
        rounds.push(messages.length);
        return rounds.length < 2;
      },
      afterRound: (used) => rounds.push(-used.totalTokens),
    });
    expect(result).toMatchObject({ content: 'Let me look.', stopReason: 'insufficient_credits', usage });
    expect(result.steps).toHaveLength(1);
    expect(llm.requests).toHaveLength(1);
    // The second round was asked for with the tool call and its result in its messages.
    expect(rounds).toEqual([1, -15, 3]);
  });

  it('stops a tool call in flight when the turn ends, and throws the reason', async () => {
    const llm = scripted([{ toolCalls: [{ id: '1', name: 'hangs', arguments: '{}' }] }]);
    const turn = new AbortController();
    const reason = new Error('turn deadline');
    let toolSignal: AbortSignal | undefined;
    const hangs = tool('hangs', (_args, signal) => {
      toolSignal = signal;
      setTimeout(() => turn.abort(reason), 10);
      return new Promise(() => undefined);
    });
    await expect(
      runToolLoop(llm, request, [hangs], { ...options, toolTimeoutMs: 60_000, signal: turn.signal }),
    ).rejects.toBe(reason);
    expect(toolSignal?.aborted).toBe(true);
  });
});
