import { HttpCallError, parseRetryAfter, retry, sendHttp } from '@agentplatform/service-kit';
import type { Dispatcher } from 'undici';

/** A provider answered with an error or could not be reached within its attempts. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    /** The wait the provider asked for (Retry-After), in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface ProviderCallOptions {
  apiKey?: string;
  /** The whole call's bound, retries and body included (so a stalled stream ends). */
  timeoutMs: number;
  /** Extra attempts after 429, 5xx or a network error. */
  retries: number;
  /** Accept header; the caller reads the body (JSON or an event stream). */
  accept?: string;
  /** Aborts the call, its body included (the chat turn it serves ended). */
  signal?: AbortSignal;
}

/** A waited Retry-After is capped here: a provider's answer must not hold a chat for minutes. */
const MAX_WAIT_MS = 10_000;

function worthRetrying(error: unknown): boolean {
  if (error instanceof ProviderError) return error.status === 429 || (error.status ?? 0) >= 500;
  return error instanceof HttpCallError && error.retryable;
}

/**
 * POSTs JSON to a model provider (the OpenAI-compatible endpoint the operator configured) through
 * service-kit's outbound client, retrying 429, 5xx and network errors with service-kit's backoff,
 * or after the provider's Retry-After. Answers the successful response, its body unread; every
 * failure is a ProviderError.
 */
export async function postToProvider(
  url: string,
  body: Record<string, unknown>,
  options: ProviderCallOptions,
  dispatcher: Dispatcher,
): Promise<Dispatcher.ResponseData> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.accept ?? 'application/json',
  };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const attempt = async (): Promise<Dispatcher.ResponseData> => {
    const response = await sendHttp(
      { method: 'POST', url, headers, body: JSON.stringify(body), timeoutMs: options.timeoutMs, signal },
      dispatcher,
    );
    if (response.statusCode < 400) return response;
    const text = (await response.body.text().catch(() => '')).slice(0, 300);
    const retryAfter = response.headers['retry-after'];
    throw new ProviderError(
      `${new URL(url).pathname} answered ${response.statusCode}: ${text}`,
      response.statusCode,
      parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
    );
  };
  try {
    return await retry(attempt, {
      attempts: options.retries + 1,
      baseMs: 250,
      jitter: 0.25,
      maxMs: MAX_WAIT_MS,
      signal,
      retryable: worthRetrying,
      askedDelay: (error) => (error instanceof ProviderError ? error.retryAfterMs : undefined),
    });
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    if (deadline.aborted) throw new ProviderError(`no answer within ${options.timeoutMs} ms`);
    throw new ProviderError((error as Error).message);
  }
}
