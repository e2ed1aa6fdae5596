import type { Context } from 'koa';
import { RateLimiterMemory, RateLimiterMongo, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import {
  DomainError,
  GroupCommit,
  PLAN_RATE_LIMITS,
  isPlanName,
  pruneInBatches,
  type Connection,
} from '@agentplatform/service-kit';

/** One collection holds every counter; keys carry their limiter's prefix. */
const COLLECTION = 'rate_limits';

interface LimiterStore {
  client: ReturnType<Connection['getClient']>;
  dbName: string;
}

/**
 * A fixed-window limiter whose counters live in the gateway's MongoDB database, so every gateway
 * replica draws from the same budget (rate-limiter-flexible's Mongo store: one atomic upsert per
 * request, or per group of requests under load: see GroupedLimiter). If the database is
 * unreachable an in-memory limiter with the same limit takes over per replica, so an outage of the
 * counter store neither blocks nor unlimits the API.
 */
function mongoLimiter(store: LimiterStore, keyPrefix: string, points: number, duration: number): GroupedLimiter {
  return new GroupedLimiter(
    new RateLimiterMongo({
      storeClient: store.client,
      dbName: store.dbName,
      tableName: COLLECTION,
      keyPrefix,
      points,
      duration,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
    }),
  );
}

/**
 * Deletes the counters whose window is over, in batches by the limiter's `expire` index. Its TTL
 * does this on MongoDB; the local stand-in never expires documents, and every count there scans
 * the collection (the limiter's upsert filters on `key` and `expire`), so it must hold only the
 * live windows: a few per tenant, one per recent client address and hook.
 */
export function pruneExpiredCounters(connection: Connection, now: Date, batchSize: number): Promise<number> {
  return pruneInBatches(
    connection.collection(COLLECTION),
    { expire: { $lt: now } },
    { sort: { expire: 1 }, batchSize },
  );
}

interface Outcome {
  ok: boolean;
  res: RateLimiterRes;
}

/**
 * Counts the requests for one key in groups: those that arrive while a count for the key is in
 * flight are counted together by one `consume(key, n)`, one database round trip instead of n. Each
 * request's outcome is exactly what n separate consumes in arrival order would have given: from
 * the window's total after the group, request i (1-based) was the (total - n + i)-th of the window,
 * which says whether it fit the limit and how many points remained after it.
 */
export class GroupedLimiter {
  private readonly commit: GroupCommit<null, Outcome>;

  constructor(limiter: RateLimiterAbstract) {
    this.commit = new GroupCommit(async (key, items) => {
      const n = items.length;
      let total: RateLimiterRes;
      try {
        total = await limiter.consume(key, n);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        total = rejection;
      }
      const limit = limiter.points;
      return items.map((_, i) => {
        const nth = total.consumedPoints - n + i + 1;
        const res = new RateLimiterRes(
          Math.max(0, limit - nth),
          total.msBeforeNext,
          nth,
          total.isFirstInDuration && i === 0,
        );
        return { ok: nth <= limit, res };
      });
    });
  }

  /** Consumes one point; a rejection comes back as the outcome instead of a throw. */
  take(key: string): Promise<Outcome> {
    return this.commit.submit(key, null);
  }
}

function resetEpochSeconds(res: RateLimiterRes): number {
  return Math.ceil((Date.now() + Math.max(res.msBeforeNext, 0)) / 1000);
}

function retryAfterSeconds(res: RateLimiterRes): number {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

function setHeaders(ctx: Context, limit: number, res: RateLimiterRes): void {
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
  ctx.set('X-RateLimit-Reset', String(resetEpochSeconds(res)));
}

function exceeded(ctx: Context, limit: number, res: RateLimiterRes, what: string): DomainError {
  setHeaders(ctx, limit, res);
  const retryAfter = retryAfterSeconds(res);
  return new DomainError(
    'rate_limit_exceeded',
    `Rate limit exceeded: ${what}; retry in ${retryAfter} s`,
    [],
    retryAfter,
  );
}

/** The per-tenant budget of docs/design.md section 5, counted across all keys, users and replicas. */
export class TenantRateLimiter {
  private readonly limiters = new Map<
    string,
    { minute: GroupedLimiter; day: GroupedLimiter; perMinute: number; perDay: number }
  >();

  constructor(store: LimiterStore) {
    for (const [plan, limits] of Object.entries(PLAN_RATE_LIMITS)) {
      if (!limits) continue;
      // Same prefixes for every plan: a tenant that changes plan keeps its current counts.
      this.limiters.set(plan, {
        minute: mongoLimiter(store, 'tenant_minute', limits.perMinute, 60),
        day: mongoLimiter(store, 'tenant_day', limits.perDay, 86_400),
        ...limits,
      });
    }
  }

  /**
   * Counts one request and sets the X-RateLimit headers: the per-minute window, or the daily one
   * once it is the binding limit. Unlimited plans get no headers.
   */
  async consume(ctx: Context, tenantId: string, plan: string): Promise<void> {
    const limits = this.limiters.get(isPlanName(plan) ? plan : 'free');
    if (!limits) return;
    const minute = await limits.minute.take(tenantId);
    if (!minute.ok)
      throw exceeded(ctx, limits.perMinute, minute.res, `${limits.perMinute} requests per minute on the ${plan} plan`);
    const day = await limits.day.take(tenantId);
    if (!day.ok) throw exceeded(ctx, limits.perDay, day.res, `${limits.perDay} requests per day on the ${plan} plan`);
    if (day.res.remainingPoints < minute.res.remainingPoints) setHeaders(ctx, limits.perDay, day.res);
    else setHeaders(ctx, limits.perMinute, minute.res);
  }
}

/**
 * A per-minute budget per key, counted across replicas (`what` words the refusal). Two use it:
 * - per client address and endpoint, for the unauthenticated endpoints (register, login, refresh);
 * - per hook id, for the public inbound workflow hooks (`/hooks/:hook_id...`), so a flood aimed at
 *   one workflow's hook cannot starve the others. Counted only for a hook the workflow service
 *   knows (routes/hooks), so random ids write no counter.
 */
export class KeyRateLimiter {
  private readonly limiter: GroupedLimiter;

  constructor(
    store: LimiterStore,
    keyPrefix: string,
    private readonly perMinute: number,
    private readonly what: string,
  ) {
    this.limiter = mongoLimiter(store, keyPrefix, perMinute, 60);
  }

  async consume(ctx: Context, key: string): Promise<void> {
    const { ok, res } = await this.limiter.take(key);
    if (!ok) throw exceeded(ctx, this.perMinute, res, `${this.perMinute} requests per minute ${this.what}`);
    setHeaders(ctx, this.perMinute, res);
  }
}
