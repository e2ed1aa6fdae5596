/** Concurrency shares of the fair queue (DESIGN section 8, docs/webhooks.md "Fair delivery"). */
export interface FairShares {
  /** Jobs running at once, all tenants together. */
  total: number;
  /** Jobs of one tenant running at once. */
  perTenant: number;
  /** Jobs to one destination (host and port) running at once, all tenants together. */
  perDestination: number;
  /** Jobs of one tenant waiting here; more of its work stays in the database until there is room. */
  queuedPerTenant: number;
}

/** A job that has started: hand it back to `done` when it ends, to free its slots. */
export interface Started<J> {
  job: J;
  tenant: string;
  destination: string;
}

/** One tenant's waiting jobs, one FIFO per destination; Map order is the round-robin order. */
interface Lane<J> {
  byDestination: Map<string, J[]>;
  queued: number;
}

function increment(counts: Map<string, number>, key: string, by: number): void {
  const value = (counts.get(key) ?? 0) + by;
  if (value > 0) counts.set(key, value);
  else counts.delete(key);
}

/**
 * Decides which waiting job starts next so that one tenant's slow or dead endpoints delay only
 * that tenant. A job starts only while its tenant and its destination are under their shares;
 * among the tenants that may start something, the longest served least recently goes first, and
 * within a tenant its destinations take turns. Within one tenant and destination jobs start in the
 * order they came (test sends go first). No I/O: the dispatcher feeds it and runs what it picks.
 */
export class FairQueue<J> {
  /** Tenants with waiting jobs, in round-robin order: a tenant served moves to the end. */
  private readonly lanes = new Map<string, Lane<J>>();
  private readonly runningByTenant = new Map<string, number>();
  private readonly runningByDestination = new Map<string, number>();
  private running = 0;
  private queued = 0;

  constructor(
    private readonly shares: FairShares,
    private readonly keys: { tenant: (job: J) => string; destination: (job: J) => string },
  ) {}

  /** Jobs waiting, all tenants together. */
  get size(): number {
    return this.queued;
  }

  /** Jobs started and not yet done. */
  get inFlight(): number {
    return this.running;
  }

  /** How many more jobs of this tenant may wait here. */
  roomFor(tenant: string): number {
    return Math.max(0, this.shares.queuedPerTenant - (this.lanes.get(tenant)?.queued ?? 0));
  }

  /** Adds a job behind the others of its tenant and destination, or ahead of them with `first`. */
  push(job: J, first = false): void {
    const tenant = this.keys.tenant(job);
    const destination = this.keys.destination(job);
    let lane = this.lanes.get(tenant);
    if (!lane) {
      lane = { byDestination: new Map(), queued: 0 };
      this.lanes.set(tenant, lane);
    }
    const waiting = lane.byDestination.get(destination);
    if (!waiting) lane.byDestination.set(destination, [job]);
    else if (first) waiting.unshift(job);
    else waiting.push(job);
    lane.queued += 1;
    this.queued += 1;
  }

  /** Starts the next job that may start now, or answers undefined when none may. */
  next(): Started<J> | undefined {
    if (this.running >= this.shares.total) return undefined;
    for (const [tenant, lane] of this.lanes) {
      if ((this.runningByTenant.get(tenant) ?? 0) >= this.shares.perTenant) continue;
      for (const [destination, waiting] of lane.byDestination) {
        if ((this.runningByDestination.get(destination) ?? 0) >= this.shares.perDestination) continue;
        const job = waiting.shift()!;
        lane.byDestination.delete(destination);
        if (waiting.length > 0) lane.byDestination.set(destination, waiting);
        lane.queued -= 1;
        this.queued -= 1;
        this.lanes.delete(tenant);
        if (lane.queued > 0) this.lanes.set(tenant, lane);
        increment(this.runningByTenant, tenant, 1);
        increment(this.runningByDestination, destination, 1);
        this.running += 1;
        return { job, tenant, destination };
      }
    }
    return undefined;
  }

  /** Frees the slots of a job that has ended. */
  done(started: Started<J>): void {
    increment(this.runningByTenant, started.tenant, -1);
    increment(this.runningByDestination, started.destination, -1);
    this.running -= 1;
  }

  /** Removes and answers every waiting job (shutdown). */
  drain(): J[] {
    const all = [...this.lanes.values()].flatMap((lane) => [...lane.byDestination.values()].flat());
    this.lanes.clear();
    this.queued = 0;
    return all;
  }
}
