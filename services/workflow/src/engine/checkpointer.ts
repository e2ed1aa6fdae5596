import { EVENT_OUTPUT_MAX_BYTES, createEvent, type EventEnvelope } from '@agentplatform/events/catalogue';
import type { ClientSession } from 'mongoose';
import type { Execution, ExecutionStatus, InFlightNode, NodeExecution } from '../domain/execution.types.js';
import { lineage } from '../domain/execution.types.js';
import type { JsonObject } from '../domain/workflow.types.js';
import type { ExecutionChanges } from '../persistence/execution.repository.js';
import { NO_LEASE } from '../domain/lease.js';
import type { CheckpointStore, EventOutbox } from './ports.js';
import { Abandoned } from './run.js';

/** How a run ends: its output, or the error and the node that failed. */
export interface RunEnd {
  status: Extract<ExecutionStatus, 'completed' | 'failed'>;
  output: JsonObject;
  error?: string;
  failedNodeId?: string;
}

/**
 * A run's writes, each with its events in one outbox transaction, each conditional on this
 * replica (`owner`) still holding the lease of a running execution: a write that no longer
 * applies ends the run (Abandoned) without writing anything else.
 *
 * - `progress` after a node with side effects or a wait, and a marker (`inFlight`) before it;
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
    this.startedEventPending = !execution.startedEvent;
  }

  /** Writes the results so far (with the started event the first time). */
  async progress(results: NodeExecution[], inFlight: InFlightNode | 'clear'): Promise<void> {
    const events = this.startedEventPending ? [this.startedEvent()] : [];
    const changes: ExecutionChanges = { nodeExecutions: results, startedEvent: true };
    if (inFlight !== 'clear') changes.inFlight = inFlight;
    await this.write(changes, { clearInFlight: inFlight === 'clear' }, events);
    this.startedEventPending = false;
  }

  /** The last write: status, results, output, the end events; the lease is given up. */
  async finish(results: NodeExecution[], end: RunEnd): Promise<void> {
    const completedAt = new Date();
    const durationMs = Math.max(0, completedAt.getTime() - this.execution.startedAt.getTime());
    const events: EventEnvelope[] = this.startedEventPending ? [this.startedEvent()] : [];
    const base = {
      workflow_id: this.execution.workflowId,
      execution_id: this.execution.id,
      trigger: this.execution.trigger,
      duration_ms: durationMs,
      ...lineage(this.execution),
    };
    events.push(
      end.status === 'completed'
        ? createEvent('workflow.execution.completed', this.execution.tenantId, {
            ...base,
            ...this.eventOutput(end.output),
          })
        : createEvent('workflow.execution.failed', this.execution.tenantId, {
            ...base,
            error: end.error ?? 'failed',
            ...(end.failedNodeId ? { failed_node_id: end.failedNodeId } : {}),
          }),
    );
    const changes: ExecutionChanges = {
      status: end.status,
      nodeExecutions: results,
      output: end.output,
      completedAt,
      durationMs,
      startedEvent: true,
    };
    if (end.error) changes.error = end.error;
    if (end.failedNodeId) changes.failedNodeId = end.failedNodeId;
    await this.write(changes, { clearInFlight: true, releaseLease: true }, events);
  }

  /**
   * The output as the completed event carries it: whole up to EVENT_OUTPUT_MAX_BYTES, else left out
   * (`output_truncated`); the execution's URL has it whole either way (docs/design.md section 7).
   */
  private eventOutput(output: JsonObject): { output?: JsonObject; output_truncated: boolean; execution_url: string } {
    const execution_url = `/api/v1/workflows/${this.execution.workflowId}/executions/${this.execution.id}`;
    if (Buffer.byteLength(JSON.stringify(output)) > EVENT_OUTPUT_MAX_BYTES) {
      return { output_truncated: true, execution_url };
    }
    return { output, output_truncated: false, execution_url };
  }

  private startedEvent(): EventEnvelope {
    return createEvent('workflow.execution.started', this.execution.tenantId, {
      workflow_id: this.execution.workflowId,
      execution_id: this.execution.id,
      trigger: this.execution.trigger,
      ...lineage(this.execution),
    });
  }

  private async write(
    changes: ExecutionChanges,
    options: { clearInFlight: boolean; releaseLease?: boolean },
    events: EventEnvelope[],
  ): Promise<void> {
    const ok = await this.deps.outbox.run(async (session) => {
      const written = this.stored
        ? await this.deps.store.save(this.execution, this.deps.owner, changes, options, session)
        : await this.insertFinished(changes, session);
      return { result: written, events: written ? events : [] };
    });
    if (!ok) throw new Abandoned('execution is no longer ours');
    Object.assign(this.execution, changes);
    if (options.clearInFlight) delete this.execution.inFlight;
  }

  /** The single write of a run-first execution: the whole finished document. */
  private async insertFinished(changes: ExecutionChanges, session?: ClientSession): Promise<boolean> {
    const { inFlight: _inFlight, ...execution } = this.execution;
    await this.deps.store.insert({ ...execution, ...changes }, NO_LEASE, session);
    this.stored = true;
    return true;
  }
}
