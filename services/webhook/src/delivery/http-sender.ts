import type { Agent, Dispatcher } from 'undici';
import { guardedConnector, undici } from '@agentplatform/service-kit';
import type { AttemptResult } from '../domain/types.js';

/** Bytes of a response body kept in the attempt log. */
export const RESPONSE_BODY_LIMIT = 4096;
/** Longest response header value kept in the attempt log. */
const HEADER_VALUE_LIMIT = 1024;
/** Parsed webhook URLs kept; a webhook's URL is parsed once, not on every attempt. */
const URL_CACHE_SIZE = 10_000;

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

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code = (error as { code?: string }).code;
  if (code === 'EBLOCKEDADDRESS') return error.message;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return TIMEOUT_ERROR;
  const base = code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  return cause instanceof Error && !base.includes(cause.message) ? `${base} (${cause.message})` : base;
}

/**
 * Sends webhook requests over keep-alive connections (one undici pool per receiving origin),
 * never follows redirects, gives each request `timeoutMs` for its whole answer, and reports every
 * outcome, including network errors, as an attempt.
 *
 * It uses undici's low-level `dispatch` with a handler rather than `request`: no response stream,
 * async iterator or AbortSignal per request, which were a fifth of the service's CPU when sending
 * thousands of requests a second; the handler keeps only what the attempt log needs.
 */
export class HttpSender {
  /**
   * Made on the first send: undici holds about 12 MB, which a replica that has nothing to deliver
   * does not need (docs/performance.md, idle memory).
   */
  private agent?: Agent;
  private readonly urls = new Map<string, { origin: string; path: string }>();

  constructor(private readonly options: SenderOptions) {}

  private dispatcher(): Agent {
    const options = this.options;
    return (this.agent ??= new (undici().Agent)({
      connect: guardedConnector({ allowPrivate: options.allowPrivate, connectTimeoutMs: options.timeoutMs }),
      connections: options.connectionsPerOrigin,
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    }));
  }

  send(request: SendRequest): Promise<AttemptResult> {
    const attemptedAt = new Date();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      let durationMs: number | undefined;
      let statusCode = 0;
      let responseHeaders: Record<string, string> = {};
      const chunks: Buffer[] = [];
      let size = 0;
      let controller: Dispatcher.DispatchController | undefined;

      const finish = (error?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error !== undefined && durationMs === undefined) {
          resolve({
            number: request.number,
            attemptedAt,
            durationMs: elapsed(),
            responseHeaders: {},
            error,
            success: false,
          });
          return;
        }
        // A body cut short (timeout, reset) still leaves what was read for the log.
        const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
        resolve({
          number: request.number,
          attemptedAt,
          durationMs: durationMs ?? elapsed(),
          responseStatus: statusCode,
          responseHeaders,
          responseBody: text.length > 0 ? text : undefined,
          success: statusCode >= 200 && statusCode < 300,
        });
      };
      // One limit for connect, headers and body. A request still queued for a connection when it
      // runs out is aborted as soon as undici starts it, before anything is written.
      const timer = setTimeout(() => {
        finish(TIMEOUT_ERROR);
        controller?.abort(new Error(TIMEOUT_ERROR));
      }, this.options.timeoutMs);

      let target: { origin: string; path: string };
      try {
        target = this.target(request.url);
      } catch (error) {
        finish(describeError(error));
        return;
      }
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: (ctrl) => {
          controller = ctrl;
          if (settled) ctrl.abort(new Error(TIMEOUT_ERROR));
        },
        onResponseStart: (_ctrl, status, headers) => {
          durationMs = elapsed();
          statusCode = status;
          responseHeaders = {};
          for (const [name, value] of Object.entries(headers)) {
            if (value === undefined) continue;
            responseHeaders[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, HEADER_VALUE_LIMIT);
          }
        },
        onResponseData: (ctrl, chunk) => {
          if (settled) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_BODY_LIMIT) {
            // Enough for the log: the rest is not read, and the connection is closed.
            finish();
            ctrl.abort(new Error('response body over the logged limit'));
          }
        },
        onResponseEnd: () => finish(),
        onResponseError: (_ctrl, error) => finish(describeError(error)),
      };
      this.dispatcher().dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: 'POST',
          headers: { ...request.headers, 'content-type': 'application/json', 'user-agent': this.options.userAgent },
          body: request.body,
        },
        handler,
      );
    });
  }

  private target(url: string): { origin: string; path: string } {
    let target = this.urls.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.urls.size >= URL_CACHE_SIZE) this.urls.clear();
      this.urls.set(url, target);
    }
    return target;
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }
}
