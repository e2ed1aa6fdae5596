import type { DispatchJob } from './dispatch-job.js';

/**
 * How long the consumer waits for room before handing a tenant's remaining new deliveries back
 * to the database: while jobs keep ending (at least one every ADMIT_IDLE_MS) it keeps waiting, up
 * to ADMIT_MAX_MS, so a burst to healthy endpoints is sent from memory; a tenant whose endpoints
 * hang makes no progress and spills after ADMIT_IDLE_MS. Either way other tenants' events wait
 * at most ADMIT_MAX_MS for it.
 */
const ADMIT_IDLE_MS = 100;
const ADMIT_MAX_MS = 500;

/** What admission needs of the dispatcher's queue. */
export interface AdmissionQueue {
  /** How many more jobs of the tenant may wait in memory now. */
  roomFor(tenantId: string): number;
  /** Whether the pool shared by all tenants is used up. */
  poolFull(): boolean;
  /** Jobs of a tenant that may always wait in memory, whatever the pool. */
  readonly guaranteed: number;
  /** Whether the dispatcher still takes jobs (false while shutting down). */
  accepting(): boolean;
  enqueue(jobs: readonly DispatchJob[]): void;
  /** Hands leased deliveries back to the database, due at once. */
  handBack(jobs: readonly DispatchJob[]): Promise<void>;
  /** Wakes the retry poller. */
  nudge(): void;
}

/**
 * Lets new first attempts from the Kafka consumer into the fair queue: how many of a tenant's new
 * deliveries to create leased to this replica, and for those that do not fit, a short wait while
 * jobs end, then a hand-back to the database for the retry poller. Remembers the tenants left with
 * due work in the database and wakes the poller once their queue has room for a round again.
 */
export class Admission {
  /** Tenants with due work left in the database for want of room here. */
  private readonly backlogged = new Set<string>();
  /** Told whenever a job ends, so a waiting admission may find room. */
  private readonly jobEndListeners = new Set<() => void>();

  constructor(private readonly queue: AdmissionQueue) {}

  /**
   * How many new deliveries of a tenant the consumer should create leased to this replica: what
   * the queue takes now and another guaranteed queueful that may fit while `admit` waits. The rest
   * are created unleased, for the poller.
   */
  leasableFor(tenantId: string): number {
    return this.queue.accepting() ? this.queue.roomFor(tenantId) + this.queue.guaranteed : 0;
  }

  /** How many more deliveries of a tenant the queue takes now. */
  roomFor(tenantId: string): number {
    return this.queue.accepting() ? this.queue.roomFor(tenantId) : 0;
  }

  /** Notes that a tenant has due work in the database that its queue had no room for. */
  noteBacklog(tenantId: string): void {
    this.backlogged.add(tenantId);
  }

  /**
   * Resolves once the pool shared by all tenants has room, or once no job has ended for a while:
   * a busy replica keeps new events in Kafka, but tenants whose endpoints hang cannot hold up the
   * consumer (and every other tenant's events) for more than a short wait.
   */
  async waitForRoom(): Promise<void> {
    await this.waitWhile(() => this.queue.poolFull());
  }

  /**
   * Queues first attempts from the consumer. A tenant's jobs beyond its room wait while jobs keep
   * ending; the rest are handed back to the database, due at once, and the poller claims them in
   * the tenant's turn.
   */
  async admit(jobs: readonly DispatchJob[]): Promise<void> {
    const byTenant = new Map<string, DispatchJob[]>();
    for (const job of jobs) {
      const list = byTenant.get(job.tenantId);
      if (list) list.push(job);
      else byTenant.set(job.tenantId, [job]);
    }
    await Promise.all([...byTenant].map(([tenantId, list]) => this.admitTenant(tenantId, list)));
  }

  /** Called by the dispatcher whenever a job ends. */
  jobEnded(tenantId: string): void {
    for (const listener of [...this.jobEndListeners]) listener();
    if (this.backlogged.has(tenantId) && this.queue.roomFor(tenantId) >= this.queue.guaranteed / 2) {
      this.backlogged.delete(tenantId);
      this.queue.nudge();
    }
  }

  private async admitTenant(tenantId: string, jobs: DispatchJob[]): Promise<void> {
    let next = 0;
    await this.waitWhile(() => {
      const room = this.roomFor(tenantId);
      if (room > 0) {
        this.queue.enqueue(jobs.slice(next, next + room));
        next += room;
      }
      return next < jobs.length;
    });
    const rest = jobs.slice(next);
    if (rest.length === 0) return;
    await this.queue.handBack(rest);
    if (this.queue.accepting()) this.noteBacklog(tenantId);
  }

  /**
   * Waits while `blocked()` answers true, as long as some job ends at least every ADMIT_IDLE_MS,
   * and at most ADMIT_MAX_MS in all.
   */
  private async waitWhile(blocked: () => boolean): Promise<void> {
    const latest = Date.now() + ADMIT_MAX_MS;
    while (this.queue.accepting() && blocked()) {
      const wait = Math.min(ADMIT_IDLE_MS, latest - Date.now());
      if (wait <= 0 || !(await this.someJobEnds(wait))) return;
    }
  }

  /** Answers true when a job ends within `ms`, false when none did. */
  private someJobEnds(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (ended: boolean) => {
        clearTimeout(timer);
        this.jobEndListeners.delete(done);
        resolve(ended);
      };
      const done = () => finish(true);
      const timer = setTimeout(() => finish(false), ms);
      this.jobEndListeners.add(done);
    });
  }
}
