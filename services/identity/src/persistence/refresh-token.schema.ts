import { Schema } from 'mongoose';

/** One refresh token; only its SHA-256 is stored. Rotation chains tokens of one login in a family. */
export interface RefreshTokenDocument {
  _id: string;
  token_hash: string;
  family_id: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  /** Set when the token was exchanged for a new one; presenting it again is reuse. */
  used_at?: Date | null;
  revoked_at?: Date | null;
}

export const refreshTokenSchema = new Schema<RefreshTokenDocument>(
  {
    _id: { type: String, required: true },
    token_hash: { type: String, required: true },
    family_id: { type: String, required: true },
    user_id: { type: String, required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
    used_at: { type: Date, default: null },
    revoked_at: { type: Date, default: null },
  },
  { collection: 'refresh_tokens', versionKey: false },
);
refreshTokenSchema.index({ token_hash: 1 }, { unique: true });
refreshTokenSchema.index({ family_id: 1 });
// Expired tokens are useless; a day's margin keeps reuse detection working right up to expiry.
refreshTokenSchema.index({ expires_at: 1 }, { expireAfterSeconds: 86_400 });
