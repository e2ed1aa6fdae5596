import { LRUCache } from 'lru-cache';
import { DomainError } from '@agentplatform/service-kit';

interface AnonymousLimitOptions {
  /** Sustained requests per minute and address. */
  perMinute: number;
  /** Requests an address may send at once before the sustained rate applies. */
  burst: number;
  /** Addresses tracked at once; the least recently seen are forgotten first. */
  maxAddresses: number;
}

/** docs/design.md section 5: 60 a minute, bursts of 20. */
const ANONYMOUS_LIMITS: AnonymousLimitOptions = { perMinute: 60, burst: 20, maxAddresses: 100_000 };

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per client address for requests to authenticated routes that carry no or invalid
 * credentials (docs/design.md section 5), checked before any backend is asked. It lives in this
 * replica's memory on purpose: a flood of bogus credentials must cost no shared I/O (a counter in
 * MongoDB would move the flood there), so behind N replicas an address gets at most N times the
 * budget. Requests with valid credentials never draw from it.
 */
export class AnonymousLimiter {
  private readonly buckets: LRUCache<string, Bucket>;
  private readonly perMs: number;

  constructor(private readonly options: AnonymousLimitOptions = ANONYMOUS_LIMITS) {
    // Counted by maxSize, not max: `max` would allocate every slot up front (docs/performance.md).
    this.buckets = new LRUCache({ maxSize: options.maxAddresses, sizeCalculation: () => 1 });
    this.perMs = options.perMinute / 60_000;
  }

  /** Refuses with 429 when the address has nothing left, without taking anything. */
  check(address: string): void {
    const bucket = this.refill(address);
    if (bucket.tokens < 1) throw this.exceeded(bucket);
  }

  /** Charges one failed request to the address: 429 when it had nothing left, else nothing. */
  take(address: string): void {
    const bucket = this.refill(address);
    if (bucket.tokens < 1) throw this.exceeded(bucket);
    bucket.tokens -= 1;
  }

  private refill(address: string): Bucket {
    const now = Date.now();
    let bucket = this.buckets.get(address);
    if (!bucket) {
      bucket = { tokens: this.options.burst, at: now };
      this.buckets.set(address, bucket);
    }
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    return bucket;
  }

  private exceeded(bucket: Bucket): DomainError {
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
    return new DomainError(
      'rate_limit_exceeded',
      `Too many requests without valid credentials from this address; retry in ${retryAfter} s`,
      [],
      retryAfter,
    );
  }
}
