import { LocalResponder, localReply } from './local-responder.js';
import { countTokens } from './tokenizer.js';

const context = (
  memories: Array<{ content: string; score: number }>,
  history: Array<{ role: 'user' | 'assistant'; content: string }> = [],
) => ({
  agentName: 'Helper',
  userMessage: 'question',
  history,
  memories: memories.map((m) => ({ ...m, memoryType: 'semantic' })),
});

describe('local responder', () => {
  it('answers from the retrieved memories, leaving out ones far below the best', () => {
    const reply = localReply(
      context([
        { content: 'Refunds take 5 days.', score: 0.8 },
        { content: 'Noise.', score: 0.1 },
      ]),
    );
    expect(reply).toBe('From what I remember: Refunds take 5 days.');
    const two = localReply(
      context([
        { content: 'A fact.', score: 0.6 },
        { content: 'Another fact.', score: 0.5 },
      ]),
    );
    expect(two).toBe('From what I remember:\n- A fact.\n- Another fact.');
  });

  it('falls back to the recent turns, then to saying it knows nothing yet', () => {
    expect(
      localReply(
        context(
          [],
          [
            { role: 'user', content: 'I like tea' },
            { role: 'assistant', content: 'ok' },
          ],
        ),
      ),
    ).toContain('"I like tea"');
    expect(localReply(context([]))).toContain("I don't have a stored memory about that yet");
  });

  it('is deterministic, reports model local, counts tokens with cl100k_base and honours max_tokens', async () => {
    const responder = new LocalResponder();
    const request = {
      temperature: 0.7,
      maxTokens: 5,
      messages: [
        { role: 'system' as const, content: 'You are Helper.' },
        { role: 'user' as const, content: 'question' },
      ],
      context: context([{ content: 'A very long memory that has many more than five tokens in it.', score: 0.9 }]),
    };
    const pieces: string[] = [];
    const first = await responder.complete(request, (p) => pieces.push(p));
    const second = await responder.complete(request);
    expect(first).toEqual(second);
    expect(first.model).toBe('local');
    expect(first.usage.completionTokens).toBe(5);
    expect(countTokens(first.content)).toBe(5);
    // 3 priming + per message (3 + role + content)
    const expectedPrompt =
      3 +
      (3 + countTokens('system') + countTokens('You are Helper.')) +
      (3 + countTokens('user') + countTokens('question'));
    expect(first.usage.promptTokens).toBe(expectedPrompt);
    expect(first.usage.totalTokens).toBe(first.usage.promptTokens + 5);
    expect(pieces.join('')).toBe(first.content);
  });

  it('counts real BPE tokens', () => {
    expect(countTokens('hello world')).toBe(2);
  });
});
