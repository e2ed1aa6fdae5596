import type { Dispatcher } from 'undici';
import { isBlockedAddressError } from './outbound-guard.js';
import { injectTraceHeaders } from './tracing.js';
import { undici } from './lazy-undici.js';

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

/** Makes one real HTTP request; the output is `{status, headers, body}`. */
/** `dispatcher` is the SSRF-guarded agent (service-kit's createGuardedAgent), which refuses private destinations. */
export async function callHttp(call: HttpCall, dispatcher: Dispatcher): Promise<JsonObject> {
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
  const signal = AbortSignal.any([call.signal, AbortSignal.timeout(call.timeoutMs)]);
  let response: Dispatcher.ResponseData;
  try {
    response = await undici().request(url, {
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
    const cause = (error as { cause?: Error }).cause;
    const reason = signal.aborted
      ? `timed out after ${call.timeoutMs} ms`
      : (cause?.message ?? (error as Error).message);
    // A refused destination stays refused: no retry.
    throw new HttpCallError(`${method} ${url.origin}${url.pathname} failed: ${reason}`, !isBlockedAddressError(error));
  }
  const text = await readLimited(response.body, MAX_RESPONSE_BYTES).catch((error: Error) => {
    throw new HttpCallError(
      `${method} ${url.origin}${url.pathname}: reading the response failed: ${error.message}`,
      true,
    );
  });
  const responseHeaders: JsonObject = {};
  for (const [k, v] of Object.entries(response.headers)) {
    if (v !== undefined) responseHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  const contentType = String(response.headers['content-type'] ?? '');
  let parsed: JsonValue = text;
  if (/[/+]json\b/i.test(contentType) && text !== '') {
    try {
      parsed = JSON.parse(text) as JsonValue;
    } catch {
      parsed = text;
    }
  }
  const output: JsonObject = { status: response.statusCode, headers: responseHeaders, body: parsed };
  if (response.statusCode >= 400) {
    const retryable = response.statusCode === 429 || response.statusCode >= 500;
    throw new HttpCallError(
      `${method} ${url.origin}${url.pathname} answered ${response.statusCode}`,
      retryable,
      output,
    );
  }
  return output;
}

async function readLimited(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    if (size + buf.length > limit) {
      chunks.push(buf.subarray(0, limit - size));
      size = limit;
      body.destroy();
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}
