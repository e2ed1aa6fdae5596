import { randomUUID } from 'node:crypto';
import type { Logger } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types.js';
import type { LeaseStore } from './ports.js';
import { Abandoned, within, type Run } from './run.js';
import { RunSlot, TenantSlots, type Admission } from './tenant-slots.js';

export interface LeaseOptions {
  leaseMs: number;
  pollIntervalMs: number;
  maxConcurrent: number;
  /** The most of those one tenant runs at once (below `maxConcurrent`: room for the others). */
  maxConcurrentPerTenant: number;
  /** How long a graceful stop lets running executions finish before handing them back. */
  stopGraceMs: number;
}

/** What the keeper does with an execution it holds: run it, or give it up as failed. */
export interface LeaseHolder {
  /** Runs the execution to its end (or until its signal aborts). */
  run(run: Run): Promise<void>;
  /** Ends an execution that was taken over too often, without running it. */
  giveUp(execution: Execution, reason: string): Promise<void>;
  /** A run of this tenant is no longer held here (it ended, or was abandoned): room for its next. */
  ended(tenantId: string): void;
}

/** An execution taken over this many times (each time its replica died) is failed, not retried forever. */
export const MAX_CLAIMS = 5;

/**
 * The leases of this replica (its `owner` id): which executions it holds, and when each may run.
 *
 * - A held execution runs while it holds one of the replica's slots (tenant-slots.ts): at most
 *   `maxConcurrent` at once, at most `maxConcurrentPerTenant` of one tenant, freed slots going to
 *   the waiting tenant that runs the fewest. A run waiting for its child runs holds no slot.
 * - Leases of all held executions are renewed with one write per interval (a third of the
 *   lease); a run whose execution is no longer ours (cancelled, deleted, taken over) is aborted.
 * - The poller takes over executions whose lease expired (a crashed replica's) or that were left
 *   unowned because a replica's queue for slots was full; a freed slot looks again at once when
 *   one was left so.
 * - A graceful stop lets running executions finish for `stopGraceMs`, then hands the rest back.
 */
export class LeaseKeeper {
  readonly owner = randomUUID();
  private readonly runs = new Map<string, Run>();
  private readonly slots: TenantSlots;
  private renewTimer?: NodeJS.Timeout;
  private pollTimer?: NodeJS.Timeout;
  private polling = false;
  private stopped = false;
  /** Set when an execution was left unowned for lack of room, so a freed slot looks for it at once. */
  private backlog = false;

  constructor(
    private readonly deps: { leases: LeaseStore; logger: Logger; options: LeaseOptions },
    private readonly holder: LeaseHolder,
  ) {
    this.slots = new TenantSlots({
      total: deps.options.maxConcurrent,
      perTenant: Math.min(deps.options.maxConcurrent, deps.options.maxConcurrentPerTenant),
    });
  }

  /** Executions held here: running, waiting for a slot, or waiting for their child runs. */
  get activeCount(): number {
    return this.runs.size;
  }

  /**
   * Whether a new execution of this tenant is to be held here (run now, or wait here for a slot);
   * when true, it is counted from now on (`launch` it with `admitted`, or `withdraw` it).
   */
  admit(tenantId: string): boolean {
    return !this.stopped && this.slots.admit(tenantId);
  }

  /** An admitted execution that will not be launched (it could not be stored). */
  withdraw(tenantId: string): void {
    this.slots.withdraw(tenantId);
  }

  /** Waits until the tenant has room here for a new run, and admits it (tenant-slots.ts). */
  room(tenantId: string, signal: AbortSignal): Promise<Admission> {
    return this.slots.room(tenantId, signal);
  }

  /**
   * Whether a run with this admission is to be held here, as `admit` answers; false only once the
   * replica is stopping (the admission is then given back).
   */
  use(admission: Admission): boolean {
    if (this.stopped) {
      admission.release();
      return false;
    }
    this.slots.use(admission);
    return true;
  }

  /** When a lease taken or renewed now ends. */
  leaseUntil(now = Date.now()): Date {
    return new Date(now + this.deps.options.leaseMs);
  }

  /** The run of an execution held here, if any. */
  running(executionId: string): Run | undefined {
    return this.runs.get(executionId);
  }

  start(): void {
    const { leaseMs } = this.deps.options;
    this.renewTimer = setInterval(() => void this.renew(), Math.max(200, Math.floor(leaseMs / 3)));
    this.renewTimer.unref();
    this.schedulePoll(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.renewTimer);
    clearTimeout(this.pollTimer);
    const running = [...this.runs.values()];
    if (running.length > 0) {
      await within(Promise.all(running.map((r) => r.done)), this.deps.options.stopGraceMs);
    }
    const left = [...this.runs.keys()];
    for (const run of this.runs.values()) run.controller.abort(new Abandoned('shutting down'));
    // Hand the rest back so another replica (or this one after a restart) resumes them at once.
    await this.deps.leases.releaseLeases(this.owner, left).catch(() => undefined);
  }

  /** Runs an execution whose lease this replica holds (stored with it, or just claimed) once it has a slot. */
  launch(execution: Execution, options: { admitted?: boolean } = {}): void {
    const controller = new AbortController();
    const slot = new RunSlot(this.slots, execution.tenantId, controller.signal, options.admitted ?? false);
    const run: Run = { execution, controller, done: Promise.resolve(), slot };
    this.runs.set(execution.id, run);
    const held = async (): Promise<void> => {
      await slot.take();
      try {
        await this.holder.run(run);
      } finally {
        slot.give();
      }
    };
    run.done = held()
      .catch((error) => {
        if (!(error instanceof Abandoned) && !controller.signal.aborted) {
          this.deps.logger.error({ err: error, execution_id: execution.id }, 'execution run failed unexpectedly');
        }
      })
      .finally(() => {
        this.runs.delete(execution.id);
        this.holder.ended(execution.tenantId);
        if (this.backlog && !this.stopped) this.schedulePoll(0);
      });
  }

  /** An execution was stored without an owner for lack of room: the next free slot looks for it. */
  queued(): void {
    this.backlog = true;
  }

  /** Aborts the run of an execution held here (it was cancelled). */
  abandon(executionId: string, reason: string): void {
    this.runs.get(executionId)?.controller.abort(new Abandoned(reason));
  }

  private schedulePoll(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => void this.poll(), delayMs);
    this.pollTimer.unref();
  }

  /** Takes over executions whose lease expired, while there is room. */
  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      this.backlog = false;
      while (!this.stopped && this.slots.hasRoom) {
        const now = new Date();
        const claimed = await this.deps.leases.claimExpired(this.owner, now, this.leaseUntil(now.getTime()));
        if (!claimed) break;
        const { claims, execution } = claimed;
        this.deps.logger.info(
          { execution_id: execution.id, claims, in_flight: execution.inFlight?.nodeId },
          'took over execution',
        );
        if (claims > MAX_CLAIMS) {
          await this.holder.giveUp(execution, `execution was interrupted ${claims - 1} times; giving up`);
          continue;
        }
        this.launch(execution);
      }
      if (!this.slots.hasRoom) this.backlog = true;
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'execution poll failed');
    } finally {
      this.polling = false;
      const jitter = Math.floor(Math.random() * this.deps.options.pollIntervalMs * 0.2);
      this.schedulePoll(this.deps.options.pollIntervalMs + jitter);
    }
  }

  /** Renews this replica's leases; runs whose execution is no longer ours are abandoned. */
  private async renew(): Promise<void> {
    if (this.runs.size === 0) return;
    const ids = [...this.runs.keys()];
    try {
      const owned = await this.deps.leases.renewLeases(this.owner, ids, this.leaseUntil());
      for (const id of ids) {
        if (!owned.has(id)) this.abandon(id, 'lease lost');
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'lease renewal failed');
    }
  }
}
