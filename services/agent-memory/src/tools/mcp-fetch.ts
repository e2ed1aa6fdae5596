import type { Dispatcher } from 'undici';
import { undici } from '@agentplatform/service-kit';

/** A remote MCP server broke one of the bounds of docs/design.md section 9 (the message says which). */
export class McpLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpLimitError';
  }
}

export interface McpFetchBounds {
  /** Largest JSON answer, and largest event of an SSE answer. */
  messageBytes: number;
  /** Longest one HTTP exchange may take, reading its answer included. */
  exchangeMs: number;
}

function size(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

export function tooLarge(bytes: number): McpLimitError {
  return new McpLimitError(`its answer is larger than ${size(bytes)}, the limit of an MCP message`);
}

function tooLargeEvent(bytes: number): McpLimitError {
  return new McpLimitError(`an event of its answer stream is larger than ${size(bytes)}, the limit of an MCP message`);
}

export function tooSlow(ms: number): McpLimitError {
  return new McpLimitError(`it did not answer within ${ms} ms, the limit of an MCP call`);
}

const LF = 0x0a;
const CR = 0x0d;

/** Checks each chunk of an answer as it arrives; a limit error ends the answer there. */
type ChunkCheck = (chunk: Uint8Array) => McpLimitError | undefined;

/**
 * An SSE stream is passed on while no event (the bytes between two blank lines, so also no line)
 * is longer than `limit`: the SDK's parser buffers a line, and an event's data, until it ends.
 */
function sseEvents(limit: number): ChunkCheck {
  let eventBytes = 0;
  let lineBytes = 0;
  let afterCr = false;
  return (chunk) => {
    for (const byte of chunk) {
      if (byte === LF && afterCr) {
        afterCr = false;
        continue;
      }
      afterCr = byte === CR;
      if (byte === LF || byte === CR) {
        if (lineBytes === 0) eventBytes = 0;
        lineBytes = 0;
        continue;
      }
      lineBytes++;
      if (++eventBytes > limit) return tooLargeEvent(limit);
    }
    return undefined;
  };
}

/** Any other answer is passed on while it is at most `limit` bytes. */
function bodyBytes(limit: number): ChunkCheck {
  let total = 0;
  return (chunk) => ((total += chunk.byteLength) > limit ? tooLarge(limit) : undefined);
}

/**
 * `source` as it is read, checked chunk by chunk; `ended` runs once when it ends, fails or is
 * cancelled by its reader.
 */
function checkedBody(
  reader: {
    read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
    cancel(reason?: unknown): Promise<void>;
  },
  check: ChunkCheck,
  breach: (error: McpLimitError) => void,
  ended: () => void,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          ended();
          controller.close();
          return;
        }
        const error = check(value);
        if (!error) {
          controller.enqueue(value);
          return;
        }
        ended();
        breach(error);
        controller.error(error);
        await reader.cancel(error).catch(() => undefined);
      } catch (error) {
        ended();
        controller.error(error);
      }
    },
    cancel(reason) {
      ended();
      return reader.cancel(reason);
    },
  });
}

/** A request body the SDK sends (JSON text), in undici's terms. */
function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('an MCP request body is JSON text');
}

/**
 * The `fetch` the MCP SDK's Streamable HTTP transport is given: undici's, through the SSRF-guarded
 * `dispatcher`, with the bounds enforced while an answer is read (docs/security.md, "Limits on
 * hostile input"), so a hostile server costs at most one message of memory and `exchangeMs` of time.
 * A breach errors the answer's stream (which cancels the download) and is reported to `breach`
 * first: the SDK only logs a broken SSE stream, so the caller must fail its pending request itself.
 *
 * GET, the optional server-to-client stream, is answered 405 here without asking the server,
 * which the SDK reads as "no such stream": agents only make requests, and a stream open for the
 * whole turn would be one more thing a server could fill.
 */
export function boundedMcpFetch(
  dispatcher: Dispatcher,
  bounds: McpFetchBounds,
  breach: (error: McpLimitError) => void,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  const bounded = async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    if ((init.method ?? 'GET').toUpperCase() === 'GET') {
      return new Response(null, { status: 405, statusText: 'Method Not Allowed' });
    }
    // Loaded before the exchange's clock starts (the first call loads undici).
    const { fetch: undiciFetch } = undici();
    const deadline = new AbortController();
    let reading = true;
    const ended = () => {
      reading = false;
      clearTimeout(timer);
    };
    const timer = setTimeout(() => {
      if (!reading) return;
      const error = tooSlow(bounds.exchangeMs);
      breach(error);
      deadline.abort(error);
    }, bounds.exchangeMs);
    timer.unref();
    const signal = init.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    try {
      // undici's own fetch (it takes the guarded dispatcher); its answer is handed on as the global
      // Response the SDK expects, built from the status, headers and the checked body.
      const response = await undiciFetch(url, {
        method: init.method,
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        body: requestBody(init.body),
        dispatcher,
        signal,
      });
      const length = Number(response.headers.get('content-length') ?? 0);
      if (length > bounds.messageBytes) {
        ended();
        await response.body?.cancel();
        const error = tooLarge(bounds.messageBytes);
        breach(error);
        throw error;
      }
      const head = { status: response.status, statusText: response.statusText, headers: [...response.headers] };
      if (!response.body) {
        ended();
        return new Response(null, head);
      }
      const sse = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
      const check = sse ? sseEvents(bounds.messageBytes) : bodyBytes(bounds.messageBytes);
      return new Response(checkedBody(response.body.getReader(), check, breach, ended), head);
    } catch (error) {
      ended();
      throw error;
    }
  };
  return bounded;
}
