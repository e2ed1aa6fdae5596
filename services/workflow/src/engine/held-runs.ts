import { AsyncResource } from 'node:async_hooks';
import type { Logger } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types.js';
import { NO_LEASE } from '../domain/lease.js';
import type { HeldRunStore, InFlightLimit, InFlightLimits, QueuedRunStore } from './ports.js';

/** An entry whose execution is not stored after this long was left by a replica that died storing it. */
export const ORPHAN_ENTRY_MS = 60_000;

/** Tenants whose lines one poll serves. */
const TENANTS_PER_POLL = 100;

/** A new run waiting for its tenant's decision (HeldRuns.submit). */
interface Arrival {
  execution: Execution;
  start: () => Promise<void>;
  resolve: (execution: Execution) => void;
  reject: (reason: unknown) => void;
}

export interface HeldRunsDeps {
  executions: QueuedRunStore;
  line: HeldRunStore;
  limits: InFlightLimits;
  logger: Logger;
  /** This replica's lease owner id, and when a lease taken now ends. */
  owner: string;
  leaseUntil(now: number): Date;
  /** Runs an execution this replica has just taken the lease of (lease-keeper.ts). */
  launch(execution: Execution): void;
  pollIntervalMs: number;
}

/**
 * Runs held back by their tenant's bound on executions in flight (docs/design.md section 5,
 * docs/workflows.md "Queued runs"). A hook or schedule run that arrives while its tenant has as
 * many executions running as its plan allows, or while earlier runs of the tenant wait, is stored
 * as `queued` with an entry in its tenant's line, and answered at once. Whenever a run of the
 * tenant ends here, and on every replica's poll, the line's oldest runs start while the tenant has
 * room: each with a conditional write (queued -> running under this replica's lease), so a run
 * starts once whichever replicas try, and a replica that dies holding none loses nothing.
 *
 * On one replica the decisions for one tenant are taken in turn, so the bound holds exactly; two
 * replicas deciding for the same tenant at the same moment may each start one run more than
 * there is room for (the bound is counted in the database, not reserved there).
 */
export class HeldRuns {
  /** The tail of each tenant's chain of decisions (removed when it settles idle). */
  private readonly turns = new Map<string, Promise<unknown>>();
  /** New runs waiting for their tenant's next decision, in arrival order. */
  private readonly arrivals = new Map<string, Arrival[]>();
  /** Tenants this replica saw a line of: only their ended runs look at the line. */
  private readonly lines = new Set<string>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly deps: HeldRunsDeps) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The tenant's bound when it has that many executions running; undefined while it has room. */
  async overLimit(tenantId: string): Promise<InFlightLimit | undefined> {
    const bound = await this.deps.limits.limitOf(tenantId);
    const running = await this.deps.executions.countRunning(tenantId, bound.limit);
    return running >= bound.limit ? bound : undefined;
  }

  /**
   * Starts a new run through `start` (which stores and launches it) when its tenant has room and
   * no earlier run in line; else stores it queued, behind them. Answers the execution as stored.
   * Runs of a tenant that arrive while its last decision is taken are decided together, in
   * arrival order, on one count: a burst of hooks costs one count, not one each in turn.
   */
  submit(execution: Execution, start: () => Promise<void>): Promise<Execution> {
    const tenantId = execution.tenantId;
    return new Promise<Execution>((resolve, reject) => {
      // Started in its own request's context (its request id on its events), whoever decides.
      const arrival: Arrival = { execution, start: AsyncResource.bind(start), resolve, reject };
      const waiting = this.arrivals.get(tenantId);
      if (waiting) return void waiting.push(arrival);
      this.arrivals.set(tenantId, [arrival]);
      // Decided in the tenant's turn, with whatever arrived until then.
      void this.inTurn(tenantId, () => this.decide(tenantId));
    });
  }

  private async decide(tenantId: string): Promise<void> {
    const arrivals = this.arrivals.get(tenantId) ?? [];
    this.arrivals.delete(tenantId);
    let room = 0;
    try {
      if (!(await this.deps.line.has(tenantId))) {
        const { limit } = await this.deps.limits.limitOf(tenantId);
        room = limit - (await this.deps.executions.countRunning(tenantId, limit));
      }
    } catch (error) {
      for (const arrival of arrivals) arrival.reject(error);
      return;
    }
    let held = false;
    await Promise.all(
      arrivals.map(async ({ execution, start, resolve, reject }) => {
        try {
          // Taken in arrival order, before the first write.
          if (room-- > 0) {
            await start();
            return resolve(execution);
          }
          held = true;
          resolve(await this.hold(execution));
        } catch (error) {
          reject(error);
        }
      }),
    );
    if (held) {
      this.lines.add(tenantId);
      // Room may have come while they were stored (a run ended); the line is served in order.
      this.serve(tenantId);
    }
  }

  /** Stores a run queued, with its entry in the tenant's line. */
  private async hold(execution: Execution): Promise<Execution> {
    const queued: Execution = { ...execution, status: 'queued' };
    // The entry first: an execution stored without one would never be found again.
    await this.deps.line.add({ executionId: execution.id, tenantId: execution.tenantId, heldAt: new Date() });
    try {
      await this.deps.executions.insert(queued, NO_LEASE);
    } catch (error) {
      await this.deps.line.remove(execution.id).catch(() => undefined);
      throw error;
    }
    return queued;
  }

  /** A run of the tenant ended here: its line, if it has one, may move. */
  ended(tenantId: string): void {
    if (this.lines.has(tenantId)) this.serve(tenantId);
  }

  private serve(tenantId: string): void {
    if (this.stopped) return;
    this.inTurn(tenantId, () => this.startWaiting(tenantId)).catch((error: unknown) =>
      this.deps.logger.warn({ err: error, tenant_id: tenantId }, 'could not start queued runs; the next poll retries'),
    );
  }

  /** Starts the tenant's oldest queued runs while it has room. */
  private async startWaiting(tenantId: string): Promise<void> {
    const { executions, line } = this.deps;
    if (!(await line.has(tenantId))) {
      this.lines.delete(tenantId);
      return;
    }
    const { limit } = await this.deps.limits.limitOf(tenantId);
    let room = limit - (await executions.countRunning(tenantId, limit));
    while (room > 0 && !this.stopped) {
      const next = await line.first(tenantId, room);
      if (next.length === 0) return;
      for (const held of next) {
        const now = Date.now();
        const started = await executions.startQueued(
          held.executionId,
          this.deps.owner,
          new Date(now),
          this.deps.leaseUntil(now),
        );
        if (started) {
          this.deps.launch(started);
          room -= 1;
        } else if (
          !(await executions.get(tenantId, undefined, held.executionId)) &&
          now - held.heldAt.getTime() < ORPHAN_ENTRY_MS
        ) {
          // Its replica is storing it still: it keeps its place, and the line waits for it.
          return;
        }
        // Started (here or elsewhere), cancelled while queued, or never stored: out of the line.
        await line.remove(held.executionId);
      }
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll(), this.deps.pollIntervalMs);
    this.timer.unref();
  }

  /** Serves every tenant with a line: runs that ended on other replicas, or on one that died. */
  private async poll(): Promise<void> {
    try {
      const tenants = await this.deps.line.tenants(TENANTS_PER_POLL);
      for (const tenantId of tenants) this.lines.add(tenantId);
      await Promise.all(tenants.map((tenantId) => this.inTurn(tenantId, () => this.startWaiting(tenantId))));
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'queued runs poll failed');
    } finally {
      this.schedule();
    }
  }

  /** Runs `work` after the tenant's earlier decisions, so two never count the same room. */
  private inTurn<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.turns.get(tenantId) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.catch(() => undefined);
    this.turns.set(tenantId, tail);
    void tail.then(() => {
      if (this.turns.get(tenantId) === tail) this.turns.delete(tenantId);
    });
    return result;
  }
}
