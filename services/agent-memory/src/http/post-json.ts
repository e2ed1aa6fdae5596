import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay } from '@agentplatform/service-kit';

/** A provider answered with an error or could not be reached within its attempts. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface PostJsonOptions {
  apiKey?: string;
  timeoutMs: number;
  /** Extra attempts after 429, 5xx or a network error. */
  retries: number;
  /** Accept header; the caller reads the body (JSON or an event stream). */
  accept?: string;
  /** Aborts the call, its body included (the chat turn it serves ended). */
  signal?: AbortSignal;
}

const RETRYABLE = (status: number) => status === 429 || status >= 500;

/** Delay before attempt `n + 1`: the server's Retry-After when sane, else exponential backoff with jitter. */
function backoff(attempt: number, retryAfter: string | null): number {
  const seconds = retryAfter ? Number(retryAfter) : NaN;
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 10_000);
  return backoffDelay(attempt, { baseMs: 250, jitter: 0.25 });
}

/**
 * POSTs JSON with one overall timeout (covering the body too, so a stalled stream ends) and retries
 * on 429/5xx/network errors. Returns the successful response, its body not yet read; `done` must
 * be called when the body has been consumed, to clear the timer.
 */
export async function postJson(
  url: string,
  body: unknown,
  options: PostJsonOptions,
): Promise<{ response: Response; done: () => void }> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new ProviderError(`no answer within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  const stop = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  const done = () => {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.accept ?? 'application/json',
  };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  let lastError: ProviderError | undefined;
  let delay = 0;
  try {
    for (let attempt = 0; attempt <= options.retries; attempt++) {
      if (attempt > 0) await sleep(delay, undefined, { signal: controller.signal });
      let response: Response;
      try {
        response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: controller.signal });
      } catch (error) {
        if (controller.signal.aborted) throw controller.signal.reason;
        lastError = new ProviderError(`cannot reach ${new URL(url).origin}: ${(error as Error).message}`);
        delay = backoff(attempt, null);
        continue;
      }
      if (response.ok) return { response, done };
      const text = (await response.text().catch(() => '')).slice(0, 300);
      lastError = new ProviderError(`${new URL(url).pathname} answered ${response.status}: ${text}`, response.status);
      if (!RETRYABLE(response.status)) break;
      delay = backoff(attempt, response.headers.get('retry-after'));
    }
  } catch (error) {
    done();
    throw error instanceof ProviderError ? error : new ProviderError((error as Error).message);
  }
  done();
  throw lastError ?? new ProviderError('provider call failed');
}
