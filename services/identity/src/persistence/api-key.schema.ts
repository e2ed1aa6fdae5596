import { Schema } from 'mongoose';

export interface ApiKeyDocument {
  _id: string;
  tenant_id: string;
  created_by: string;
  name: string;
  /** SHA-256 of the full secret; the secret itself is never stored. */
  key_hash: string;
  key_prefix: string;
  scopes: string[];
  expires_at?: Date | null;
  last_used_at?: Date | null;
  revoked_at?: Date | null;
  created_at: Date;
}

export const apiKeySchema = new Schema<ApiKeyDocument>(
  {
    _id: { type: String, required: true },
    tenant_id: { type: String, required: true },
    created_by: { type: String, required: true },
    name: { type: String, required: true },
    key_hash: { type: String, required: true },
    key_prefix: { type: String, required: true },
    scopes: { type: [String], default: [] },
    expires_at: { type: Date, default: null },
    last_used_at: { type: Date, default: null },
    revoked_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'api_keys', versionKey: false },
);
apiKeySchema.index({ key_hash: 1 }, { unique: true });
apiKeySchema.index({ tenant_id: 1, created_at: -1 });
