import { parseRetryAfter, withJitter } from '@agentplatform/service-kit';

/** Upper bound for a receiver's Retry-After, so one header cannot park a delivery for weeks. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** Jitter adds up to this fraction of a delay, never less: an attempt is never earlier than scheduled. */
const JITTER_FRACTION = 0.1;

/**
 * The delay before the next attempt after `attemptsMade` attempts of the current round, or
 * undefined when the schedule is used up. `schedule[i]` is the delay before attempt i + 1.
 * A receiver's Retry-After (on 429/503) is honoured by never retrying earlier than it asks.
 */
export function nextAttemptDelay(
  schedule: readonly number[],
  attemptsMade: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | undefined {
  if (attemptsMade >= schedule.length) return undefined;
  const base = schedule[attemptsMade];
  const jittered = withJitter(base, JITTER_FRACTION, random);
  if (retryAfterMs === undefined) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** Statuses whose Retry-After header is honoured. */
function honoursRetryAfter(status: number): boolean {
  return status === 429 || status === 503;
}

/** What becomes of a delivery after one attempt. */
export interface AttemptDecision {
  status: 'pending' | 'delivered' | 'failed';
  nextAttemptAt?: Date;
  lastError?: string;
  /** Set when the webhook itself must be marked failed, with the reason shown to its owner. */
  failWebhook?: string;
}

/**
 * Success is a 2xx. A test send is never retried. 410 Gone fails the delivery and the webhook at
 * once; any other failure is retried on the schedule until it is used up, which fails both.
 */
export function decideAfterAttempt(input: {
  success: boolean;
  responseStatus?: number;
  retryAfter?: string;
  error?: string;
  /** Attempts of the current round, this one included. */
  roundAttempts: number;
  schedule: readonly number[];
  test: boolean;
  now?: Date;
  random?: () => number;
}): AttemptDecision {
  if (input.success) return { status: 'delivered' };
  const now = input.now ?? new Date();
  const lastError = input.error ?? `endpoint answered HTTP ${input.responseStatus}`;
  if (input.test) return { status: 'failed', lastError };
  if (input.responseStatus === 410) {
    return { status: 'failed', lastError, failWebhook: 'endpoint answered 410 Gone' };
  }
  const retryAfterMs =
    input.responseStatus !== undefined && honoursRetryAfter(input.responseStatus)
      ? parseRetryAfter(input.retryAfter, now.getTime())
      : undefined;
  const delay = nextAttemptDelay(input.schedule, input.roundAttempts, retryAfterMs, input.random);
  if (delay === undefined) {
    return {
      status: 'failed',
      lastError,
      failWebhook: `a delivery failed on all ${input.schedule.length} attempts (last: ${lastError})`,
    };
  }
  return { status: 'pending', nextAttemptAt: new Date(now.getTime() + delay), lastError };
}
