import { Schema, type Connection, type Model } from 'mongoose';

export interface SessionDoc {
  /** The generated id, or `<agent id>/<client's id>` (unique per agent by construction). */
  _id: string;
  /** The id clients use; absent on sessions stored before client-chosen ids (it is `_id` there). */
  key?: string;
  tenant_id: string;
  agent_id: string;
  title: string;
  message_count: number;
  created_at: Date;
  last_message_at: Date;
}

export interface MessageDoc {
  _id: string;
  tenant_id: string;
  agent_id: string;
  session_id: string;
  role: 'user' | 'assistant' | 'tool';
  content: string;
  /**
   * Tool messages: the call and its result. Arguments and output are JSON text: tools return keys
   * (`$ref`, dotted names) that are not safe as stored field names.
   */
  step?: {
    tool: string;
    arguments_json: string;
    output_json?: string;
    error?: string;
    duration_ms: number;
  };
  model?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  latency_ms?: number;
  credits?: number;
  /** Set while the chat's credits are not yet charged (identity was unreachable). */
  charge_pending?: boolean;
  /** Replies: the turn's credit reservations (operation id and amount), closed by its settle. */
  reservations?: Array<{ operation_id: string; amount: number }>;
  created_at: Date;
}

const sessionSchema = new Schema<SessionDoc>(
  {
    _id: { type: String, required: true },
    key: String,
    tenant_id: { type: String, required: true },
    agent_id: { type: String, required: true },
    title: { type: String, default: '' },
    message_count: { type: Number, default: 0 },
    created_at: { type: Date, required: true },
    last_message_at: { type: Date, required: true },
  },
  { collection: 'sessions', versionKey: false },
);
sessionSchema.index({ tenant_id: 1, agent_id: 1, last_message_at: -1 });

const messageSchema = new Schema<MessageDoc>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    agent_id: { type: String, required: true },
    session_id: { type: String, required: true },
    role: { type: String, required: true },
    content: { type: String, required: true },
    step: {
      type: { tool: String, arguments_json: String, output_json: String, error: String, duration_ms: Number },
      _id: false,
    },
    model: String,
    usage: { type: { prompt_tokens: Number, completion_tokens: Number, total_tokens: Number }, _id: false },
    latency_ms: Number,
    credits: Number,
    charge_pending: Boolean,
    reservations: { type: [{ operation_id: String, amount: Number }], default: undefined, _id: false },
    created_at: { type: Date, required: true },
  },
  { collection: 'messages', versionKey: false },
);
messageSchema.index({ tenant_id: 1, session_id: 1, _id: 1 });
messageSchema.index({ tenant_id: 1, agent_id: 1 });
messageSchema.index({ charge_pending: 1 }, { sparse: true });

export function sessionModel(connection: Connection): Model<SessionDoc> {
  return (connection.models.Session as Model<SessionDoc>) ?? connection.model('Session', sessionSchema);
}

export function messageModel(connection: Connection): Model<MessageDoc> {
  return (connection.models.Message as Model<MessageDoc>) ?? connection.model('Message', messageSchema);
}
