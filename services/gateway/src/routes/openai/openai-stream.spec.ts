import type { agentMemoryV1 } from '@agentplatform/contracts';
import { openAiStreamFormat } from './openai-stream';

type Event = agentMemoryV1.ChatStreamResponse['event'];

const start: Event = {
  $case: 'start',
  value: { messageId: 'msg_01"null"', sessionId: 'ses_1', userMessageId: 'msg_00', model: 'local' },
};
const delta = (content: string): Event => ({ $case: 'delta', value: { content } });

/** The `data:` payloads of what a format wrote, parsed as a client reads them. */
function chunks(written: string): unknown[] {
  return written
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      expect(frame.startsWith('data: ')).toBe(true);
      return JSON.parse(frame.slice('data: '.length));
    });
}

describe('OpenAI stream chunks', () => {
  it('writes each content delta as a whole chat.completion.chunk of the turn, whatever the text holds', () => {
    // A model (agent id as the client sent it) and texts JSON must escape.
    const model = 'agt_"quoted"\\null';
    const format = openAiStreamFormat(model, false);
    const [role] = chunks(format.event({ event: start })) as Array<{ created: number }>;
    for (const content of ['Hello ', 'a "quote" and \\ backslash\n', 'null', '', 'ünï ☃ 😀 \u2028', '}]}']) {
      const written = format.event({ event: delta(content) });
      const expected = {
        id: 'msg_01"null"',
        object: 'chat.completion.chunk',
        created: role.created,
        model,
        choices: [{ index: 0, delta: { content }, finish_reason: null, logprobs: null }],
      };
      expect(chunks(written)).toEqual([expected]);
      // Byte for byte what encoding the chunk object writes (the role and last chunks are encoded so).
      expect(written).toBe(`data: ${JSON.stringify(expected)}\n\n`);
    }
  });

  it('ends with the finish_reason chunk, the usage chunk when asked, and [DONE]', () => {
    const format = openAiStreamFormat('agt_1', true);
    format.event({ event: start });
    const done: Event = {
      $case: 'done',
      value: {
        messageId: 'msg_01"null"',
        sessionId: 'ses_1',
        userMessageId: 'msg_00',
        content: 'Hello',
        role: 'assistant',
        model: 'local',
        usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
        creditsCharged: 1,
        latencyMs: 5,
        createdAt: new Date(0).toISOString(),
        steps: [],
        stopReason: 'max_tokens',
      },
    };
    const [last, usage] = chunks(format.event({ event: done })) as Array<Record<string, unknown>>;
    expect(last.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'length', logprobs: null }]);
    expect(last.agent_steps).toEqual([]);
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 });
    expect(format.end?.()).toBe('data: [DONE]\n\n');
  });
});
