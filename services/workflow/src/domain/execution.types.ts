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
