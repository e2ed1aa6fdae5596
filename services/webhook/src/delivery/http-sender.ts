import { Agent } from 'undici';
import { guardedConnector } from '@agentplatform/service-kit';
import type { AttemptResult } from '../domain/types.js';

/** Bytes of a response body kept in the attempt log. */
export const RESPONSE_BODY_LIMIT = 4096;
/** Longest response header value kept in the attempt log. */
const HEADER_VALUE_LIMIT = 1024;

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

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code = (error as { code?: string }).code;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timeout: no answer within the time limit';
  if (code === 'EBLOCKEDADDRESS') return error.message;
  const base = code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  return cause instanceof Error && !base.includes(cause.message) ? `${base} (${cause.message})` : base;
}

/**
 * Sends webhook requests over keep-alive connections (one undici pool per receiving origin),
 * never follows redirects, gives each request `timeoutMs` for its answer, and reports every
 * outcome, including network errors, as an attempt.
 */
export class HttpSender {
  private readonly agent: Agent;

  constructor(private readonly options: SenderOptions) {
    this.agent = new Agent({
      connect: guardedConnector({ allowPrivate: options.allowPrivate, connectTimeoutMs: options.timeoutMs }),
      connections: options.connectionsPerOrigin,
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async send(request: SendRequest): Promise<AttemptResult> {
    const attemptedAt = new Date();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const url = new URL(request.url);
      const response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'user-agent': this.options.userAgent,
        },
        body: request.body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const durationMs = elapsed();
      const responseBody = await this.readBody(response.body);
      const responseHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value === undefined) continue;
        responseHeaders[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, HEADER_VALUE_LIMIT);
      }
      const success = response.statusCode >= 200 && response.statusCode < 300;
      return {
        number: request.number,
        attemptedAt,
        durationMs,
        responseStatus: response.statusCode,
        responseHeaders,
        responseBody,
        success,
      };
    } catch (error) {
      return { number: request.number, attemptedAt, durationMs: elapsed(), responseHeaders: {}, error: describeError(error), success: false };
    }
  }

  /** The first 4 KiB of the body as text; a longer body is cut off (and its connection closed). */
  private async readBody(body: AsyncIterable<Buffer>): Promise<string | undefined> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_BODY_LIMIT) break;
      }
    } catch {
      // A body cut short still leaves what was read for the log.
    }
    const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
    return text.length > 0 ? text : undefined;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
