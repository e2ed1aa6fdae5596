import { randomUUID } from 'node:crypto';
import { createEvent, type EventEnvelope, type Outbox } from '@agentplatform/events';
import { failSpan, traced, type Logger } from '@agentplatform/service-kit';
import type { ClientSession } from 'mongoose';
import type { Execution, ExecutionStatus, NodeExecution } from '../domain/execution.types.js';
import { isFinished, lineage } from '../domain/execution.types.js';
import { isInlineSafe } from '../domain/expressions.js';
import { planGraph, type Plan } from '../domain/graph.js';
import { nodeExpressions } from '../domain/node-expressions.js';
import { CHILD_NODE_TYPES, type JsonObject, type RetryPolicy, type WorkflowNode } from '../domain/workflow.types.js';
import type { ExecutionChanges, ExecutionRepository } from '../persistence/execution.repository.js';
import { NodeError, NodeTimeout, isPure, isSafeToRepeat, runNode, type NodeRunnerDeps } from './node-runners.js';

export interface EngineOptions {
  leaseMs: number;
  pollIntervalMs: number;
  maxConcurrent: number;
  defaultNodeTimeoutMs: number;
  /** How long a graceful stop lets running executions finish before handing them back. */
  stopGraceMs: number;
}

export interface EngineDeps {
  executions: ExecutionRepository;
  outbox: Outbox;
  runners: NodeRunnerDeps;
  logger: Logger;
  options: EngineOptions;
}

/** An execution taken over this many times (each time its replica died) is failed, not retried forever. */
const MAX_CLAIMS = 5;

/** One execution this replica is running. */
interface Run {
  execution: Execution;
  controller: AbortController;
  done: Promise<void>;
}

/** Ends a run without writing anything: the execution was cancelled, deleted or taken over. */
class Abandoned extends Error {}

function staticallyBounded(node: WorkflowNode): boolean {
  return isPure(node) && nodeExpressions(node).every(isInlineSafe);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for a promise at most `ms`, without leaving a timer behind when it settles first. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * The durable, distributed engine (docs/workflows.md).
 *
 * - Executions are handed out through MongoDB leases (`lease_owner`, `lease_until`). A replica that
 *   creates an execution owns it from the insert and runs it at once, in process; the poller only
 *   picks up executions whose lease expired (a crashed replica's) or that were queued because this
 *   replica was at capacity.
 * - Leases of all running executions are renewed with one write per interval. Every progress write
 *   is conditional on still holding the lease and the execution still running, so a cancelled or
 *   taken-over execution stops at its next write, or sooner when the renewal notices.
 * - Progress is written after each node with side effects or a wait (and a marker before it);
 *   pure nodes (webhook, transform, condition) are batched into the next write, since repeating them
 *   after a crash yields the same result. A webhook -> transform run is one insert and one update.
 */
export class ExecutionEngine {
  readonly owner = randomUUID();
  private readonly runs = new Map<string, Run>();
  private renewTimer?: NodeJS.Timeout;
  private pollTimer?: NodeJS.Timeout;
  private polling = false;
  private stopped = false;
  /** Set when an execution was queued for lack of a slot, so a freed slot looks for it at once. */
  private backlog = false;

  constructor(private readonly deps: EngineDeps) {}

  get activeCount(): number {
    return this.runs.size;
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
    await this.deps.executions.releaseLeases(this.owner, left).catch(() => undefined);
  }

  /**
   * Stores a new execution and runs it here when a slot is free; otherwise it waits (status
   * running, no owner) for the poller of whichever replica has room first.
   *
   * With `runFirst`, a graph of pure nodes only (webhook, transform, condition: no side effects,
   * no waits, at most a CEL budget of work each) is run before anything is stored, and the execution is stored
   * once, finished, with its events: a crash before that write loses nothing the caller was told
   * about, and the run costs one write instead of an insert, an update and a lease. Callers that
   * must answer with a running execution (async execute) leave it off.
   * Answers the execution as it stands when the call returns.
   */
  async submit(execution: Execution, options: { runFirst?: boolean } = {}): Promise<Execution> {
    if (options.runFirst && execution.graph.nodes.every(isPure)) {
      const run: Run = { execution, controller: new AbortController(), done: Promise.resolve() };
      await new RunState(run, this.deps, this.owner, { stored: false }).drive();
      return execution;
    }
    const now = Date.now();
    const runHere = !this.stopped && this.runs.size < this.deps.options.maxConcurrent;
    execution.lease_owner = runHere ? this.owner : null;
    execution.lease_until = new Date(runHere ? now + this.deps.options.leaseMs : 0);
    await this.deps.executions.insert(execution);
    if (runHere) this.launch(execution);
    else this.backlog = true;
    return execution;
  }

  /** Aborts an execution's in-flight work when this replica runs it (after it was cancelled). */
  abandon(executionId: string): void {
    this.runs.get(executionId)?.controller.abort(new Abandoned('cancelled'));
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
      const local = this.runs.get(executionId);
      if (local) {
        const remaining = deadline - Date.now();
        if (remaining > 0) await within(local.done, remaining);
      }
      const execution = await this.deps.executions.get(tenantId, workflowId, executionId);
      const remaining = deadline - Date.now();
      if (!execution || isFinished(execution.status) || remaining <= 0) return execution;
      if (!this.runs.has(executionId)) {
        await sleep(Math.min(interval, remaining));
        interval = Math.min(interval * 2, 500);
      }
    }
  }

  private launch(execution: Execution): void {
    const controller = new AbortController();
    const run: Run = { execution, controller, done: Promise.resolve() };
    this.runs.set(execution.id, run);
    run.done = this.drive(run)
      .catch((error) => {
        if (!(error instanceof Abandoned) && !controller.signal.aborted) {
          this.deps.logger.error({ err: error, execution_id: execution.id }, 'execution run failed unexpectedly');
        }
      })
      .finally(() => {
        this.runs.delete(execution.id);
        if (this.backlog && !this.stopped) this.schedulePoll(0);
      });
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
      while (!this.stopped && this.runs.size < this.deps.options.maxConcurrent) {
        const now = new Date();
        const claimed = await this.deps.executions.claimExpired(
          this.owner,
          now,
          new Date(now.getTime() + this.deps.options.leaseMs),
        );
        if (!claimed) break;
        const { claims, ...execution } = claimed;
        this.deps.logger.info(
          { execution_id: execution.id, claims, in_flight: execution.in_flight?.node_id },
          'took over execution',
        );
        if (claims > MAX_CLAIMS) {
          await this.finishInterrupted(execution, `execution was interrupted ${claims - 1} times; giving up`);
          continue;
        }
        this.launch(execution);
      }
      if (this.runs.size >= this.deps.options.maxConcurrent) this.backlog = true;
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
      const owned = await this.deps.executions.renewLeases(
        this.owner,
        ids,
        new Date(Date.now() + this.deps.options.leaseMs),
      );
      for (const id of ids) {
        if (!owned.has(id)) this.runs.get(id)?.controller.abort(new Abandoned('lease lost'));
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'lease renewal failed');
    }
  }

  private async finishInterrupted(execution: Execution, reason: string): Promise<void> {
    const run: Run = { execution, controller: new AbortController(), done: Promise.resolve() };
    await new RunState(run, this.deps, this.owner).finish('failed', {
      error: reason,
      failed_node_id: execution.in_flight?.node_id,
    });
  }

  private async drive(run: Run): Promise<void> {
    await new RunState(run, this.deps, this.owner).drive();
  }
}

/** The state of one run while it executes its nodes. */
class RunState {
  private readonly execution: Execution;
  private readonly plan: Plan;
  private readonly results = new Map<string, NodeExecution>();
  private readonly outputs = new Map<string, JsonObject>();
  /** Node ids in the order they finished (the latest completed predecessor feeds a join). */
  private readonly finished: string[] = [];
  private readonly dataMemo = new Map<string, JsonObject>();
  private startedEventPending: boolean;
  /** False while a run-first execution exists only in memory: its one write is an insert. */
  private stored: boolean;

  constructor(
    private readonly run: Run,
    private readonly deps: EngineDeps,
    private readonly owner: string,
    options: { stored: boolean } = { stored: true },
  ) {
    this.stored = options.stored;
    this.execution = run.execution;
    this.plan = planGraph(this.execution.graph);
    for (const result of this.execution.node_executions) {
      this.results.set(result.node_id, result);
      this.finished.push(result.node_id);
      if (result.status === 'completed') this.outputs.set(result.node_id, result.output ?? {});
    }
    this.startedEventPending = !this.execution.started_event;
  }

  private get signal(): AbortSignal {
    return this.run.controller.signal;
  }

  /** Runs the execution's remaining nodes, a span around the run and one per node (tracing on). */
  drive(): Promise<void> {
    const execution = this.execution;
    return traced(
      'workflow execution',
      {
        attributes: {
          'agentplatform.workflow.id': execution.workflow_id,
          'agentplatform.execution.id': execution.id,
          'agentplatform.tenant.id': execution.tenant_id,
        },
      },
      () => this.driveNodes(),
    );
  }

  private async driveNodes(): Promise<void> {
    const execution = this.execution;
    for (const node of this.plan.order) {
      if (this.results.has(node.id)) continue;
      if (this.signal.aborted) throw new Abandoned('aborted');
      if (Date.now() >= execution.deadline_at.getTime()) {
        return this.finish('failed', { error: this.durationExceeded(), failed_node_id: node.id });
      }
      const predecessors = this.plan.predecessors.get(node.id) ?? [];
      const active = predecessors.filter((p) => this.takesBranch(p, node.id));
      if (predecessors.length > 0 && active.length === 0) {
        this.record({ node_id: node.id, status: 'skipped', duration_ms: 0, attempts: 0 });
        continue;
      }
      const interrupted = execution.in_flight?.node_id === node.id ? execution.in_flight : undefined;
      if (interrupted && !isSafeToRepeat(node)) {
        this.record({
          node_id: node.id,
          status: 'failed',
          started_at: interrupted.started_at,
          duration_ms: 0,
          attempts: 1,
          error: 'interrupted by a service restart; not safe to repeat',
        });
        return this.finish('failed', {
          error: `node '${node.id}' was interrupted by a service restart and is not safe to repeat`,
          failed_node_id: node.id,
        });
      }
      const previous = this.inputFor(active);
      const pure = isPure(node);
      const startedAt = interrupted?.started_at ?? new Date();
      if (!pure) await this.save({ in_flight: { node_id: node.id, started_at: startedAt } });

      const result = await traced(
        `workflow node ${node.type}`,
        { attributes: { 'agentplatform.node.id': node.id, 'agentplatform.node.type': node.type } },
        async (span) => {
          const outcome = await this.attempt(node, previous, startedAt, interrupted?.started_at);
          span?.setAttribute('agentplatform.node.attempts', outcome.attempts);
          if (outcome.status === 'failed') failSpan(span, new Error(outcome.error ?? 'failed'));
          return outcome;
        },
      );
      this.record(result);
      if (result.status === 'failed') {
        return this.finish('failed', {
          error: `node '${node.id}' failed: ${result.error ?? 'unknown error'}`,
          failed_node_id: node.id,
        });
      }
      if (!pure) await this.save({}, ['in_flight']);
    }
    const last = [...this.finished].reverse().find((id) => this.results.get(id)?.status === 'completed');
    await this.finish('completed', { output: last ? (this.outputs.get(last) ?? {}) : {} });
  }

  private durationExceeded(): string {
    const ms = this.execution.deadline_at.getTime() - this.execution.started_at.getTime();
    return `execution exceeded its maximum duration of ${ms} ms`;
  }

  /** Whether a finished predecessor leads to `target` (a condition only to the branch it chose). */
  private takesBranch(predecessor: string, target: string): boolean {
    const result = this.results.get(predecessor);
    if (result?.status !== 'completed') return false;
    if (this.plan.byId.get(predecessor)?.type !== 'condition') return true;
    return result.output?.goto === target;
  }

  /**
   * The data a node works on: the execution's input for a start node, else the output of its
   * latest finished active predecessor. A condition passes its own input through to its branch.
   */
  private inputFor(active: string[]): JsonObject {
    if (active.length === 0) return this.execution.input;
    const latest = active.reduce((a, b) => (this.finished.indexOf(a) > this.finished.indexOf(b) ? a : b));
    return this.dataOf(latest);
  }

  private dataOf(nodeId: string): JsonObject {
    const node = this.plan.byId.get(nodeId)!;
    if (node.type !== 'condition') return this.outputs.get(nodeId) ?? {};
    const memo = this.dataMemo.get(nodeId);
    if (memo) return memo;
    const active = (this.plan.predecessors.get(nodeId) ?? []).filter((p) => this.takesBranch(p, nodeId));
    const data = this.inputFor(active);
    this.dataMemo.set(nodeId, data);
    return data;
  }

  private record(result: NodeExecution): void {
    this.results.set(result.node_id, result);
    this.finished.push(result.node_id);
    if (result.status === 'completed') this.outputs.set(result.node_id, result.output ?? {});
  }

  private options(node: WorkflowNode): { retry: RetryPolicy; timeoutMs: number } {
    const configRetry = node.config.retry as unknown as RetryPolicy | undefined;
    const retry = node.retry ?? configRetry ?? { max_attempts: 1, backoff_ms: 0 };
    const configured = node.timeout_ms ?? (node.config.timeout_ms as number | undefined);
    const fallback = this.deps.options.defaultNodeTimeoutMs;
    // A workflow or foreach node waits for its children: by default as long as the execution may run.
    const byType = CHILD_NODE_TYPES.includes(node.type)
      ? Number.POSITIVE_INFINITY
      : node.type === 'delay'
        ? Number(node.config.ms ?? 0) + fallback
        : fallback;
    const timeoutMs = configured ?? byType;
    return { retry: { max_attempts: retry.max_attempts ?? 1, backoff_ms: retry.backoff_ms ?? 0 }, timeoutMs };
  }

  /** Runs a node with its timeout and retries (exponential backoff from backoff_ms). */
  private async attempt(
    node: WorkflowNode,
    previous: JsonObject,
    startedAt: Date,
    resumedFrom?: Date,
  ): Promise<NodeExecution> {
    const { retry, timeoutMs } = this.options(node);
    const scope = { input: this.execution.input, nodes: Object.fromEntries(this.outputs), previous };
    let lastError: NodeError | undefined;
    let attempts = 0;
    for (let attempt = 1; attempt <= retry.max_attempts; attempt++) {
      attempts = attempt;
      const remaining = this.execution.deadline_at.getTime() - Date.now();
      if (remaining <= 0) {
        lastError = new NodeError(this.durationExceeded(), false);
        break;
      }
      const limit = Math.min(timeoutMs, remaining);
      // Every node is bounded, pure ones too: their CEL runs off the event loop (expression-sandbox.ts).
      // A pure node whose expressions are all under the static bound runs synchronously in
      // microseconds (node-runners.ts): it needs no timer.
      const timeout = staticallyBounded(node) ? undefined : new AbortController();
      const timer = timeout && setTimeout(() => timeout.abort(new NodeTimeout()), limit);
      try {
        const output = await runNode(
          {
            tenantId: this.execution.tenant_id,
            execution: { id: this.execution.id, depth: this.execution.depth ?? 0 },
            attempt,
            node,
            scope,
            signal: timeout ? AbortSignal.any([this.signal, timeout.signal]) : this.signal,
            timeoutMs: limit,
            resumedFrom: attempt === 1 ? resumedFrom : undefined,
          },
          this.deps.runners,
        );
        return {
          node_id: node.id,
          status: 'completed',
          started_at: startedAt,
          duration_ms: Date.now() - startedAt.getTime(),
          output,
          attempts,
        };
      } catch (error) {
        if (this.signal.aborted) throw new Abandoned('aborted');
        if (timeout?.signal.aborted) {
          lastError = new NodeError(
            limit < timeoutMs ? this.durationExceeded() : `timed out after ${limit} ms`,
            limit >= timeoutMs,
          );
        } else if (error instanceof NodeError) {
          lastError = error;
        } else {
          this.deps.logger.error(
            { err: error, execution_id: this.execution.id, node_id: node.id },
            'node failed unexpectedly',
          );
          lastError = new NodeError(error instanceof Error ? error.message : String(error), false);
        }
      } finally {
        clearTimeout(timer);
      }
      if (!lastError.retryable || attempt === retry.max_attempts) break;
      await this.backoff(retry.backoff_ms * 2 ** (attempt - 1));
    }
    return {
      node_id: node.id,
      status: 'failed',
      started_at: startedAt,
      duration_ms: Date.now() - startedAt.getTime(),
      ...(lastError?.output ? { output: lastError.output } : {}),
      error: lastError?.message ?? 'failed',
      attempts,
    };
  }

  private backoff(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(new Abandoned('aborted'));
      };
      const timer = setTimeout(() => {
        this.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private startedEvent(): EventEnvelope {
    return createEvent('workflow.execution.started', this.execution.tenant_id, {
      workflow_id: this.execution.workflow_id,
      execution_id: this.execution.id,
      trigger: this.execution.trigger,
      ...lineage(this.execution),
    });
  }

  /** Writes progress (with the started event the first time); abandons the run when it is no longer ours. */
  private async save(changes: ExecutionChanges, unset: Array<'in_flight'> = []): Promise<void> {
    const events = this.startedEventPending ? [this.startedEvent()] : [];
    const ok = await this.write(
      { ...changes, node_executions: [...this.results.values()], started_event: true },
      unset,
      events,
    );
    if (!ok) throw new Abandoned('execution is no longer ours');
    this.startedEventPending = false;
  }

  private async write(changes: ExecutionChanges, unset: Array<'in_flight'>, events: EventEnvelope[]): Promise<boolean> {
    const ok = await this.deps.outbox.run(async (session) => {
      const written = this.stored
        ? await this.deps.executions.save(this.execution, this.owner, changes, unset, session)
        : await this.insertFinished(changes, session);
      return { result: written, events: written ? events : [] };
    });
    if (ok) {
      Object.assign(this.execution, changes);
      for (const key of unset) delete this.execution[key];
    }
    return ok;
  }

  /** The single write of a run-first execution: the whole finished document. */
  private async insertFinished(changes: ExecutionChanges, session?: ClientSession): Promise<boolean> {
    const { in_flight: _inFlight, ...execution } = this.execution;
    await this.deps.executions.insert(
      { ...execution, ...changes, lease_owner: null, lease_until: new Date(0) },
      session,
    );
    this.stored = true;
    return true;
  }

  /** The last write: status, results, output, the end events; the lease is given up. */
  async finish(
    status: Extract<ExecutionStatus, 'completed' | 'failed'>,
    end: { output?: JsonObject; error?: string; failed_node_id?: string },
  ): Promise<void> {
    const completedAt = new Date();
    const durationMs = Math.max(0, completedAt.getTime() - this.execution.started_at.getTime());
    const events: EventEnvelope[] = this.startedEventPending ? [this.startedEvent()] : [];
    const base = {
      workflow_id: this.execution.workflow_id,
      execution_id: this.execution.id,
      trigger: this.execution.trigger,
      duration_ms: durationMs,
      ...lineage(this.execution),
    };
    const output = end.output ?? this.lastOutput();
    events.push(
      status === 'completed'
        ? createEvent('workflow.execution.completed', this.execution.tenant_id, { ...base, output })
        : createEvent('workflow.execution.failed', this.execution.tenant_id, {
            ...base,
            error: end.error ?? 'failed',
            ...(end.failed_node_id ? { failed_node_id: end.failed_node_id } : {}),
          }),
    );
    const changes: ExecutionChanges = {
      status,
      node_executions: [...this.results.values()],
      output,
      completed_at: completedAt,
      duration_ms: durationMs,
      started_event: true,
      lease_owner: null,
    };
    if (end.error) changes.error = end.error;
    if (end.failed_node_id) changes.failed_node_id = end.failed_node_id;
    const ok = await this.write(changes, ['in_flight'], events);
    if (!ok) throw new Abandoned('execution is no longer ours');
  }

  private lastOutput(): JsonObject {
    const last = [...this.finished].reverse().find((id) => this.results.get(id)?.status === 'completed');
    return last ? (this.outputs.get(last) ?? {}) : {};
  }
}
