import type { ClientSession, Connection, Model } from 'mongoose';
import { refreshTokenSchema, type RefreshTokenDocument } from './refresh-token.schema.js';

export interface RefreshToken {
  id: string;
  tokenHash: string;
  familyId: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt?: Date;
  revokedAt?: Date;
}

function toToken(record: RefreshTokenDocument): RefreshToken {
  return {
    id: record._id,
    tokenHash: record.token_hash,
    familyId: record.family_id,
    userId: record.user_id,
    createdAt: record.created_at,
    expiresAt: record.expires_at,
    usedAt: record.used_at ?? undefined,
    revokedAt: record.revoked_at ?? undefined,
  };
}

/** Refresh tokens belong to a user, not a tenant: a login spans the user's tenants. */
export class RefreshTokenRepository {
  private readonly model: Model<RefreshTokenDocument>;

  constructor(connection: Connection) {
    this.model = connection.model<RefreshTokenDocument>('RefreshToken', refreshTokenSchema);
  }

  async insert(token: RefreshToken): Promise<void> {
    await this.model.create({
      _id: token.id,
      token_hash: token.tokenHash,
      family_id: token.familyId,
      user_id: token.userId,
      created_at: token.createdAt,
      expires_at: token.expiresAt,
    });
  }

  async findByHash(tokenHash: string): Promise<RefreshToken | undefined> {
    const record = await this.model.findOne({ token_hash: tokenHash }).lean<RefreshTokenDocument>();
    return record ? toToken(record) : undefined;
  }

  /** Marks a token used if nobody did yet; false means another request used it first. */
  async markUsed(id: string, at: Date): Promise<boolean> {
    const result = await this.model.updateOne({ _id: id, used_at: null, revoked_at: null }, { $set: { used_at: at } });
    return result.modifiedCount === 1;
  }

  /** Revokes every token of a family not revoked yet; returns how many it revoked. */
  async revokeFamily(familyId: string, at: Date, session?: ClientSession): Promise<number> {
    const result = await this.model.updateMany(
      { family_id: familyId, revoked_at: null },
      { $set: { revoked_at: at } },
      { session },
    );
    return result.modifiedCount;
  }

  /** True when any token of the family was revoked: the whole family (the session) is over. */
  async familyRevoked(familyId: string): Promise<boolean> {
    return (await this.model.exists({ family_id: familyId, revoked_at: { $ne: null } })) !== null;
  }

  /** A session is live while its family has a token that is neither revoked nor expired. */
  async sessionLive(familyId: string, now: Date): Promise<boolean> {
    const live = await this.model.exists({ family_id: familyId, revoked_at: null, expires_at: { $gt: now } });
    return live !== null;
  }
}
