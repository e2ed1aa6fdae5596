import { LRUCache } from 'lru-cache';
import { createGuardedAgent, exchange, OutboundTimeoutError } from '@agentplatform/service-kit';
import type { AttemptResult } from '../domain/types.js';

/** Bytes of a response body kept in the attempt log. */
const RESPONSE_BODY_LIMIT = 4096;
/** Longest response header value kept in the attempt log. */
const HEADER_VALUE_LIMIT = 1024;
/** Parsed webhook URLs kept; a webhook's URL is parsed once, not on every attempt. */
const URL_CACHE_SIZE = 10_000;
/** Idle connections to a receiver are kept this long for the next delivery. */
const KEEP_ALIVE_MS = 30_000;

export interface SenderOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  connectionsPerOrigin: number;
  userAgent: string;
}

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  number: number;
}

const TIMEOUT_ERROR = 'timeout: no answer within the time limit';

/** A network error as the attempt log shows it: its code, message and cause, once each. */
function describeError(error: unknown): string {
  if (error instanceof OutboundTimeoutError) return TIMEOUT_ERROR;
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code === 'EBLOCKEDADDRESS') return error.message;
  const base = code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  const cause = error.cause;
  return cause instanceof Error && !base.includes(cause.message) ? `${base} (${cause.message})` : base;
}

function clipped(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) kept[name] = value.slice(0, HEADER_VALUE_LIMIT);
  return kept;
}

/**
 * Sends webhook requests through the platform's one outbound client (service-kit's `exchange` on
 * the SSRF-guarded agent): keep-alive connections, `connectionsPerOrigin` per receiving origin,
 * no redirects, `timeoutMs` for the whole answer, and every outcome, network errors included,
 * reported as an attempt with the first 4 KiB of the body.
 */
export class HttpSender {
  /** Made on the first send (undici and its 12 MB load then: docs/performance.md, idle memory). */
  private readonly agent: ReturnType<typeof createGuardedAgent>;
  private readonly urls = new LRUCache<string, { origin: string; path: string }>({ max: URL_CACHE_SIZE });

  constructor(private readonly options: SenderOptions) {
    this.agent = createGuardedAgent({
      allowPrivate: options.allowPrivate,
      connectTimeoutMs: options.timeoutMs,
      connections: options.connectionsPerOrigin,
      keepAliveTimeoutMs: KEEP_ALIVE_MS,
    });
  }

  async send(request: SendRequest): Promise<AttemptResult> {
    const attemptedAt = new Date();
    const started = performance.now();
    const failed = (error: unknown): AttemptResult => ({
      number: request.number,
      attemptedAt,
      durationMs: Math.round(performance.now() - started),
      responseHeaders: {},
      error: describeError(error),
      success: false,
    });
    let target: { origin: string; path: string };
    try {
      target = this.target(request.url);
    } catch (error) {
      return failed(error);
    }
    try {
      const answer = await exchange(this.agent, {
        ...target,
        method: 'POST',
        headers: { ...request.headers, 'content-type': 'application/json', 'user-agent': this.options.userAgent },
        body: request.body,
        timeoutMs: this.options.timeoutMs,
        maxBodyBytes: RESPONSE_BODY_LIMIT,
      });
      // A body cut short (timeout, reset) still leaves what was read for the log.
      const text = answer.body.toString('utf8');
      return {
        number: request.number,
        attemptedAt,
        durationMs: answer.durationMs,
        responseStatus: answer.status,
        responseHeaders: clipped(answer.headers),
        responseBody: text.length > 0 ? text : undefined,
        success: answer.status >= 200 && answer.status < 300,
      };
    } catch (error) {
      return failed(error);
    }
  }

  private target(url: string): { origin: string; path: string } {
    let target = this.urls.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      this.urls.set(url, target);
    }
    return target;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
