import { Schema, type Connection, type Model } from 'mongoose';

export interface AgentDocument {
  _id: string;
  tenant_id: string;
  name: string;
  type: string;
  status: string;
  description: string;
  memory_types: string[];
  config: Record<string, unknown>;
  memory_version: number;
  /**
   * The data key ids (DATA_ENCRYPTION_KEY) the sealed tool header values in `config.tools` name;
   * absent on agents stored before header values were bound to their grant's origin.
   */
  tool_key_ids?: string[];
  created_at: Date;
  updated_at: Date;
}

const agentSchema = new Schema<AgentDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    name: { type: String, required: true },
    type: { type: String, required: true },
    status: { type: String, required: true },
    description: { type: String, default: '' },
    memory_types: { type: [String], default: [] },
    config: { type: Schema.Types.Mixed, default: {} },
    memory_version: { type: Number, default: 0 },
    tool_key_ids: { type: [String], default: undefined },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'agents', versionKey: false, minimize: false },
);
agentSchema.index({ tenant_id: 1, _id: -1 });

export function agentModel(connection: Connection): Model<AgentDocument> {
  return (connection.models.Agent as Model<AgentDocument>) ?? connection.model('Agent', agentSchema);
}
