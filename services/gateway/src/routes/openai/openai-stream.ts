import { stepJson, type ChatStreamFormat } from '../agents/chat-stream.js';
import { openAiErrorBody } from './openai-errors.js';

/**
 * OpenAI's `finish_reason` for why a turn ended: `length` for a reply cut at its max_tokens, and
 * for a turn whose next model round the credits could not cover (cut short the same way).
 */
export function finishReason(stopReason: string): 'stop' | 'length' {
  return stopReason === 'max_tokens' || stopReason === 'insufficient_credits' ? 'length' : 'stop';
}

const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

/**
 * A chat turn as OpenAI's `chat.completion.chunk`s: a role delta, content deltas, a last chunk
 * with `finish_reason` (and every tool step the turn ran in `agent_steps`), a usage chunk when
 * asked, then `data: [DONE]`. A tool step as it finishes is an empty delta with `agent_steps`.
 */
export function openAiStreamFormat(model: string, includeUsage: boolean): ChatStreamFormat {
  let id = '';
  const created = Math.floor(Date.now() / 1000);
  const chunk = (
    delta: Record<string, unknown>,
    extra: Record<string, unknown> = {},
    finish: 'stop' | 'length' | null = null,
  ) =>
    data({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      ...extra,
    });
  // A content delta is written per token and is the same chunk but for its text: the JSON around
  // the text is built once per turn, as chunk() would write it, and only the text is encoded per
  // token (a chunk object through JSON.stringify cost eight times the native route's delta frame).
  const contentPrefix = () =>
    `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},` +
    `"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":{"content":`;
  const contentSuffix = '},"finish_reason":null,"logprobs":null}]}\n\n';
  let prefix = contentPrefix();
  return {
    event({ event: e }) {
      if (e?.$case === 'start') {
        id = e.value.messageId;
        prefix = contentPrefix();
        return chunk({ role: 'assistant', content: '' });
      }
      if (e?.$case === 'delta') return prefix + JSON.stringify(e.value.content) + contentSuffix;
      if (e?.$case === 'step') return chunk({}, { agent_steps: [stepJson(e.value)] });
      if (e?.$case === 'done') {
        const usage = {
          prompt_tokens: e.value.usage?.promptTokens ?? 0,
          completion_tokens: e.value.usage?.completionTokens ?? 0,
          total_tokens: e.value.usage?.totalTokens ?? 0,
        };
        const last = chunk({}, { agent_steps: e.value.steps.map(stepJson) }, finishReason(e.value.stopReason));
        if (!includeUsage) return last;
        return last + data({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
      }
      return '';
    },
    error: (failure) => data(openAiErrorBody(failure, 'matched')),
    end: () => 'data: [DONE]\n\n',
  };
}
