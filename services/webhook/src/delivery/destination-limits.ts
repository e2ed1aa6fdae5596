import { LRUCache } from 'lru-cache';

export interface DestinationLimitOptions {
  /** What every destination gets, however it answers (WEBHOOK_HOST_CONCURRENCY). */
  base: number;
  /** The most a fast, healthy destination grows to. */
  max: number;
  /** An answer slower than this is a sign of strain, not of room. */
  fastMs: number;
}

/** What an ended request says about its destination. */
export interface RequestEnd {
  /** An answer came (any status), as opposed to a timeout or a network error. */
  answered: boolean;
  status?: number;
  durationMs: number;
  /** The destination was using its whole limit when the request started. */
  saturated: boolean;
}

/**
 * Destinations above their base limit that are remembered (the others are at base anyway); past
 * it the least recently used is forgotten, and earns its slots back with a few fast answers.
 */
const REMEMBERED = 10_000;

/**
 * How many requests may be in flight to one destination (host and port), all tenants together.
 * Every destination gets the base share. One that answers quickly and healthily while it is using
 * its whole limit earns one more slot per such answer, up to `max` (a fast receiver of many
 * tenants, or of one busy tenant, is not held to 8 requests at a time); a timeout, a network
 * error, a 5xx, a 429 or a slow answer halves what it earned. So a hanging or failing destination
 * never holds more than the base share, and one that starts to struggle gives back quickly.
 * Additive increase, multiplicative decrease: TCP's answer to the same question. No I/O.
 */
export class DestinationLimits {
  private readonly earned = new LRUCache<string, number>({ max: REMEMBERED });

  constructor(private readonly options: DestinationLimitOptions) {}

  limitOf(destination: string): number {
    return this.earned.get(destination) ?? this.options.base;
  }

  ended(destination: string, end: RequestEnd): void {
    const current = this.limitOf(destination);
    const healthy =
      end.answered &&
      end.durationMs < this.options.fastMs &&
      end.status !== undefined &&
      end.status < 500 &&
      end.status !== 429;
    let next = current;
    if (!healthy) next = Math.max(this.options.base, Math.floor(current / 2));
    else if (end.saturated) next = Math.min(this.options.max, current + 1);
    if (next === current) return;
    if (next <= this.options.base) {
      this.earned.delete(destination);
      return;
    }
    this.earned.set(destination, next);
  }
}
