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
 *
 * With `perTenant` below `max`, one tenant's calls hold at most that many places (docs/design.md
 * section 5, "Fair shares"): however slow its calls, the other places stay free for other tenants.
 * And the last places (`reserveOf(max)`) are kept for tenants with no call in flight: several
 * tenants at their shares together (two at half each) cannot take every place, so a tenant with
 * nothing in flight still finds one. A call past its tenant's share, or into the reserve while its
 * tenant has calls in flight, is refused with 429, like a rate limit: it is that tenant's own
 * excess, not the service's overload.
 */
export class InFlightLimit {
  private inFlight = 0;
  /** Places held, by tenant (only while `perTenant` is below `max`). */
  private readonly byTenant = new Map<string, number>();
  /** The last places, kept for tenants with no call in flight (while shares apply). */
  private readonly reserve: number;

  constructor(
    /** The most calls in flight at once; 0 or Infinity: no bound. */
    readonly max: number,
    private readonly onShed?: (reason: ShedReason) => void,
    /** The most calls of one tenant in flight at once. */
    readonly perTenant = max,
  ) {
    this.reserve = reserveOf(max);
  }

  get current(): number {
    return this.inFlight;
  }

  /**
   * Takes a place for a call of `tenant` (none: a call for no tenant, bound by `max` only), or
   * throws the shed error when none is free: 503 with Retry-After, or 429 past the tenant's share
   * or into the reserve while the tenant has calls in flight.
   */
  enter(what: string, tenant?: string): void {
    if (this.max > 0 && this.inFlight >= this.max) {
      this.onShed?.('capacity');
      throw shedError(what);
    }
    if (tenant !== undefined && this.sharesByTenant()) {
      const held = this.byTenant.get(tenant) ?? 0;
      if (held >= this.perTenant) {
        this.onShed?.('tenant_share');
        throw tenantShareError(`already has ${held} requests in progress at the ${what}, its share`);
      }
      if (held > 0 && this.max - this.inFlight <= this.reserve) {
        this.onShed?.('tenant_share');
        throw tenantShareError(
          `has ${held} requests in progress at the ${what}, whose last places are kept for tenants with none`,
        );
      }
      this.byTenant.set(tenant, held + 1);
    }
    this.inFlight++;
  }

  /** Gives back a place taken by `enter` (with the same tenant). */
  leave(tenant?: string): void {
    this.inFlight--;
    if (tenant === undefined || !this.sharesByTenant()) return;
    const held = (this.byTenant.get(tenant) ?? 1) - 1;
    if (held > 0) this.byTenant.set(tenant, held);
    else this.byTenant.delete(tenant);
  }

  private sharesByTenant(): boolean {
    return this.max > 0 && this.perTenant < this.max;
  }
}

/**
 * The places kept for tenants with no call in flight, of `max`: an eighth, at least one (4 of
 * agent-memory's 32 in the gateway, 8 of the other backends' 64). Enough for that many tenants'
 * first calls while others hold the rest; small enough that one busy tenant keeps its share.
 */
function reserveOf(max: number): number {
  return Math.max(1, Math.floor(max / 8));
}

/** Why a call was refused: the limit was reached, or its tenant's share of it. */
export type ShedReason = 'capacity' | 'tenant_share';

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
 * The error of a call past its tenant's share of the places (`why`: what the tenant holds): 429
 * with Retry-After, saying that nothing was done, so a retry is safe even for a write without an
 * Idempotency-Key.
 */
function tenantShareError(why: string): DomainError {
  return new DomainError(
    'rate_limit_exceeded',
    `This tenant ${why}; this one was not started (nothing was done); retry after ${SHED_RETRY_AFTER_S} s`,
    [],
    SHED_RETRY_AFTER_S,
  );
}

/**
 * In-flight limits whose calls in flight and refusals are on `/metrics`: `<prefix>_in_flight`
 * (gauge, read when scraped: counting calls costs nothing more per call), `<prefix>_shed_total`
 * (counter: refused at the limit) and `<prefix>_tenant_share_refused_total` (counter: refused
 * past a tenant's share: `tenantShare` of `max`), all labelled by `target` (a backend, or `server`).
 */
export function meteredInFlightLimits(
  metrics: Metrics,
  prefix: string,
): (target: string, max: number, tenantShare?: number) => InFlightLimit {
  const byTarget = new Map<string, InFlightLimit>();
  const refused = {
    capacity: metrics.counter(`${prefix}_shed_total`, 'Calls refused at once because the in-flight limit was reached', [
      'target',
    ]),
    tenant_share: metrics.counter(
      `${prefix}_tenant_share_refused_total`,
      "Calls refused at once because their tenant held its share of the in-flight limit's places, or held some and only the reserve was left",
      ['target'],
    ),
  };
  new Gauge({
    name: `${prefix}_in_flight`,
    help: 'Calls in flight, bounded by the in-flight limit',
    labelNames: ['target'],
    registers: [metrics.registry],
    collect() {
      for (const [target, limit] of byTarget) this.set({ target }, limit.current);
    },
  });
  return (target, max, tenantShare = 1) => {
    // A share of the places, at least one.
    const perTenant = Math.max(1, Math.floor(max * tenantShare));
    const limit = new InFlightLimit(max, (reason) => refused[reason].inc({ target }), perTenant);
    byTarget.set(target, limit);
    return limit;
  };
}
