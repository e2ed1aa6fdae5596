import { setTimeout as sleep } from 'node:timers/promises';

/** How retries back off: exponential from `baseMs`, capped, with jitter that only ever adds. */
export interface BackoffPolicy {
  /** The delay before the first retry. */
  baseMs: number;
  /** No delay exceeds this (before jitter); unbounded when unset. */
  maxMs?: number;
  /** Adds up to this fraction of the delay at random (0.25: up to 25 % more), so clients spread out. */
  jitter?: number;
  random?: () => number;
}

/** `ms` plus up to `fraction` of it at random: never earlier than asked. */
export function withJitter(ms: number, fraction: number, random: () => number = Math.random): number {
  return Math.round(ms + ms * fraction * random());
}

/** The delay before retry `retry` (0 for the first): baseMs * 2^retry, capped at maxMs, then jittered. */
export function backoffDelay(retry: number, policy: BackoffPolicy): number {
  const exponential = policy.baseMs * 2 ** Math.max(0, retry);
  const capped = policy.maxMs === undefined ? exponential : Math.min(exponential, policy.maxMs);
  return withJitter(capped, policy.jitter ?? 0, policy.random);
}

export interface RetryOptions extends BackoffPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Whether a failure is worth another try; every failure is by default. */
  retryable?: (error: unknown) => boolean;
  /** Stops the waiting (and the retries) when aborted. */
  signal?: AbortSignal;
  /**
   * The wait a failure asks for (a server's Retry-After, see parseRetryAfter), in ms: waited
   * instead of the backoff, capped at `maxMs` when set. Undefined: the backoff.
   */
  askedDelay?: (error: unknown) => number | undefined;
}

/** A Retry-After value (delay seconds or an HTTP date) in milliseconds from `now`, or undefined. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Runs `work` until it succeeds or `attempts` tries are used up, waiting `backoffDelay` between
 * tries; throws the last failure (at once for one that is not retryable). The wait does not keep
 * the process alive.
 */
export async function retry<T>(work: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (attempt >= options.attempts || !(options.retryable?.(error) ?? true)) throw error;
      const asked = options.askedDelay?.(error);
      const delay = asked === undefined ? backoffDelay(attempt - 1, options) : Math.min(asked, options.maxMs ?? asked);
      await sleep(delay, undefined, { signal: options.signal, ref: false });
    }
  }
}
