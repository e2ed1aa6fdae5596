import { Schema, type Connection, type Model } from 'mongoose';
import type { Workflow } from '../domain/workflow.types.js';

export type WorkflowDocument = Omit<Workflow, 'id'> & { _id: string };

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
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'workflows', versionKey: false, minimize: false },
);
workflowSchema.index({ tenant_id: 1, created_at: -1, _id: -1 });
// Sparse: workflows stored before hook ids have none until WorkflowRepository.migrateHookIds.
workflowSchema.index({ hook_id: 1 }, { unique: true, sparse: true });
// The scheduler's poll: due workflows, oldest tick first (null for every unscheduled workflow).
workflowSchema.index({ next_run_at: 1 });
// Its conditional advance filters on exactly {_id, next_run_at}: redundant for MongoDB, but the
// local stand-in uses only an index whose keys equal the query's (as executions' {_id, lease_owner}).
workflowSchema.index({ _id: 1, next_run_at: 1 });

export function workflowModel(connection: Connection): Model<WorkflowDocument> {
  return (connection.models.Workflow as Model<WorkflowDocument>) ?? connection.model('Workflow', workflowSchema);
}
