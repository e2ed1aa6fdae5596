import { Schema, type Connection, type Model } from 'mongoose';
import type { WebhookStatus } from '../domain/types.js';

export interface WebhookRecord {
  _id: string;
  tenant_id: string;
  url: string;
  events: string[];
  status: WebhookStatus;
  metadata: Record<string, unknown>;
  // The service signs with it, so it is stored as given; it is never returned after creation.
  signing_secret: string;
  previous_secrets: Array<{ secret: string; expires_at: Date }>;
  created_at: Date;
  updated_at: Date;
  failed_at?: Date | null;
  failure_reason?: string | null;
}

const webhookSchema = new Schema<WebhookRecord>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    status: { type: String, required: true },
    metadata: { type: Schema.Types.Mixed, default: {} },
    signing_secret: { type: String, required: true },
    previous_secrets: { type: [{ _id: false, secret: String, expires_at: Date }], default: [] },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    failed_at: Date,
    failure_reason: String,
  },
  { collection: 'webhooks', versionKey: false, minimize: false },
);
// The dispatcher's lookup: a tenant's active webhooks.
webhookSchema.index({ tenant_id: 1, status: 1 });
webhookSchema.index({ tenant_id: 1, _id: -1 });

export function webhookModel(connection: Connection): Model<WebhookRecord> {
  return (connection.models.Webhook as Model<WebhookRecord>) ?? connection.model('Webhook', webhookSchema);
}
