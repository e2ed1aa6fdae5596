/** How a replica's execution slots are shared (docs/design.md sections 5 and 7). */
export interface SlotShares {
  /** Executions this replica runs at once, all tenants together (MAX_CONCURRENT_EXECUTIONS). */
  total: number;
  /** The most one tenant runs at once here: below `total`, so another tenant always finds room. */
  perTenant: number;
}

interface Waiter {
  /** Counted by `admit` until it gets its slot. */
  admitted: boolean;
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/** A new run counted as admitted before it exists (`TenantSlots.room`). */
export interface Admission {
  /** Gives the room back unless a run used it (`TenantSlots.use`); a second call does nothing. */
  release(): void;
}

class RoomTicket implements Admission {
  used = false;

  constructor(
    private readonly slots: TenantSlots,
    readonly tenant: string,
  ) {}

  release(): void {
    if (this.used) return;
    this.used = true;
    this.slots.withdraw(this.tenant);
  }
}

interface RoomWaiter {
  resolve: (admission: Admission) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

function increment(counts: Map<string, number>, key: string, by: number): void {
  const value = (counts.get(key) ?? 0) + by;
  if (value > 0) counts.set(key, value);
  else counts.delete(key);
}

/**
 * A replica's execution slots, shared between tenants. A run takes a slot before it runs a node
 * and gives it back when it ends, or while it only waits for child runs. A tenant never holds more
 * than `perTenant` slots, so one tenant's fan-out leaves room for the others; when a slot frees,
 * it goes to the waiting tenant that runs the fewest executions here (the longest unserved first
 * among equals), so a tenant above its fair share gets nothing while another one waits. Within a
 * tenant, runs start in the order they asked. No I/O.
 *
 * Hand-written rather than p-limit or p-queue: those bound one queue's concurrency, and the rule
 * here is a choice between tenants' queues under two bounds at once.
 */
export class TenantSlots {
  private readonly runningByTenant = new Map<string, number>();
  private running = 0;
  /** Waiters by tenant; Map order is the order tenants are served in among equals. */
  private readonly waiting = new Map<string, Waiter[]>();
  private waitingCount = 0;
  /** New runs admitted here that have no slot yet, by tenant and in all (what `admit` bounds). */
  private readonly admittedByTenant = new Map<string, number>();
  private admittedCount = 0;
  /** Child runs waiting for their tenant to have room (`room`), by tenant. */
  private readonly roomWaiters = new Map<string, RoomWaiter[]>();

  constructor(private readonly shares: SlotShares) {}

  /** Slots in use, all tenants together. */
  get inUse(): number {
    return this.running;
  }

  /** Runs waiting for a slot, all tenants together. */
  get queued(): number {
    return this.waitingCount;
  }

  /** Slots the tenant holds. */
  runningOf(tenant: string): number {
    return this.runningByTenant.get(tenant) ?? 0;
  }

  /**
   * Admits a new run of this tenant to wait for a slot here, counted from now until it has one:
   * while the tenant's slots and its admitted runs are fewer than `total`, and all tenants'
   * admitted runs too. A run refused waits in the database for any replica's poller, so one
   * tenant's backlog neither grows without bound in a replica's memory nor keeps another tenant's
   * new runs out. (Parents coming back from their children's wait are held here already.)
   */
  admit(tenant: string): boolean {
    const tenantRunnable = this.runningOf(tenant) + (this.admittedByTenant.get(tenant) ?? 0);
    if (tenantRunnable >= this.shares.total || this.admittedCount >= this.shares.total) return false;
    this.countAdmitted(tenant, 1);
    return true;
  }

  /** An admitted run that will not run here after all (it could not be stored). */
  withdraw(tenant: string): void {
    this.countAdmitted(tenant, -1);
    this.serveRoom(tenant);
  }

  /**
   * Waits until the tenant runs and has admitted fewer than its share of slots here, then admits
   * one run (the answer). A parent's child runs start so: a fan-out creates its runs no faster than
   * its tenant's slots free up, instead of storing (and charging) every run of the tree at once.
   */
  room(tenant: string, signal: AbortSignal): Promise<Admission> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (!this.roomWaiters.has(tenant) && this.hasRoomFor(tenant)) {
      this.countAdmitted(tenant, 1);
      return Promise.resolve(new RoomTicket(this, tenant));
    }
    return new Promise<Admission>((resolve, reject) => {
      const waiter: RoomWaiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const queue = this.roomWaiters.get(tenant) ?? [];
          const index = queue.indexOf(waiter);
          if (index < 0) return;
          queue.splice(index, 1);
          if (queue.length === 0) this.roomWaiters.delete(tenant);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      const queue = this.roomWaiters.get(tenant);
      if (queue) queue.push(waiter);
      else this.roomWaiters.set(tenant, [waiter]);
    });
  }

  /** Marks an admission as used by a run that is held here now (counted until it has its slot). */
  use(admission: Admission): void {
    (admission as RoomTicket).used = true;
  }

  /** Whether a run taken on now (a poller's claim) would find a slot soon. */
  get hasRoom(): boolean {
    return this.running + this.waitingCount < this.shares.total;
  }

  /**
   * Resolves once the tenant holds a slot; rejects with the signal's reason if it aborts first.
   * `admitted`: the run was counted by `admit`, which it stops being now.
   */
  acquire(tenant: string, signal: AbortSignal, admitted = false): Promise<void> {
    if (signal.aborted) {
      if (admitted) this.withdraw(tenant);
      return Promise.reject(signal.reason);
    }
    if (!this.waiting.has(tenant) && this.mayStart(tenant)) {
      if (admitted) this.countAdmitted(tenant, -1);
      this.take(tenant);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { admitted, resolve, reject, signal, onAbort: () => this.cancel(tenant, waiter) };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      const queue = this.waiting.get(tenant);
      if (queue) queue.push(waiter);
      else this.waiting.set(tenant, [waiter]);
      this.waitingCount += 1;
    });
  }

  /** Gives a slot back and hands it on to the waiting tenant with the fewest slots. */
  release(tenant: string): void {
    increment(this.runningByTenant, tenant, -1);
    this.running -= 1;
    this.dispatch();
    this.serveRoom(tenant);
  }

  private hasRoomFor(tenant: string): boolean {
    return this.runningOf(tenant) + (this.admittedByTenant.get(tenant) ?? 0) < this.shares.perTenant;
  }

  private serveRoom(tenant: string): void {
    const queue = this.roomWaiters.get(tenant);
    while (queue && queue.length > 0 && this.hasRoomFor(tenant)) {
      const waiter = queue.shift()!;
      waiter.signal.removeEventListener('abort', waiter.onAbort);
      this.countAdmitted(tenant, 1);
      waiter.resolve(new RoomTicket(this, tenant));
    }
    if (queue?.length === 0) this.roomWaiters.delete(tenant);
  }

  private mayStart(tenant: string): boolean {
    return this.running < this.shares.total && this.runningOf(tenant) < this.shares.perTenant;
  }

  private take(tenant: string): void {
    increment(this.runningByTenant, tenant, 1);
    this.running += 1;
  }

  private countAdmitted(tenant: string, by: 1 | -1): void {
    this.admittedCount += by;
    increment(this.admittedByTenant, tenant, by);
  }

  private dispatch(): void {
    while (this.running < this.shares.total) {
      let chosen: string | undefined;
      for (const tenant of this.waiting.keys()) {
        if (!this.mayStart(tenant)) continue;
        if (chosen === undefined || this.runningOf(tenant) < this.runningOf(chosen)) chosen = tenant;
      }
      if (chosen === undefined) return;
      const queue = this.waiting.get(chosen)!;
      const waiter = queue.shift()!;
      // Served: to the end of the order, behind the tenants that waited longer.
      this.waiting.delete(chosen);
      if (queue.length > 0) this.waiting.set(chosen, queue);
      this.leave(chosen, waiter);
      this.take(chosen);
      waiter.resolve();
    }
  }

  private leave(tenant: string, waiter: Waiter): void {
    this.waitingCount -= 1;
    if (waiter.admitted) this.countAdmitted(tenant, -1);
    waiter.signal.removeEventListener('abort', waiter.onAbort);
  }

  private cancel(tenant: string, waiter: Waiter): void {
    const queue = this.waiting.get(tenant);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queue || index < 0) return;
    queue.splice(index, 1);
    if (queue.length === 0) this.waiting.delete(tenant);
    this.leave(tenant, waiter);
    if (waiter.admitted) this.serveRoom(tenant);
    waiter.reject(waiter.signal.reason);
  }
}

/**
 * One run's hold on a slot. A run waiting for its child runs gives its slot back for the wait
 * (`outside`), so parents never hold the slots their children need, and takes one again, in turn
 * with the others, before it goes on.
 */
export class RunSlot {
  private holding = false;

  /** `admitted`: counted by `TenantSlots.admit` until its first slot. */
  constructor(
    private readonly slots: TenantSlots,
    private readonly tenant: string,
    private readonly signal: AbortSignal,
    private admitted: boolean,
  ) {}

  async take(): Promise<void> {
    const admitted = this.admitted;
    this.admitted = false;
    await this.slots.acquire(this.tenant, this.signal, admitted);
    this.holding = true;
  }

  give(): void {
    if (!this.holding) return;
    this.holding = false;
    this.slots.release(this.tenant);
  }

  async outside<T>(work: () => Promise<T>): Promise<T> {
    this.give();
    try {
      return await work();
    } finally {
      await this.take();
    }
  }
}
