import type { Dispatcher } from 'undici';
import { isBlockedAddressError } from './outbound-guard.js';
import { undici } from './lazy-undici.js';
import { injectTraceHeaders } from './tracing.js';

/**
 * Outbound HTTP to customer-supplied URLs (the workflow http integration, agents' http tools),
 * always through the SSRF-guarded dispatcher of outbound-guard.ts.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Response bodies larger than this are cut (outputs are stored with executions and sessions). */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface HttpCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: JsonValue;
  timeoutMs: number;
  signal: AbortSignal;
}

export class HttpCallError extends Error {
  constructor(
    message: string,
    /** Worth another attempt (network trouble, timeouts, 429 and 5xx answers). */
    readonly retryable: boolean,
    readonly output?: JsonObject,
  ) {
    super(message);
    this.name = 'HttpCallError';
  }
}

function serialize(body: JsonValue | undefined, headers: Record<string, string>): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') {
    if (!hasHeader(headers, 'content-type')) headers['content-type'] = 'text/plain; charset=utf-8';
    return body;
  }
  if (!hasHeader(headers, 'content-type')) headers['content-type'] = 'application/json';
  return JSON.stringify(body);
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

/** A call's URL checked and its request prepared (trace headers, serialized body). */
function prepare(call: HttpCall): { url: URL; method: string; headers: Record<string, string>; body?: string } {
  let url: URL;
  try {
    url = new URL(call.url);
  } catch {
    throw new HttpCallError(`invalid URL '${call.url}'`, false);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new HttpCallError(`URL must be http(s): '${call.url}'`, false);
  // The node's span context goes along (tracing on), unless the workflow sets its own traceparent.
  const headers = injectTraceHeaders({ ...call.headers });
  const method = call.method.toUpperCase();
  const body = method === 'GET' || method === 'HEAD' ? undefined : serialize(call.body, headers);
  return { url, method, headers, body };
}

/**
 * Sends one request through `dispatcher` (service-kit's createGuardedAgent, which refuses private
 * destinations unless allowed) and answers the response with its body unread, whatever its
 * status: for callers that read the body themselves (a model provider's stream or large JSON
 * answer). The timeout covers the body too. A request that cannot be sent throws HttpCallError.
 */
export async function sendHttp(call: HttpCall, dispatcher: Dispatcher): Promise<Dispatcher.ResponseData> {
  const { url, method, headers, body } = prepare(call);
  const signal = AbortSignal.any([call.signal, AbortSignal.timeout(call.timeoutMs)]);
  try {
    return await undici().request(url, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      dispatcher,
      signal,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
  } catch (error) {
    if (call.signal.aborted) throw error;
    const reason = signal.aborted ? `timed out after ${call.timeoutMs} ms` : errorMessage(error);
    // A refused destination stays refused: no retry.
    throw new HttpCallError(`${method} ${url.origin}${url.pathname} failed: ${reason}`, !isBlockedAddressError(error));
  }
}

/**
 * Makes one real HTTP request, its answer bounded to MAX_RESPONSE_BYTES; the output is
 * `{status, headers, body}`. `dispatcher` is the SSRF-guarded agent (service-kit's
 * createGuardedAgent), which refuses private destinations.
 */
export async function callHttp(call: HttpCall, dispatcher: Dispatcher): Promise<JsonObject> {
  const { url, method, headers, body } = prepare(call);
  let response: Exchanged;
  try {
    response = await exchange(dispatcher, {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method,
      headers,
      body,
      timeoutMs: call.timeoutMs,
      maxBodyBytes: MAX_RESPONSE_BYTES,
      signal: call.signal,
    });
  } catch (error) {
    if (call.signal.aborted) throw error;
    const reason = error instanceof OutboundTimeoutError ? `timed out after ${call.timeoutMs} ms` : errorMessage(error);
    // A refused destination stays refused: no retry.
    throw new HttpCallError(`${method} ${url.origin}${url.pathname} failed: ${reason}`, !isBlockedAddressError(error));
  }
  if (response.error !== undefined) {
    if (call.signal.aborted) throw response.error;
    throw new HttpCallError(
      `${method} ${url.origin}${url.pathname}: reading the response failed: ${errorMessage(response.error)}`,
      true,
    );
  }
  const text = response.body.toString('utf8');
  const contentType = response.headers['content-type'] ?? '';
  let parsed: JsonValue = text;
  if (/[/+]json\b/i.test(contentType) && text !== '') {
    try {
      parsed = JSON.parse(text) as JsonValue;
    } catch {
      parsed = text;
    }
  }
  const output: JsonObject = { status: response.status, headers: response.headers, body: parsed };
  if (response.status >= 400) {
    const retryable = response.status === 429 || response.status >= 500;
    throw new HttpCallError(`${method} ${url.origin}${url.pathname} answered ${response.status}`, retryable, output);
  }
  return output;
}

function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? error.cause.message : error.message;
}

/** The exchange ran out of its time limit (connect, headers and body together). */
export class OutboundTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'OutboundTimeoutError';
  }
}

/** One request through the guarded dispatcher. */
export interface Exchange {
  /** `https://host:port` */
  origin: string;
  /** Path and query. */
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** One limit for connect, headers and body. */
  timeoutMs: number;
  /** Response bytes kept: the rest is not read, and the connection is closed. */
  maxBodyBytes: number;
  /** The caller's own abort (a cancelled run). */
  signal?: AbortSignal;
}

/** What came back: the status, headers (repeated ones joined), and the first bytes of the body. */
export interface Exchanged {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** From the request's start to the response's first line. */
  durationMs: number;
  /** The body was cut short after the answer began (timeout, reset): `body` is what was read. */
  error?: unknown;
}

/**
 * The one outbound HTTP exchange of the platform (webhook deliveries, the workflow http node,
 * agents' http tools), over the SSRF-guarded dispatcher. It uses undici's low-level `dispatch`
 * with a handler rather than `request`: no response stream, async iterator or AbortSignal per
 * request, which were a fifth of the webhook service's CPU when sending thousands of requests a
 * second; the handler keeps only the bounded excerpt the callers use. Never follows redirects.
 * Rejects when no answer began (a network error, the guard's refusal, the time limit); resolves
 * once the body ended, was cut at `maxBodyBytes`, or broke off (`error`).
 */
export function exchange(dispatcher: Dispatcher, request: Exchange): Promise<Exchanged> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<Exchanged>((resolve, reject) => {
    let settled = false;
    let answer: Omit<Exchanged, 'body'> | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let controller: Dispatcher.DispatchController | undefined;

    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      if (!answer) {
        reject(error);
        return;
      }
      const body = Buffer.concat(chunks).subarray(0, request.maxBodyBytes);
      resolve({ ...answer, body, ...(error === undefined ? {} : { error }) });
    };
    const stop = (reason: unknown) => {
      finish(reason);
      controller?.abort(reason instanceof Error ? reason : new Error(String(reason)));
    };
    // A request still queued for a connection when it runs out is aborted as soon as undici
    // starts it, before anything is written.
    const timer = setTimeout(() => stop(new OutboundTimeoutError(request.timeoutMs)), request.timeoutMs);
    const onAbort = () => stop(request.signal?.reason ?? new Error('aborted'));
    if (request.signal?.aborted) return onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart: (ctrl) => {
        controller = ctrl;
        if (settled) ctrl.abort(new Error('the exchange ended before it started'));
      },
      onResponseStart: (_ctrl, status, headers) => {
        const joined: Record<string, string> = {};
        for (const [name, value] of Object.entries(headers)) {
          if (value !== undefined) joined[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        answer = { status, headers: joined, durationMs: elapsed() };
      },
      onResponseData: (ctrl, chunk) => {
        if (settled) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= request.maxBodyBytes) {
          // Enough: the rest is not read, and the connection is closed.
          finish();
          ctrl.abort(new Error('response body over the kept limit'));
        }
      },
      onResponseEnd: () => finish(),
      onResponseError: (_ctrl, error) => finish(error),
    };
    dispatcher.dispatch(
      {
        origin: request.origin,
        path: request.path,
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body,
      },
      handler,
    );
  });
}
