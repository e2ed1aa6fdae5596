import type { Connection, Model } from 'mongoose';
import { findPage, type SecretBox } from '@agentplatform/service-kit';
import type { GraceSecret } from '../domain/secrets.js';
import type { Webhook, WebhookStatus } from '../domain/types.js';
import { webhookModel, type WebhookDocument } from './webhook.schema.js';

/** What a sealed secret is bound to: its webhook, so it cannot be copied onto another one. */
function sealContext(webhookId: string): string {
  return `webhook:${webhookId}:signing_secret`;
}

export interface WebhookChanges {
  url?: string;
  events?: string[];
  metadata?: Record<string, unknown>;
  status?: WebhookStatus;
}

/**
 * Webhook subscriptions. Every query names the tenant, except the start-up re-sealing, which
 * covers the whole collection. Signing secrets are sealed here on the way in and opened on the
 * way out, so the rest of the service sees plain values and nothing else touches the key.
 */
export class WebhookRepository {
  readonly model: Model<WebhookDocument>;

  constructor(
    connection: Connection,
    private readonly box: SecretBox,
  ) {
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
      ...this.sealSecrets(webhook.id, webhook.signingSecret, webhook.previousSecrets),
      created_at: webhook.createdAt,
      updated_at: webhook.updatedAt,
    });
  }

  /**
   * Seals with the current data key every record whose secrets are in plaintext (written by a
   * release before DATA_ENCRYPTION_KEY) or sealed with a key rotated out since. Each write is
   * conditional on the secret it replaces, so replicas running this together write each record
   * once, and a rotation racing it wins. Answers how many records this call re-sealed.
   */
  async resealSecrets(): Promise<number> {
    // A keyring whose current key has the right id but the wrong bytes fails here, at start,
    // rather than on every delivery.
    const sample = await this.model.findOne({ secret_key_id: this.box.currentKeyId }).lean<WebhookDocument>();
    if (sample) this.readable(sample);
    const stale = await this.model.find({ secret_key_id: { $ne: this.box.currentKeyId } }).lean<WebhookDocument[]>();
    let resealed = 0;
    for (const record of stale) {
      const webhook = this.readable(record);
      const unchanged =
        record.signing_secret_sealed !== undefined
          ? { signing_secret_sealed: record.signing_secret_sealed }
          : { signing_secret: record.signing_secret };
      const result = await this.model.updateOne(
        { _id: record._id, tenant_id: record.tenant_id, ...unchanged },
        {
          $set: this.sealSecrets(webhook.id, webhook.signingSecret, webhook.previousSecrets),
          $unset: { signing_secret: '' },
        },
      );
      resealed += result.modifiedCount;
    }
    return resealed;
  }

  async find(tenantId: string, id: string): Promise<Webhook | undefined> {
    const record = await this.model.findOne({ _id: id, tenant_id: tenantId }).lean<WebhookDocument>();
    return record ? this.toWebhook(record) : undefined;
  }

  async list(tenantId: string, skip: number, limit: number): Promise<{ items: Webhook[]; total: number }> {
    const { docs, total } = await findPage(this.model, { tenant_id: tenantId }, { sort: { _id: -1 }, skip, limit });
    return { items: docs.map((r) => this.toWebhook(r)), total };
  }

  /** The active webhooks of several tenants at once (one query per batch of events). */
  /** Every webhook of these tenants, whatever its status. */
  async ofTenants(tenantIds: readonly string[]): Promise<Webhook[]> {
    if (tenantIds.length === 0) return [];
    const records = await this.model.find({ tenant_id: { $in: tenantIds } }).lean<WebhookDocument[]>();
    return records.map((r) => this.toWebhook(r));
  }

  /** Webhooks by (tenant, id) pairs, for deliveries claimed by the retry poller. */
  async findMany(keys: ReadonlyArray<{ tenantId: string; id: string }>): Promise<Map<string, Webhook>> {
    if (keys.length === 0) return new Map();
    // Looked up by id alone (an index lookup everywhere, also on the local stand-in); the tenant is checked below.
    const records = await this.model
      .find({ _id: { $in: [...new Set(keys.map((k) => k.id))] } })
      .lean<WebhookDocument[]>();
    const wanted = new Set(keys.map((k) => `${k.tenantId}/${k.id}`));
    return new Map(records.filter((r) => wanted.has(`${r.tenant_id}/${r._id}`)).map((r) => [r._id, this.toWebhook(r)]));
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
      .lean<WebhookDocument>();
    return record ? this.toWebhook(record) : undefined;
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
        { $set: { ...this.sealSecrets(id, secret, previous), updated_at: now }, $unset: { signing_secret: '' } },
        { returnDocument: 'after' },
      )
      .lean<WebhookDocument>();
    return record ? this.toWebhook(record) : undefined;
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

  private sealSecrets(id: string, secret: string, previous: readonly GraceSecret[]) {
    const context = sealContext(id);
    return {
      signing_secret_sealed: this.box.seal(secret, context),
      previous_secrets: previous.map((p) => ({ sealed: this.box.seal(p.secret, context), expires_at: p.expires_at })),
      secret_key_id: this.box.currentKeyId,
    };
  }

  /** The webhook, or an error naming the record whose secrets do not open. */
  private readable(record: WebhookDocument): Webhook {
    try {
      return this.toWebhook(record);
    } catch (error) {
      throw new Error(`webhook ${record._id}: ${(error as Error).message}`);
    }
  }

  /** Opens the secrets; plaintext ones (records not yet re-sealed) are read as they are. */
  private toWebhook(record: WebhookDocument): Webhook {
    const context = sealContext(record._id);
    const open = (sealed: string | undefined, plain: string | undefined) =>
      sealed !== undefined ? this.box.open(sealed, context) : (plain ?? '');
    return {
      id: record._id,
      tenantId: record.tenant_id,
      url: record.url,
      events: record.events,
      status: record.status,
      metadata: record.metadata ?? {},
      signingSecret: open(record.signing_secret_sealed, record.signing_secret),
      previousSecrets: (record.previous_secrets ?? []).map((p) => ({
        secret: open(p.sealed, p.secret),
        expires_at: new Date(p.expires_at),
      })),
      createdAt: record.created_at,
      updatedAt: record.updated_at,
      failedAt: record.failed_at ?? undefined,
      failureReason: record.failure_reason ?? undefined,
    };
  }
}
