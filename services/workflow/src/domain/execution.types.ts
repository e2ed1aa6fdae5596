import type { JsonObject, WorkflowEdge, WorkflowNode } from './workflow.types.js';

/**
 * `queued`: a hook or schedule run that arrived while its tenant had its plan's executions in
 * flight; stored, and started in arrival order once the tenant has room (engine/held-runs.ts).
 */
export const EXECUTION_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
export type NodeStatus = 'completed' | 'failed' | 'skipped';
export type ExecutionTrigger = 'manual' | 'webhook' | 'schedule';

/**
 * The most output (serialised JSON) a node may produce: a larger one fails the node with
 * `output_too_large` (docs/design.md section 7). The execution's output is its last node's, so it
 * is bounded too; this keeps an execution document, and what a GET answers, a size the database
 * and the API carry well.
 */
export const NODE_OUTPUT_MAX_BYTES = 1024 * 1024;

/** The node error code of an output over NODE_OUTPUT_MAX_BYTES. */
export const OUTPUT_TOO_LARGE = 'output_too_large';

export interface NodeExecution {
  nodeId: string;
  status: NodeStatus;
  startedAt?: Date;
  durationMs: number;
  output?: JsonObject;
  error?: string;
  attempts: number;
}

/**
 * A node that was started and has not finished as far as the database knows. Written before a
 * node with side effects or a long wait starts, so a replica that resumes the execution after a
 * crash knows what was interrupted (and how much of a delay is left).
 */
export interface InFlightNode {
  nodeId: string;
  startedAt: Date;
}

/**
 * One run of a workflow. Who runs it (the lease) is the engine's and the repository's business
 * and not part of the execution.
 */
export interface Execution {
  id: string;
  tenantId: string;
  workflowId: string;
  status: ExecutionStatus;
  trigger: ExecutionTrigger;
  input: JsonObject;
  /** The workflow's version whose graph this execution runs (1 for executions stored before versions). */
  workflowVersion: number;
  /** Set on a child run of a workflow or foreach node: the execution and node that started it. */
  parentExecutionId?: string;
  parentNodeId?: string;
  /** How deep in a composition this run is: 0 for a top-level run, its parent's depth + 1 for a child. */
  depth?: number;
  /** The failed or cancelled execution this one retries (it reuses that one's completed nodes). */
  retryOf?: string;
  /** The graph as it was when the execution started: later edits never change a running execution. */
  graph: { nodes: WorkflowNode[]; edges: WorkflowEdge[] };
  nodeExecutions: NodeExecution[];
  inFlight?: InFlightNode;
  output?: JsonObject;
  error?: string;
  failedNodeId?: string;
  startedAt: Date;
  completedAt?: Date;
  durationMs?: number;
  /** The run must end by then (EXECUTION_MAX_DURATION_MS after the start). */
  deadlineAt: Date;
  /** Whether workflow.execution.started is in the outbox already (it rides on the first write after the insert). */
  startedEvent: boolean;
  /**
   * The run's credit is reserved but not yet settled: stored with the run, so the settle job
   * finds it until identity confirms the settle (a run is never left uncharged).
   */
  creditPending?: boolean;
}

/** What a run's write may change. */
export type ExecutionChanges = Partial<
  Pick<
    Execution,
    | 'status'
    | 'nodeExecutions'
    | 'inFlight'
    | 'output'
    | 'error'
    | 'failedNodeId'
    | 'completedAt'
    | 'durationMs'
    | 'startedEvent'
  >
>;

/** An execution read for re-sealing, with the key id stored beside its snapshot (if any). */
export interface SealedSnapshot {
  execution: Execution;
  keyId: string | undefined;
}

export function isFinished(status: ExecutionStatus): boolean {
  return status !== 'running' && status !== 'queued';
}

/** What the execution events say of where a run comes from: the run it retries, the run that started it. */
export function lineage(execution: Pick<Execution, 'retryOf' | 'parentExecutionId'>): {
  retry_of?: string;
  parent_execution_id?: string;
} {
  return {
    ...(execution.retryOf ? { retry_of: execution.retryOf } : {}),
    ...(execution.parentExecutionId ? { parent_execution_id: execution.parentExecutionId } : {}),
  };
}

/**
 * A queued run's place in its tenant's line (engine/held-runs.ts): kept apart from the executions,
 * so finding the line costs a read of the few runs waiting, not of every execution stored.
 */
export interface HeldRun {
  executionId: string;
  tenantId: string;
  /** When it was queued: arrival order among equals, and the age of an entry whose run is missing. */
  heldAt: Date;
}
