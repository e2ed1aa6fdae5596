import { Gauge } from 'prom-client';
import { DomainError } from './errors.js';
import type { Metrics } from './metrics.js';

/** Seconds a shed caller is told to wait: in-flight calls here finish in well under a second. */
export const SHED_RETRY_AFTER_S = 1;

/**
 * A bound on the calls one process has in flight (docs/design.md section 2, "Overload"). Past it
 * a call is refused at once, before any of its work starts, so a saturated process answers the
 * calls it admitted in time instead of queueing every call until all of them miss their
 * deadlines. The refusal costs a counter check: no database access, no parsing of the request.
 */
export class InFlightLimit {
  private inFlight = 0;

  constructor(
    /** The most calls in flight at once; 0 or Infinity: no bound. */
    readonly max: number,
    private readonly onShed?: () => void,
  ) {}

  get current(): number {
    return this.inFlight;
  }

  /** Takes a place, or throws the shed error (503 with Retry-After) when none is free. */
  enter(what: string): void {
    if (this.max > 0 && this.inFlight >= this.max) {
      this.onShed?.();
      throw shedError(what);
    }
    this.inFlight++;
  }

  /** Gives back a place taken by `enter`. */
  leave(): void {
    this.inFlight--;
  }
}

/**
 * The error of a shed call. Its message says the work was not started: a retry after
 * `Retry-After` is safe even for a write without an Idempotency-Key.
 */
export function shedError(what: string): DomainError {
  return new DomainError(
    'service_unavailable',
    `The ${what} is at capacity and did not start this request (nothing was done); retry after ${SHED_RETRY_AFTER_S} s`,
    [],
    SHED_RETRY_AFTER_S,
  );
}

/**
 * In-flight limits whose calls in flight and sheds are on `/metrics`: `<prefix>_in_flight`
 * (gauge, read when scraped: counting calls costs nothing more per call) and
 * `<prefix>_shed_total` (counter), both labelled by `target` (a backend, or `server`).
 */
export function meteredInFlightLimits(
  metrics: Metrics,
  prefix: string,
): (target: string, max: number) => InFlightLimit {
  const byTarget = new Map<string, InFlightLimit>();
  const shed = metrics.counter(
    `${prefix}_shed_total`,
    'Calls refused at once because the in-flight limit was reached',
    ['target'],
  );
  new Gauge({
    name: `${prefix}_in_flight`,
    help: 'Calls in flight, bounded by the in-flight limit',
    labelNames: ['target'],
    registers: [metrics.registry],
    collect() {
      for (const [target, limit] of byTarget) this.set({ target }, limit.current);
    },
  });
  return (target, max) => {
    const limit = new InFlightLimit(max, () => shed.inc({ target }));
    byTarget.set(target, limit);
    return limit;
  };
}
