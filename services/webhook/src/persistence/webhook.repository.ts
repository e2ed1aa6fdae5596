import type { Connection, Model } from 'mongoose';
import type { GraceSecret } from '../domain/secrets.js';
import type { Webhook, WebhookStatus } from '../domain/types.js';
import { webhookModel, type WebhookRecord } from './webhook.schema.js';

function toWebhook(record: WebhookRecord): Webhook {
  return {
    id: record._id,
    tenantId: record.tenant_id,
    url: record.url,
    events: record.events,
    status: record.status,
    metadata: record.metadata ?? {},
    signingSecret: record.signing_secret,
    previousSecrets: (record.previous_secrets ?? []).map((p) => ({
      secret: p.secret,
      expires_at: new Date(p.expires_at),
    })),
    createdAt: record.created_at,
    updatedAt: record.updated_at,
    failedAt: record.failed_at ?? undefined,
    failureReason: record.failure_reason ?? undefined,
  };
}

export interface WebhookChanges {
  url?: string;
  events?: string[];
  metadata?: Record<string, unknown>;
  status?: WebhookStatus;
}

/** Webhook subscriptions. Every query names the tenant. */
export class WebhookRepository {
  readonly model: Model<WebhookRecord>;

  constructor(connection: Connection) {
    this.model = webhookModel(connection);
  }

  async count(tenantId: string): Promise<number> {
    return this.model.countDocuments({ tenant_id: tenantId });
  }

  async create(webhook: Webhook): Promise<void> {
    await this.model.create({
      _id: webhook.id,
      tenant_id: webhook.tenantId,
      url: webhook.url,
      events: webhook.events,
      status: webhook.status,
      metadata: webhook.metadata,
      signing_secret: webhook.signingSecret,
      previous_secrets: webhook.previousSecrets,
      created_at: webhook.createdAt,
      updated_at: webhook.updatedAt,
    });
  }

  async find(tenantId: string, id: string): Promise<Webhook | undefined> {
    const record = await this.model.findOne({ _id: id, tenant_id: tenantId }).lean<WebhookRecord>();
    return record ? toWebhook(record) : undefined;
  }

  async list(tenantId: string, skip: number, limit: number): Promise<{ items: Webhook[]; total: number }> {
    const [records, total] = await Promise.all([
      this.model.find({ tenant_id: tenantId }).sort({ _id: -1 }).skip(skip).limit(limit).lean<WebhookRecord[]>(),
      this.model.countDocuments({ tenant_id: tenantId }),
    ]);
    return { items: records.map(toWebhook), total };
  }

  /** The active webhooks of several tenants at once (one query per batch of events). */
  /** Every webhook of these tenants, whatever its status. */
  async ofTenants(tenantIds: readonly string[]): Promise<Webhook[]> {
    if (tenantIds.length === 0) return [];
    const records = await this.model.find({ tenant_id: { $in: tenantIds } }).lean<WebhookRecord[]>();
    return records.map(toWebhook);
  }

  /** Webhooks by (tenant, id) pairs, for deliveries claimed by the retry poller. */
  async findMany(keys: ReadonlyArray<{ tenantId: string; id: string }>): Promise<Map<string, Webhook>> {
    if (keys.length === 0) return new Map();
    // Looked up by id alone (an index lookup everywhere, also on the local stand-in); the tenant is checked below.
    const records = await this.model
      .find({ _id: { $in: [...new Set(keys.map((k) => k.id))] } })
      .lean<WebhookRecord[]>();
    const wanted = new Set(keys.map((k) => `${k.tenantId}/${k.id}`));
    return new Map(records.filter((r) => wanted.has(`${r.tenant_id}/${r._id}`)).map((r) => [r._id, toWebhook(r)]));
  }

  async update(tenantId: string, id: string, changes: WebhookChanges, now = new Date()): Promise<Webhook | undefined> {
    const set: Record<string, unknown> = { updated_at: now };
    const unset: Record<string, ''> = {};
    if (changes.url !== undefined) set.url = changes.url;
    if (changes.events !== undefined) set.events = changes.events;
    if (changes.metadata !== undefined) set.metadata = changes.metadata;
    if (changes.status !== undefined) {
      set.status = changes.status;
      // Leaving `failed` (re-enabling, or disabling by hand) clears the failure.
      if (changes.status !== 'failed') Object.assign(unset, { failed_at: '', failure_reason: '' });
    }
    const record = await this.model
      .findOneAndUpdate(
        { _id: id, tenant_id: tenantId },
        { $set: set, ...(Object.keys(unset).length ? { $unset: unset } : {}) },
        { returnDocument: 'after' },
      )
      .lean<WebhookRecord>();
    return record ? toWebhook(record) : undefined;
  }

  async rotateSecret(
    tenantId: string,
    id: string,
    secret: string,
    previous: GraceSecret[],
    now = new Date(),
  ): Promise<Webhook | undefined> {
    const record = await this.model
      .findOneAndUpdate(
        { _id: id, tenant_id: tenantId },
        { $set: { signing_secret: secret, previous_secrets: previous, updated_at: now } },
        { returnDocument: 'after' },
      )
      .lean<WebhookRecord>();
    return record ? toWebhook(record) : undefined;
  }

  /** Marks an active webhook failed; answers whether this call did it. */
  async markFailed(tenantId: string, id: string, reason: string, now = new Date()): Promise<boolean> {
    const result = await this.model.updateOne(
      { _id: id, tenant_id: tenantId, status: 'active' },
      { $set: { status: 'failed', failed_at: now, failure_reason: reason, updated_at: now } },
    );
    return result.modifiedCount > 0;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.model.deleteOne({ _id: id, tenant_id: tenantId });
    return result.deletedCount > 0;
  }
}
