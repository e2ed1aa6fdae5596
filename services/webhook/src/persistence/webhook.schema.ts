import { Schema, type Connection, type Model } from 'mongoose';
import type { WebhookStatus } from '../domain/types.js';

export interface WebhookDocument {
  _id: string;
  tenant_id: string;
  url: string;
  events: string[];
  status: WebhookStatus;
  metadata: Record<string, unknown>;
  /**
   * The signing secret sealed with the SecretBox (DATA_ENCRYPTION_KEY); the service opens it to
   * sign and never returns it after creation.
   */
  signing_secret_sealed?: string;
  /** Rotated-out secrets still signing, sealed the same way. */
  previous_secrets: Array<{ sealed?: string; secret?: string; expires_at: Date }>;
  /** The data key that sealed this record's secrets; absent on records older releases wrote. */
  secret_key_id?: string;
  /**
   * Older releases stored the secrets in plaintext here and in `previous_secrets[].secret`;
   * the service re-seals such records on start (WebhookRepository.resealSecrets).
   */
  signing_secret?: string;
  created_at: Date;
  updated_at: Date;
  failed_at?: Date | null;
  failure_reason?: string | null;
}

const webhookSchema = new Schema<WebhookDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    status: { type: String, required: true },
    metadata: { type: Schema.Types.Mixed, default: {} },
    signing_secret_sealed: String,
    previous_secrets: { type: [{ _id: false, sealed: String, secret: String, expires_at: Date }], default: [] },
    secret_key_id: String,
    signing_secret: String,
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

export function webhookModel(connection: Connection): Model<WebhookDocument> {
  return (connection.models.Webhook as Model<WebhookDocument>) ?? connection.model('Webhook', webhookSchema);
}
