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
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'workflows', versionKey: false, minimize: false },
);
workflowSchema.index({ tenant_id: 1, created_at: -1, _id: -1 });
// Sparse: workflows stored before hook ids have none until WorkflowRepository.migrateHookIds.
workflowSchema.index({ hook_id: 1 }, { unique: true, sparse: true });

export function workflowModel(connection: Connection): Model<WorkflowDocument> {
  return (connection.models.Workflow as Model<WorkflowDocument>) ?? connection.model('Workflow', workflowSchema);
}
