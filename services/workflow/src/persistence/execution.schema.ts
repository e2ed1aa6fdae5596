import { Schema, type Connection, type Model } from 'mongoose';
import type { ExecutionStatus, ExecutionTrigger, NodeStatus } from '../domain/execution.types.js';
import type { JsonObject, WorkflowEdge, WorkflowNode } from '../domain/workflow.types.js';

/** A node's result as stored (execution.repository.ts maps it to the domain's NodeExecution). */
export interface NodeExecutionDocument {
  node_id: string;
  status: NodeStatus;
  started_at?: Date;
  duration_ms: number;
  output?: JsonObject;
  error?: string;
  attempts: number;
}

/** An execution as stored: the domain's fields in snake_case, and the engine's lease. */
export interface ExecutionDocument {
  _id: string;
  tenant_id: string;
  workflow_id: string;
  status: ExecutionStatus;
  trigger: ExecutionTrigger;
  input: JsonObject;
  /** Missing on executions stored before versions. */
  workflow_version?: number;
  parent_execution_id?: string;
  parent_node_id?: string;
  depth?: number;
  retry_of?: string;
  graph: { nodes: WorkflowNode[]; edges: WorkflowEdge[] };
  /** The data key that opens every header value of the graph, as on workflows (workflow.schema.ts). */
  secret_key_id?: string;
  node_executions?: NodeExecutionDocument[];
  in_flight?: { node_id: string; started_at: Date };
  output?: JsonObject;
  error?: string;
  failed_node_id?: string;
  started_at: Date;
  completed_at?: Date;
  duration_ms?: number;
  deadline_at: Date;
  started_event: boolean;
  /** The replica that runs the execution; null while none does (queued, finished, handed back). */
  lease_owner?: string | null;
  /** When the lease ends unless renewed (epoch: free for any replica at once). */
  lease_until: Date;
  /** How often a replica took the execution over after its lease expired. */
  claims: number;
  /**
   * Set by older releases while the run's credit was not settled: moved to a credit_due entry at
   * start (credit-due.repository.ts).
   */
  credit_pending?: boolean;
}

// Typed loosely: the nested JSON fields make mongoose's type inference recurse without end.
const executionSchema = new Schema(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    workflow_id: { type: String, required: true },
    status: { type: String, required: true },
    trigger: { type: String, required: true },
    input: { type: Schema.Types.Mixed, default: {} },
    graph: { type: Schema.Types.Mixed, required: true },
    secret_key_id: String,
    workflow_version: Number,
    parent_execution_id: String,
    parent_node_id: String,
    depth: Number,
    retry_of: String,
    node_executions: { type: Schema.Types.Mixed, default: [] },
    in_flight: Schema.Types.Mixed,
    output: Schema.Types.Mixed,
    error: String,
    failed_node_id: String,
    started_at: { type: Date, required: true },
    completed_at: Date,
    duration_ms: Number,
    deadline_at: { type: Date, required: true },
    started_event: { type: Boolean, default: false },
    lease_owner: String,
    lease_until: { type: Date, required: true },
    claims: { type: Number, default: 0 },
    credit_pending: Boolean,
  },
  { collection: 'executions', versionKey: false, minimize: false },
);
// The engine's conditional writes filter on exactly {_id, lease_owner}. A unique index with exactly
// those keys is redundant for MongoDB (the _id index already finds the document) but lets the local
// stand-in, whose planner only uses an index whose keys equal the query's, avoid a collection scan.
executionSchema.index({ _id: 1, lease_owner: 1 }, { unique: true });
// History, newest first (the ids are time-sortable too).
executionSchema.index({ tenant_id: 1, workflow_id: 1, started_at: -1 });
// A tenant's executions in flight (the admission check of a manual execute).
executionSchema.index({ tenant_id: 1, status: 1 });
// The lease takeover's compare-and-set, on exactly these keys (execution-lease.repository.ts): an
// index lookup on the stand-in too. It finds its candidates in execution_due, not here.
executionSchema.index({ _id: 1, status: 1, lease_until: 1 }, { unique: true });
// The children of a parent (cancel cascade); only child runs have the field.
executionSchema.index({ parent_execution_id: 1 }, { sparse: true });
// Retention pruning.
executionSchema.index({ completed_at: 1 });
// Re-sealing after a key rotation: the executions whose header values are under a retired key.
executionSchema.index({ secret_key_id: 1 }, { sparse: true });

export function executionModel(connection: Connection): Model<ExecutionDocument> {
  return (
    (connection.models.Execution as Model<ExecutionDocument>) ??
    connection.model<ExecutionDocument>('Execution', executionSchema)
  );
}
