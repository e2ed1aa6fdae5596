/** Concurrency shares of the fair queue (DESIGN section 8, docs/webhooks.md "Fair delivery"). */
export interface FairShares {
  /** Jobs started and not yet done (request and stored outcome), all tenants together. */
  total: number;
  /** Requests of one tenant in flight at once. */
  perTenant: number;
  /** Requests to one destination (host and port) in flight at once, all tenants together. */
  perDestination: (destination: string) => number;
}

/**
 * How much waits in memory. Each tenant may always have `guaranteed` jobs waiting; beyond that, up
 * to `perTenantMax`, it draws on a pool shared by all tenants and bounded by count and bytes.
 * Whatever does not fit waits in the database (or in Kafka) until there is room.
 */
export interface QueueBounds {
  guaranteed: number;
  perTenantMax: number;
  poolJobs: number;
  poolBytes: number;
}

/** A job that has started: `requestEnded` when its request ends, `done` when it is finished. */
export interface Started<J> {
  job: J;
  tenant: string;
  destination: string;
  /** The destination was using its whole limit with this job. */
  saturated: boolean;
  /** Whether the job still holds its tenant's and destination's slots. */
  requesting: boolean;
}

export interface JobKeys<J> {
  tenant: (job: J) => string;
  destination: (job: J) => string;
  bytes: (job: J) => number;
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
 * that tenant. A job starts only while its tenant and its destination are under their shares of
 * requests in flight and the replica under its total; among the tenants that may start something,
 * the longest served least recently goes first, and within a tenant its destinations take turns.
 * Within one tenant and destination jobs start in the order they came (test sends go first).
 * A job's tenant and destination slots are freed when its request ends; its replica slot when its
 * outcome is stored (so unstored outcomes cannot pile up without bound). No I/O.
 */
export class FairQueue<J> {
  /** Tenants with waiting jobs, in round-robin order: a tenant served moves to the end. */
  private readonly lanes = new Map<string, Lane<J>>();
  private readonly runningByTenant = new Map<string, number>();
  private readonly runningByDestination = new Map<string, number>();
  private running = 0;
  private queued = 0;
  /** Waiting jobs beyond their tenants' guaranteed room, and the bytes of every waiting job. */
  private pooled = 0;
  private queuedBytes = 0;

  constructor(
    private readonly shares: FairShares,
    private readonly bounds: QueueBounds,
    private readonly keys: JobKeys<J>,
  ) {}

  /** Jobs waiting, all tenants together. */
  get size(): number {
    return this.queued;
  }

  /** Jobs started and not yet done. */
  get inFlight(): number {
    return this.running;
  }

  /** Whether the shared pool is used up: tenants have only their guaranteed room left. */
  get poolFull(): boolean {
    return this.pooled >= this.bounds.poolJobs || this.queuedBytes >= this.bounds.poolBytes;
  }

  /** How many more jobs of this tenant may wait here. */
  roomFor(tenant: string): number {
    const queued = this.lanes.get(tenant)?.queued ?? 0;
    const guaranteed = Math.max(0, this.bounds.guaranteed - queued);
    if (this.poolFull) return guaranteed;
    const beyond = this.bounds.perTenantMax - Math.max(queued, this.bounds.guaranteed);
    return guaranteed + Math.max(0, Math.min(beyond, this.bounds.poolJobs - this.pooled));
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
    if (lane.queued >= this.bounds.guaranteed) this.pooled += 1;
    lane.queued += 1;
    this.queued += 1;
    this.queuedBytes += this.keys.bytes(job);
  }

  /** Starts the next job that may start now, or answers undefined when none may. */
  next(): Started<J> | undefined {
    if (this.running >= this.shares.total) return undefined;
    for (const [tenant, lane] of this.lanes) {
      if ((this.runningByTenant.get(tenant) ?? 0) >= this.shares.perTenant) continue;
      for (const [destination, waiting] of lane.byDestination) {
        const limit = this.shares.perDestination(destination);
        const atDestination = this.runningByDestination.get(destination) ?? 0;
        if (atDestination >= limit) continue;
        const job = waiting.shift()!;
        lane.byDestination.delete(destination);
        if (waiting.length > 0) lane.byDestination.set(destination, waiting);
        if (lane.queued > this.bounds.guaranteed) this.pooled -= 1;
        lane.queued -= 1;
        this.queued -= 1;
        this.queuedBytes -= this.keys.bytes(job);
        this.lanes.delete(tenant);
        if (lane.queued > 0) this.lanes.set(tenant, lane);
        increment(this.runningByTenant, tenant, 1);
        increment(this.runningByDestination, destination, 1);
        this.running += 1;
        return { job, tenant, destination, saturated: atDestination + 1 >= limit, requesting: true };
      }
    }
    return undefined;
  }

  /** Frees the tenant's and the destination's slots of a job whose request has ended. */
  requestEnded(started: Started<J>): void {
    if (!started.requesting) return;
    started.requesting = false;
    increment(this.runningByTenant, started.tenant, -1);
    increment(this.runningByDestination, started.destination, -1);
  }

  /** Frees every slot of a job that has ended. */
  done(started: Started<J>): void {
    this.requestEnded(started);
    this.running -= 1;
  }

  /** Removes and answers every waiting job (shutdown). */
  drain(): J[] {
    const all = [...this.lanes.values()].flatMap((lane) => [...lane.byDestination.values()].flat());
    this.lanes.clear();
    this.queued = 0;
    this.pooled = 0;
    this.queuedBytes = 0;
    return all;
  }
}
