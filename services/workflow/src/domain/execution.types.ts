import type { JsonObject, WorkflowEdge, WorkflowNode } from './workflow.types.js';

export const EXECUTION_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
export type NodeStatus = 'completed' | 'failed' | 'skipped';
export type ExecutionTrigger = 'manual' | 'webhook' | 'schedule';

export interface NodeExecution {
  node_id: string;
  status: NodeStatus;
  started_at?: Date;
  duration_ms: number;
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
  node_id: string;
  started_at: Date;
}

export interface Execution {
  id: string;
  tenant_id: string;
  workflow_id: string;
  status: ExecutionStatus;
  trigger: ExecutionTrigger;
  input: JsonObject;
  /** The workflow's version whose graph this execution runs (1 for executions stored before versions). */
  workflow_version: number;
  /** Set on a child run of a workflow or foreach node: the execution and node that started it. */
  parent_execution_id?: string;
  parent_node_id?: string;
  /** How deep in a composition this run is: 0 for a top-level run, its parent's depth + 1 for a child. */
  depth?: number;
  /** The failed or cancelled execution this one retries (it reuses that one's completed nodes). */
  retry_of?: string;
  /** The graph as it was when the execution started: later edits never change a running execution. */
  graph: { nodes: WorkflowNode[]; edges: WorkflowEdge[] };
  node_executions: NodeExecution[];
  in_flight?: InFlightNode;
  output?: JsonObject;
  error?: string;
  failed_node_id?: string;
  started_at: Date;
  completed_at?: Date;
  duration_ms?: number;
  /** The run must end by then (EXECUTION_MAX_DURATION_MS after the start). */
  deadline_at: Date;
  /** Whether workflow.execution.started is in the outbox already (it rides on the first write after the insert). */
  started_event: boolean;
  lease_owner?: string | null;
  lease_until?: Date;
}

export function isFinished(status: ExecutionStatus): boolean {
  return status !== 'running';
}

/** What the execution events say of where a run comes from: the run it retries, the run that started it. */
export function lineage(execution: Pick<Execution, 'retry_of' | 'parent_execution_id'>): {
  retry_of?: string;
  parent_execution_id?: string;
} {
  return {
    ...(execution.retry_of ? { retry_of: execution.retry_of } : {}),
    ...(execution.parent_execution_id ? { parent_execution_id: execution.parent_execution_id } : {}),
  };
}
