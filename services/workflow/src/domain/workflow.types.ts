/** JSON as stored and exchanged: what a node config, an input or an output may hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const WORKFLOW_STATUSES = ['draft', 'active', 'paused'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

/** Node types that start a workflow: at most one per workflow, with no incoming edge. */
export const TRIGGER_NODE_TYPES: readonly string[] = ['webhook', 'schedule'];

export interface RetryPolicy {
  max_attempts: number;
  backoff_ms: number;
}

export interface WorkflowNode {
  id: string;
  type: string;
  config: JsonObject;
  retry?: RetryPolicy;
  timeout_ms?: number;
}

export interface WorkflowEdge {
  source: string;
  target: string;
}

export interface WorkflowGraph {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

export interface Workflow extends WorkflowGraph {
  id: string;
  tenantId: string;
  /** The secret that addresses the workflow's inbound hook (domain/hook-id.ts). */
  hookId: string;
  name: string;
  description: string;
  status: WorkflowStatus;
  /** The next schedule tick while the workflow is active and has a schedule node; null otherwise. */
  nextRunAt?: Date | null;
  /** Bumped by every change of nodes, edges, name or description; 1 on create (and for older workflows). */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What an update may change. */
export type WorkflowChanges = Partial<
  Pick<Workflow, 'name' | 'description' | 'nodes' | 'edges' | 'status' | 'nextRunAt' | 'version'>
> & { updatedAt: Date };

export interface WorkflowStatistics {
  totalRuns: number;
  successRate: number;
  avgDurationMs: number;
}

export type TriggerType = 'webhook' | 'manual' | 'schedule';

/** A workflow is hook-triggered when it has a webhook node, scheduled when it has a schedule node. */
export function triggerType(graph: WorkflowGraph): TriggerType {
  if (graph.nodes.some((n) => n.type === 'webhook')) return 'webhook';
  return graph.nodes.some((n) => n.type === 'schedule') ? 'schedule' : 'manual';
}

/** `<hook_id>` plus `/<path>` when the webhook node sets a path: what follows HOOKS_URL. */
export function webhookPath(workflow: Pick<Workflow, 'hookId' | 'nodes'>): string {
  const path = hookPathOf(workflow);
  return path ? `${workflow.hookId}/${path}` : workflow.hookId;
}

/** The webhook node's path without surrounding slashes ("" when none). */
export function hookPathOf(workflow: Pick<Workflow, 'nodes'>): string {
  const trigger = workflow.nodes.find((n) => n.type === 'webhook');
  const path = trigger?.config.path;
  return typeof path === 'string' ? path.replace(/^\/+|\/+$/g, '') : '';
}

/** How a hook answers: at once, or with the output of the finished execution. */
export function hookResponseMode(workflow: Pick<Workflow, 'nodes'>): 'immediate' | 'last_node' {
  const trigger = workflow.nodes.find((n) => n.type === 'webhook');
  return trigger?.config.response_mode === 'last_node' ? 'last_node' : 'immediate';
}

/** The node types that run another workflow of the tenant (composition, docs/workflow-nodes.md). */
export const CHILD_NODE_TYPES: readonly string[] = ['workflow', 'foreach'];
