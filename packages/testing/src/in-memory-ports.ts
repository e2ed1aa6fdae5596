import {
  isPlanName,
  planQuota,
  QuotaExceededError,
  type CountKind,
  type QuotaCounter,
} from '@agentplatform/service-kit';

/**
 * In-memory fakes of the shared ports the use cases write through (the outbox and the quota
 * counter), for unit specs that start no database. They keep the rules a caller can observe: the
 * outbox stores a use case's events only when its work succeeds; the quota counter refuses the
 * unit over the plan's limit and gives back released units.
 */
/**
 * What these fakes need of an outbox event. Structural, not imported: the events package uses
 * this one in its tests, and a dependency back would be a cycle.
 */
interface OutboxEvent {
  type: string;
}

export class InMemoryOutbox {
  /** Every event stored, in order. */
  readonly events: OutboxEvent[] = [];

  async run<T>(work: (session?: undefined) => Promise<{ result: T; events: OutboxEvent[] }>): Promise<T> {
    const outcome = await work(undefined);
    this.events.push(...outcome.events);
    return outcome.result;
  }

  async publish(events: OutboxEvent[]): Promise<void> {
    this.events.push(...events);
  }

  /** The stored events' types, in order. */
  types(): string[] {
    return this.events.map((event) => event.type);
  }
}

export class InMemoryQuotaCounter {
  private readonly counts = new Map<string, number>();

  /** The real counter's signature and rules, over a map. */
  acquire: QuotaCounter['acquire'] = async (scope, kind, plan, countActual, units = 1) => {
    const key = `${kind}:${scope}`;
    const count = this.counts.get(key) ?? (await countActual());
    const limit = planQuota(plan, kind);
    if (limit !== null && count + units > limit) {
      this.counts.set(key, count);
      throw new QuotaExceededError(kind, limit, plan && isPlanName(plan) ? plan : 'free');
    }
    this.counts.set(key, count + units);
    return () => this.release(scope, kind, units);
  };

  async add(scope: string, kind: CountKind, units = 1): Promise<void> {
    const key = `${kind}:${scope}`;
    if (this.counts.has(key)) this.counts.set(key, this.counts.get(key)! + units);
  }

  async forget(scope: string, kind: CountKind): Promise<void> {
    this.counts.delete(`${kind}:${scope}`);
  }

  async release(scope: string, kind: CountKind, units = 1): Promise<void> {
    const key = `${kind}:${scope}`;
    const count = this.counts.get(key);
    if (count !== undefined && count >= units) this.counts.set(key, count - units);
  }

  count: QuotaCounter['count'] = async (scope, kind, countActual) => {
    const key = `${kind}:${scope}`;
    if (!this.counts.has(key)) this.counts.set(key, await countActual());
    return this.counts.get(key)!;
  };

  /** The units counted under a scope (undefined before the first acquire). */
  counted(scope: string, kind: CountKind): number | undefined {
    return this.counts.get(`${kind}:${scope}`);
  }
}
