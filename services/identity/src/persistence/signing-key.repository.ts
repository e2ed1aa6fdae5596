import type { ClientSession, Connection, Model } from 'mongoose';
import { signingKeySchema, type SigningKeyDocument } from './signing-key.schema.js';

export type { SigningKeyDocument } from './signing-key.schema.js';

/** Signing keys are platform-wide, not per tenant. */
export class SigningKeyRepository {
  private readonly model: Model<SigningKeyDocument>;

  constructor(connection: Connection) {
    this.model = connection.model<SigningKeyDocument>('SigningKey', signingKeySchema);
  }

  /** The newest keys first. */
  newest(limit: number): Promise<SigningKeyDocument[]> {
    return this.model.find().sort({ generation: -1 }).limit(limit).lean<SigningKeyDocument[]>();
  }

  /** Keys whose private half is not sealed with this data key (stored by older releases, or before a rotation). */
  notSealedWith(keyId: string): Promise<SigningKeyDocument[]> {
    return this.model.find({ 'private_jwk.key_id': { $ne: keyId } }).lean<SigningKeyDocument[]>();
  }

  /** Replaces a private half unless another replica already did; answers whether this call did. */
  async replacePrivateKey(
    id: string,
    previousData: string,
    privateJwk: SigningKeyDocument['private_jwk'],
  ): Promise<boolean> {
    const result = await this.model.updateOne(
      { _id: id, 'private_jwk.data': previousData },
      { $set: { private_jwk: privateJwk } },
    );
    return result.modifiedCount === 1;
  }

  /** Marks a key withdrawn; false when another replica did first (it announces the withdrawal). */
  async markWithdrawn(kid: string, at: Date, session?: ClientSession): Promise<boolean> {
    const result = await this.model.updateOne(
      { _id: kid, withdrawn_at: null },
      { $set: { withdrawn_at: at } },
      { session },
    );
    return result.modifiedCount === 1;
  }

  /** Throws a duplicate-key error when another replica created this generation first. */
  async insert(record: SigningKeyDocument): Promise<void> {
    await this.model.create(record);
  }
}
