import { Schema, type Connection, type Model } from 'mongoose';

export interface SessionDocument {
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

export interface MessageDocument {
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
  /**
   * Replies stored by releases before `chat_charges_due`: set while the chat's credits were not
   * yet settled, with the turn's reservations. Startup moves them into due entries.
   */
  charge_pending?: boolean;
  reservations?: ReservationDocument[];
  created_at: Date;
}

export interface ReservationDocument {
  operation_id: string;
  amount: number;
}

/**
 * A chat's charge not settled yet, keyed by its reply's id: what the retry job pages through. The
 * collection holds only unsettled charges (an entry is deleted when its charge settles), so the
 * job's read is of the few due entries, never of the messages.
 */
export interface ChargeDueDocument {
  _id: string;
  tenant_id: string;
  credits: number;
  total_tokens: number;
  /** Absent on charges of replies stored before rounds reserved on their own. */
  reservations?: ReservationDocument[];
  created_at: Date;
}

const sessionSchema = new Schema<SessionDocument>(
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

const messageSchema = new Schema<MessageDocument>(
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

const chargeDueSchema = new Schema<ChargeDueDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    credits: { type: Number, required: true },
    total_tokens: { type: Number, required: true },
    reservations: { type: [{ operation_id: String, amount: Number }], default: undefined, _id: false },
    created_at: { type: Date, required: true },
  },
  { collection: 'chat_charges_due', versionKey: false },
);

export function chargeDueModel(connection: Connection): Model<ChargeDueDocument> {
  return (
    (connection.models.ChatChargeDue as Model<ChargeDueDocument>) ?? connection.model('ChatChargeDue', chargeDueSchema)
  );
}

export function sessionModel(connection: Connection): Model<SessionDocument> {
  return (connection.models.Session as Model<SessionDocument>) ?? connection.model('Session', sessionSchema);
}

export function messageModel(connection: Connection): Model<MessageDocument> {
  return (connection.models.Message as Model<MessageDocument>) ?? connection.model('Message', messageSchema);
}
