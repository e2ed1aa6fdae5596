import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { agentMemoryV1 } from '@agentplatform/contracts';
import { DomainError } from '@agentplatform/service-kit';
import type { Backends } from '../../clients/backends.js';
import { jsonFields } from '../../http/json-fields.js';

/**
 * A chat turn ends by agent-memory's own deadline (CHAT_TURN_DEADLINE_MS, 300 s by default), with a
 * clear error and its credits settled; this leaves it the time to say so, plus storage.
 */
export const CHAT_DEADLINE_MS = 330_000;

export function wantsEventStream(ctx: Context): boolean {
  return (ctx.get('accept') || '').toLowerCase().includes('text/event-stream');
}

export function stepJson(step: agentMemoryV1.ToolStep) {
  return {
    type: 'tool_call' as const,
    tool: step.tool,
    arguments: step.arguments ?? {},
    ...(step.error !== undefined ? { error: step.error } : { output: step.output ?? null }),
    duration_ms: step.durationMs,
  };
}

const NO_USAGE: agentMemoryV1.Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** The token counts of a reply or a stored message; one that reports none used none. */
export const usageJson = (usage: agentMemoryV1.Usage = NO_USAGE) =>
  jsonFields(usage, ['prompt_tokens', 'completion_tokens', 'total_tokens']);

export function chatJson(reply: agentMemoryV1.ChatResponse) {
  return {
    id: reply.messageId,
    session_id: reply.sessionId,
    content: reply.content,
    role: 'assistant' as const,
    model: reply.model,
    usage: usageJson(reply.usage),
    credits_used: reply.creditsCharged,
    latency_ms: reply.latencyMs,
    created_at: reply.createdAt,
    steps: reply.steps.map(stepJson),
    stop_reason: (reply.stopReason || 'stop') as 'stop' | 'max_tokens' | 'insufficient_credits',
  };
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** How a chat's events are written as server-sent events: the API's own, or another API's (OpenAI's). */
export interface ChatStreamFormat {
  /** The frames for one event of the turn ('' for none). */
  event(event: agentMemoryV1.ChatStreamResponse): string;
  /** The frame reporting a failure after the stream began. */
  error(failure: DomainError): string;
  /** What closes a stream that ended well. */
  end?(): string;
}

/** The API's own events: start, delta, step, done (and error). */
const platformStreamFormat: ChatStreamFormat = {
  event({ event: e }) {
    if (e?.$case === 'start') {
      return frame('start', {
        id: e.value.messageId,
        session_id: e.value.sessionId,
        user_message_id: e.value.userMessageId,
        model: e.value.model,
      });
    }
    if (e?.$case === 'delta') return frame('delta', { content: e.value.content });
    if (e?.$case === 'step') return frame('step', stepJson(e.value));
    if (e?.$case === 'done') return frame('done', chatJson(e.value));
    return '';
  },
  error: (failure) => frame('error', { error: failure.code, message: failure.message }),
};

/**
 * A signal that aborts when the client hangs up before its answer has been sent: the call ends,
 * and with it the turn (agent-memory charges the rounds that finished and runs no further one).
 * The response's `close` is the one to watch: since Node 16 a request's `close` fires as soon as
 * its body has been read, so listening there once the body is parsed never hears a hang-up.
 */
export function hangUpSignal(ctx: Context): AbortSignal {
  const abort = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) abort.abort(new Error('The client closed the connection'));
  });
  return abort.signal;
}

/**
 * Answers a chat as server-sent events. The first event is awaited before anything is sent, so a
 * refusal (404, 402, 409, 400) is still an ordinary JSON error with its status; later failures
 * can only be reported in the stream, as an `error` event.
 */
export async function relayChatStream(
  ctx: Context,
  backends: Backends,
  request: Parameters<Backends['agentMemory']['chatStream']>[0],
  format: ChatStreamFormat = platformStreamFormat,
): Promise<void> {
  const hungUp = hangUpSignal(ctx);
  const events = backends.agentMemory
    .chatStream(request, { signal: hungUp, deadline: CHAT_DEADLINE_MS })
    [Symbol.asyncIterator]();
  const first = await events.next();
  const stream = new PassThrough();
  ctx.state.rawBody = true;
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.type = 'text/event-stream; charset=utf-8';
  ctx.body = stream;

  const write = (event: agentMemoryV1.ChatStreamResponse) => {
    const text = format.event(event);
    if (text) stream.write(text);
  };

  void (async () => {
    try {
      if (!first.done) write(first.value);
      for (;;) {
        const next = await events.next();
        if (next.done) break;
        write(next.value);
      }
      if (format.end) stream.write(format.end());
    } catch (error) {
      if (!hungUp.aborted) {
        const failure = error instanceof DomainError ? error : new DomainError('internal_error', 'The chat failed');
        stream.write(format.error(failure));
      }
    } finally {
      stream.end();
    }
  })();
}
