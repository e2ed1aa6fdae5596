import type { ClientSession, Connection, Model } from 'mongoose';
import { apiKeySchema, type ApiKeyDocument } from './api-key.schema.js';

export interface ApiKey {
  id: string;
  tenantId: string;
  createdBy: string;
  name: string;
  keyHash: string;
  keyPrefix: string;
  scopes: string[];
  expiresAt?: Date;
  lastUsedAt?: Date;
  revokedAt?: Date;
  createdAt: Date;
}

function toApiKey(record: ApiKeyDocument): ApiKey {
  return {
    id: record._id,
    tenantId: record.tenant_id,
    createdBy: record.created_by,
    name: record.name,
    keyHash: record.key_hash,
    keyPrefix: record.key_prefix,
    scopes: record.scopes,
    expiresAt: record.expires_at ?? undefined,
    lastUsedAt: record.last_used_at ?? undefined,
    revokedAt: record.revoked_at ?? undefined,
    createdAt: record.created_at,
  };
}

export class ApiKeyRepository {
  private readonly model: Model<ApiKeyDocument>;

  constructor(connection: Connection) {
    this.model = connection.model<ApiKeyDocument>('ApiKey', apiKeySchema);
  }

  async insert(key: ApiKey): Promise<void> {
    await this.model.create({
      _id: key.id,
      tenant_id: key.tenantId,
      created_by: key.createdBy,
      name: key.name,
      key_hash: key.keyHash,
      key_prefix: key.keyPrefix,
      scopes: key.scopes,
      expires_at: key.expiresAt ?? null,
      created_at: key.createdAt,
    });
  }

  /**
   * The one lookup not scoped by tenant: a presented secret is what tells us the tenant. The hash
   * is the unique index key, so the lookup itself reveals nothing about other keys.
   */
  async findByHash(keyHash: string): Promise<ApiKey | undefined> {
    const record = await this.model.findOne({ key_hash: keyHash }).lean<ApiKeyDocument>();
    return record ? toApiKey(record) : undefined;
  }

  async findActive(tenantId: string, id: string): Promise<ApiKey | undefined> {
    const record = await this.model.findOne({ _id: id, tenant_id: tenantId, revoked_at: null }).lean<ApiKeyDocument>();
    return record ? toApiKey(record) : undefined;
  }

  /** Keys not revoked, newest first; `createdBy` narrows to one user's keys. */
  async listActive(tenantId: string, createdBy?: string): Promise<ApiKey[]> {
    const filter: Record<string, unknown> = { tenant_id: tenantId, revoked_at: null };
    if (createdBy) filter.created_by = createdBy;
    const records = await this.model.find(filter).sort({ created_at: -1, _id: -1 }).limit(500).lean<ApiKeyDocument[]>();
    return records.map(toApiKey);
  }

  async revoke(tenantId: string, id: string, at: Date, session?: ClientSession): Promise<boolean> {
    const result = await this.model.updateOne(
      { _id: id, tenant_id: tenantId, revoked_at: null },
      { $set: { revoked_at: at } },
      { session },
    );
    return result.modifiedCount === 1;
  }

  /** Coarse: writes only when the stored value is older than `olderThan`, not on every request. */
  async touch(tenantId: string, id: string, at: Date, olderThan: Date): Promise<void> {
    await this.model.updateOne(
      { _id: id, tenant_id: tenantId, $or: [{ last_used_at: null }, { last_used_at: { $lt: olderThan } }] },
      { $set: { last_used_at: at } },
    );
  }
}
