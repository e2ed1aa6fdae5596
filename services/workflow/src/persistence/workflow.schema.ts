import { Schema, type Connection, type Model } from 'mongoose';
import type { WorkflowEdge, WorkflowNode, WorkflowStatus } from '../domain/workflow.types.js';

/** A workflow as stored (workflow.repository.ts maps it to the domain's Workflow). */
export interface WorkflowDocument {
  _id: string;
  tenant_id: string;
  /** Missing on workflows stored before hook ids until WorkflowRepository.migrateHookIds. */
  hook_id: string;
  name: string;
  description?: string;
  status: WorkflowStatus;
  /** Missing on workflows stored before versions. */
  version?: number;
  nodes?: WorkflowNode[];
  edges?: WorkflowEdge[];
  next_run_at?: Date | null;
  /**
   * The data key that opens every header value of the nodes (domain/sealed-headers.ts): `''` when
   * some are in plaintext (older releases) or under different keys; absent without header values.
   * Re-sealing on start rewrites every workflow whose key is not the current one.
   */
  secret_key_id?: string;
  created_at: Date;
  updated_at: Date;
}

const workflowSchema = new Schema<WorkflowDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    hook_id: { type: String },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    status: { type: String, required: true },
    version: { type: Number },
    nodes: { type: Schema.Types.Mixed, default: [] },
    edges: { type: Schema.Types.Mixed, default: [] },
    next_run_at: { type: Date, default: null },
    secret_key_id: { type: String },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'workflows', versionKey: false, minimize: false },
);
workflowSchema.index({ tenant_id: 1, created_at: -1, _id: -1 });
// Sparse: workflows stored before hook ids have none until WorkflowRepository.migrateHookIds.
workflowSchema.index({ hook_id: 1 }, { unique: true, sparse: true });
// The scheduler's poll (due workflows, oldest tick first; null for every unscheduled workflow) and
// its conditional advance, which filters on exactly {_id, next_run_at}. Unique (it cannot conflict:
// _id is unique) because the local stand-in keeps only unique indexes and uses one only when its
// keys equal the query's: without it every advance scanned all workflows, 13 ms each at 10,000
// (docs/performance.md, "Schedules at 10,000"). MongoDB serves the poll's range and sort from it.
workflowSchema.index({ next_run_at: 1, _id: 1 }, { unique: true });
// Updates, pause and resume write while the workflow is at the status and version they read, a
// filter on exactly these keys: redundant for MongoDB (the _id finds the document), an index lookup
// instead of a scan of every workflow on the stand-in (each update of the benchmark's seeding).
workflowSchema.index({ _id: 1, tenant_id: 1, status: 1, version: 1 }, { unique: true });

export function workflowModel(connection: Connection): Model<WorkflowDocument> {
  return (connection.models.Workflow as Model<WorkflowDocument>) ?? connection.model('Workflow', workflowSchema);
}
