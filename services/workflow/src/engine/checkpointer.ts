import { createEvent, type EventEnvelope } from '@agentplatform/events';
import type { ClientSession } from 'mongoose';
import type { Execution, ExecutionStatus, NodeExecution } from '../domain/execution.types.js';
import { lineage } from '../domain/execution.types.js';
import type { JsonObject } from '../domain/workflow.types.js';
import type { ExecutionChanges } from '../persistence/execution.repository.js';
import type { CheckpointStore, EventOutbox } from './ports.js';
import { Abandoned } from './run.js';

/** How a run ends: its output, or the error and the node that failed. */
export interface RunEnd {
  status: Extract<ExecutionStatus, 'completed' | 'failed'>;
  output: JsonObject;
  error?: string;
  failed_node_id?: string;
}

/**
 * A run's writes, each with its events in one outbox transaction, each conditional on this
 * replica (`owner`) still holding the lease of a running execution: a write that no longer
 * applies ends the run (Abandoned) without writing anything else.
 *
 * - `progress` after a node with side effects or a wait, and a marker (`in_flight`) before it;
 *   the first write carries workflow.execution.started.
 * - `finish` last: status, results, output, the end events; the lease is given up.
 * - A run-first execution (`stored: false`) exists only in memory until it finishes: its one
 *   write is the insert of the whole finished document.
 *
 * Each write that applies is copied onto `execution`, which then reads as stored.
 */
export class Checkpointer {
  private startedEventPending: boolean;
  private stored: boolean;

  constructor(
    private readonly execution: Execution,
    private readonly deps: { store: CheckpointStore; outbox: EventOutbox; owner: string },
    options: { stored: boolean } = { stored: true },
  ) {
    this.stored = options.stored;
    this.startedEventPending = !execution.started_event;
  }

  /** Writes the results so far (with the started event the first time). */
  async progress(
    results: NodeExecution[],
    changes: Pick<ExecutionChanges, 'in_flight'> = {},
    unset: Array<'in_flight'> = [],
  ): Promise<void> {
    const events = this.startedEventPending ? [this.startedEvent()] : [];
    await this.write({ ...changes, node_executions: results, started_event: true }, unset, events);
    this.startedEventPending = false;
  }

  /** The last write: status, results, output, the end events; the lease is given up. */
  async finish(results: NodeExecution[], end: RunEnd): Promise<void> {
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
    events.push(
      end.status === 'completed'
        ? createEvent('workflow.execution.completed', this.execution.tenant_id, { ...base, output: end.output })
        : createEvent('workflow.execution.failed', this.execution.tenant_id, {
            ...base,
            error: end.error ?? 'failed',
            ...(end.failed_node_id ? { failed_node_id: end.failed_node_id } : {}),
          }),
    );
    const changes: ExecutionChanges = {
      status: end.status,
      node_executions: results,
      output: end.output,
      completed_at: completedAt,
      duration_ms: durationMs,
      started_event: true,
      lease_owner: null,
    };
    if (end.error) changes.error = end.error;
    if (end.failed_node_id) changes.failed_node_id = end.failed_node_id;
    await this.write(changes, ['in_flight'], events);
  }

  private startedEvent(): EventEnvelope {
    return createEvent('workflow.execution.started', this.execution.tenant_id, {
      workflow_id: this.execution.workflow_id,
      execution_id: this.execution.id,
      trigger: this.execution.trigger,
      ...lineage(this.execution),
    });
  }

  private async write(changes: ExecutionChanges, unset: Array<'in_flight'>, events: EventEnvelope[]): Promise<void> {
    const ok = await this.deps.outbox.run(async (session) => {
      const written = this.stored
        ? await this.deps.store.save(this.execution, this.deps.owner, changes, unset, session)
        : await this.insertFinished(changes, session);
      return { result: written, events: written ? events : [] };
    });
    if (!ok) throw new Abandoned('execution is no longer ours');
    Object.assign(this.execution, changes);
    for (const key of unset) delete this.execution[key];
  }

  /** The single write of a run-first execution: the whole finished document. */
  private async insertFinished(changes: ExecutionChanges, session?: ClientSession): Promise<boolean> {
    const { in_flight: _inFlight, ...execution } = this.execution;
    await this.deps.store.insert({ ...execution, ...changes, lease_owner: null, lease_until: new Date(0) }, session);
    this.stored = true;
    return true;
  }
}
