import { Schema } from 'mongoose';

/**
 * One JWT signing key pair, shared by every identity replica. The newest generation signs; older
 * ones stay published in the JWKS for a grace period. The unique generation index is the race
 * guard: of two replicas creating the same generation, one insert wins and the other re-reads.
 */
export interface SigningKeyDocument {
  _id: string;
  generation: number;
  alg: string;
  public_jwk: Record<string, string>;
  /**
   * The private JWK as JSON, sealed with the SecretBox (`secret-box`, `key_id` = the data key's
   * id). Older releases stored it unencrypted (`none`) or under JWT_KEY_ENCRYPTION_SECRET
   * (`aes-256-gcm` with iv and tag); identity re-seals those on start.
   */
  private_jwk: {
    scheme: 'secret-box' | 'aes-256-gcm' | 'none';
    data: string;
    key_id?: string;
    iv?: string;
    tag?: string;
  };
  created_at: Date;
  /** Set once the key has left the JWKS and its withdrawal was announced to the gateways. */
  withdrawn_at?: Date | null;
}

export const signingKeySchema = new Schema<SigningKeyDocument>(
  {
    _id: { type: String, required: true },
    generation: { type: Number, required: true },
    alg: { type: String, required: true },
    public_jwk: { type: Schema.Types.Mixed, required: true },
    private_jwk: { type: Schema.Types.Mixed, required: true },
    created_at: { type: Date, required: true },
    withdrawn_at: { type: Date, default: null },
  },
  { collection: 'signing_keys', versionKey: false, minimize: false },
);
signingKeySchema.index({ generation: 1 }, { unique: true });
