import type { Logger } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types.js';
import { NO_LEASE } from '../domain/lease.js';
import { isFinished } from '../domain/execution.types.js';
import { Checkpointer } from './checkpointer.js';
import { HeldRuns } from './held-runs.js';
import { LeaseKeeper, type LeaseOptions } from './lease-keeper.js';
import { isPure, type NodeRunnerDeps } from './node-runners.js';
import type { EngineStore, EventOutbox, HeldRunStore, InFlightLimit, InFlightLimits } from './ports.js';
import { detachedRun, sleep, within, type Run } from './run.js';
import { Stepper } from './stepper.js';
import type { Admission } from './tenant-slots.js';

export interface EngineOptions extends LeaseOptions {
  defaultNodeTimeoutMs: number;
}

export interface EngineDeps {
  executions: EngineStore;
  /** The tenants' lines of queued runs. */
  line: HeldRunStore;
  /** Each tenant's bound on executions in flight. */
  limits: InFlightLimits;
  outbox: EventOutbox;
  runners: NodeRunnerDeps;
  logger: Logger;
  options: EngineOptions;
}

/**
 * How a new run is let in when its tenant is busy (docs/design.md section 5):
 * - `start` (the default): it starts; its caller refused it over the tenant's bound already;
 * - `queue`: over the bound, it is stored queued and starts in its turn (held-runs.ts);
 * - `{ waitForRoom }`: a child run, stored once its tenant has room for one more run on this
 *   replica, so a fan-out creates its runs no faster than its slots free up; the signal (its
 *   parent's) ends the wait.
 */
export type WhenBusy = 'start' | 'queue' | { waitForRoom: AbortSignal };

/**
 * The durable, distributed engine (docs/workflow-engine.md), composed of four parts:
 *
 * - the lease keeper (lease-keeper.ts) decides which executions this replica runs: a replica that
 *   creates an execution owns it from the insert and runs it at once, in process; the poller picks
 *   up executions whose lease expired (a crashed replica's) or that were left unowned for lack of
 *   slots here;
 * - the held runs (held-runs.ts) keep the runs over their tenant's bound on executions in flight
 *   (status queued) and start them in turn;
 * - the stepper (stepper.ts, node-attempts.ts) runs an execution's nodes in order;
 * - the checkpointer (checkpointer.ts) writes its progress and its end with their events, each
 *   write conditional on still holding the lease, so a cancelled or taken-over execution stops at
 *   its next write, or sooner when the lease keeper's renewal notices.
 *
 * A webhook -> transform run is one insert and one update.
 */
export class ExecutionEngine {
  private readonly leases: LeaseKeeper;
  private readonly held: HeldRuns;

  constructor(private readonly deps: EngineDeps) {
    this.leases = new LeaseKeeper(
      { leases: deps.executions, logger: deps.logger, options: deps.options },
      {
        run: (run) => this.stepper(run).drive(),
        giveUp: (execution, reason) => this.stepper(detachedRun(execution)).fail(reason, execution.inFlight?.nodeId),
        ended: (tenantId) => this.held.ended(tenantId),
      },
    );
    this.held = new HeldRuns({
      executions: deps.executions,
      line: deps.line,
      limits: deps.limits,
      logger: deps.logger,
      owner: this.leases.owner,
      leaseUntil: (now) => this.leases.leaseUntil(now),
      launch: (execution) => this.leases.launch(execution),
      pollIntervalMs: deps.options.pollIntervalMs,
    });
  }

  /** This replica's id in the leases it holds. */
  get owner(): string {
    return this.leases.owner;
  }

  get activeCount(): number {
    return this.leases.activeCount;
  }

  start(): void {
    this.leases.start();
    this.held.start();
  }

  stop(): Promise<void> {
    this.held.stop();
    return this.leases.stop();
  }

  /** The tenant's bound when it has that many executions in flight; undefined while it has room. */
  overLimit(tenantId: string): Promise<InFlightLimit | undefined> {
    return this.held.overLimit(tenantId);
  }

  /**
   * Stores a new execution and runs it here, at once when its tenant may have a slot, else when
   * one is its turn (lease-keeper.ts); when this replica already holds as many runs of the tenant
   * waiting for slots as it may, the execution waits instead (status running, no owner) for the
   * poller of whichever replica has room first. `whenBusy` says what happens over the tenant's
   * bound on executions in flight (WhenBusy).
   *
   * With `runFirst`, a graph of pure nodes only (webhook, transform, condition: no side effects,
   * no waits, at most a CEL budget of work each) is run before anything is stored, and the execution is stored
   * once, finished, with its events: a crash before that write loses nothing the caller was told
   * about, and the run costs one write instead of an insert, an update and a lease. Such a run is
   * never in flight (it holds no slot and no lease), so the bound does not hold it back. Callers
   * that must answer with a running execution (async execute) leave it off.
   * Answers the execution as it stands when the call returns (queued, running or finished).
   */
  async submit(execution: Execution, options: { runFirst?: boolean; whenBusy?: WhenBusy } = {}): Promise<Execution> {
    if (options.runFirst && execution.graph.nodes.every(isPure)) {
      await this.stepper(detachedRun(execution), { stored: false }).drive();
      return execution;
    }
    const whenBusy = options.whenBusy ?? 'start';
    if (whenBusy === 'queue') return this.held.submit(execution, () => this.store(execution));
    if (whenBusy === 'start') {
      await this.store(execution);
      return execution;
    }
    const admission = await this.leases.room(execution.tenantId, whenBusy.waitForRoom);
    try {
      await this.store(execution, admission);
    } finally {
      // Unless the run holds it now.
      admission.release();
    }
    return execution;
  }

  /** Inserts a new execution, with this replica's lease when it is to run here (under `admission`). */
  private async store(execution: Execution, admission?: Admission): Promise<void> {
    const runHere = admission ? this.leases.use(admission) : this.leases.admit(execution.tenantId);
    try {
      await this.deps.executions.insert(
        execution,
        runHere ? { owner: this.owner, until: this.leases.leaseUntil() } : NO_LEASE,
      );
    } catch (error) {
      if (runHere) this.leases.withdraw(execution.tenantId);
      throw error;
    }
    if (runHere) this.leases.launch(execution, { admitted: true });
    else this.leases.queued();
  }

  /** Aborts an execution's in-flight work when this replica runs it (after it was cancelled). */
  abandon(executionId: string): void {
    this.leases.abandon(executionId, 'cancelled');
  }

  /**
   * Waits until an execution has finished or `timeoutMs` passed, then answers its current state.
   * An execution running here is awaited directly; one elsewhere is polled with a growing interval.
   */
  async waitFor(
    tenantId: string,
    workflowId: string,
    executionId: string,
    timeoutMs: number,
  ): Promise<Execution | undefined> {
    const deadline = Date.now() + timeoutMs;
    let interval = 50;
    for (;;) {
      const local = this.leases.running(executionId);
      if (local) {
        const remaining = deadline - Date.now();
        if (remaining > 0) await within(local.done, remaining);
      }
      const execution = await this.deps.executions.get(tenantId, workflowId, executionId);
      const remaining = deadline - Date.now();
      if (!execution || isFinished(execution.status) || remaining <= 0) return execution;
      if (!this.leases.running(executionId)) {
        await sleep(Math.min(interval, remaining));
        interval = Math.min(interval * 2, 500);
      }
    }
  }

  /** A run's stepper, writing through a checkpointer that holds this replica's lease. */
  private stepper(run: Run, options: { stored: boolean } = { stored: true }): Stepper {
    const { executions, outbox, runners, logger } = this.deps;
    const checkpoints = new Checkpointer(run.execution, { store: executions, outbox, owner: this.owner }, options);
    return new Stepper(run, checkpoints, {
      runners,
      logger,
      defaultNodeTimeoutMs: this.deps.options.defaultNodeTimeoutMs,
    });
  }
}
