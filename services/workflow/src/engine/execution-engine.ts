import type { Logger } from '@agentplatform/service-kit';
import type { Execution } from '../domain/execution.types.js';
import { NO_LEASE } from '../domain/lease.js';
import { isFinished } from '../domain/execution.types.js';
import { Checkpointer } from './checkpointer.js';
import { LeaseKeeper, type LeaseOptions } from './lease-keeper.js';
import { isPure, type NodeRunnerDeps } from './node-runners.js';
import type { EngineStore, EventOutbox } from './ports.js';
import { detachedRun, sleep, within, type Run } from './run.js';
import { Stepper } from './stepper.js';
import type { Admission } from './tenant-slots.js';

export interface EngineOptions extends LeaseOptions {
  defaultNodeTimeoutMs: number;
}

export interface EngineDeps {
  executions: EngineStore;
  outbox: EventOutbox;
  runners: NodeRunnerDeps;
  logger: Logger;
  options: EngineOptions;
}

/**
 * The durable, distributed engine (docs/workflow-engine.md), composed of three parts:
 *
 * - the lease keeper (lease-keeper.ts) decides which executions this replica runs: a replica that
 *   creates an execution owns it from the insert and runs it at once, in process; the poller picks
 *   up executions whose lease expired (a crashed replica's) or that were queued for lack of room;
 * - the stepper (stepper.ts, node-attempts.ts) runs an execution's nodes in order;
 * - the checkpointer (checkpointer.ts) writes its progress and its end with their events, each
 *   write conditional on still holding the lease, so a cancelled or taken-over execution stops at
 *   its next write, or sooner when the lease keeper's renewal notices.
 *
 * A webhook -> transform run is one insert and one update.
 */
export class ExecutionEngine {
  private readonly leases: LeaseKeeper;

  constructor(private readonly deps: EngineDeps) {
    this.leases = new LeaseKeeper(
      { leases: deps.executions, logger: deps.logger, options: deps.options },
      {
        run: (run) => this.stepper(run).drive(),
        giveUp: (execution, reason) => this.stepper(detachedRun(execution)).fail(reason, execution.inFlight?.nodeId),
      },
    );
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
  }

  stop(): Promise<void> {
    return this.leases.stop();
  }

  /**
   * Stores a new execution and runs it here, at once when its tenant may have a slot, else when
   * one is its turn (lease-keeper.ts); when this replica already holds as many runs of the tenant
   * waiting for slots as it may, the execution waits instead (status running, no owner) for the
   * poller of whichever replica has room first.
   *
   * With `runFirst`, a graph of pure nodes only (webhook, transform, condition: no side effects,
   * no waits, at most a CEL budget of work each) is run before anything is stored, and the execution is stored
   * once, finished, with its events: a crash before that write loses nothing the caller was told
   * about, and the run costs one write instead of an insert, an update and a lease. Callers that
   * must answer with a running execution (async execute) leave it off.
   * With `admission` (from `room`: a child run), the execution is held here under that admission.
   * Answers the execution as it stands when the call returns.
   */
  async submit(execution: Execution, options: { runFirst?: boolean; admission?: Admission } = {}): Promise<Execution> {
    if (options.runFirst && execution.graph.nodes.every(isPure)) {
      await this.stepper(detachedRun(execution), { stored: false }).drive();
      return execution;
    }
    const runHere = options.admission ? this.leases.use(options.admission) : this.leases.admit(execution.tenantId);
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
    return execution;
  }

  /**
   * Waits until the tenant has room on this replica for one more new run, and admits it: what a
   * parent does before each child run (use-cases/run-child.ts), so a fan-out's runs are created
   * as its tenant's slots free up. Pass the answer to `submit`, or release it.
   */
  room(tenantId: string, signal: AbortSignal): Promise<Admission> {
    return this.leases.room(tenantId, signal);
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
