import type { ReceivedEnvelope } from '@agentplatform/events';
import { definedFields, InMemoryQuotaCounter, InMemoryTenantRecords } from '@agentplatform/testing/in-memory';
import type { AttemptReport, DispatchJob } from '../delivery/dispatch-job.js';
import type { Delivery, DeliveryStatus, Webhook } from '../domain/types.js';
import type { NewDelivery } from '../persistence/delivery.repository.js';
import type { WebhookChanges } from '../persistence/webhook.repository.js';
import type { UseCaseDeps } from '../use-cases/deps.js';
import type { DeliveryDispatch, DeliveryStore, ReceivedEvents, WebhookStore } from '../use-cases/ports.js';

/** Webhooks in memory, tenant-scoped like the mongoose repository. */
export class InMemoryWebhooks extends InMemoryTenantRecords<Webhook> implements WebhookStore {
  constructor() {
    super((webhook) => webhook.tenantId);
  }
  async create(webhook: Webhook): Promise<void> {
    this.put(webhook);
  }
  async list(tenantId: string, skip: number, limit: number): Promise<{ items: Webhook[]; total: number }> {
    const all = this.of(tenantId).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    return { items: all.slice(skip, skip + limit), total: all.length };
  }
  async update(tenantId: string, id: string, changes: WebhookChanges, now = new Date()): Promise<Webhook | undefined> {
    return this.change(tenantId, id, (webhook) => {
      const updated: Webhook = { ...webhook, ...definedFields(changes), updatedAt: now };
      // Leaving `failed` clears the failure, as the repository does.
      if (changes.status !== undefined && changes.status !== 'failed') {
        delete updated.failedAt;
        delete updated.failureReason;
      }
      return updated;
    });
  }
  rotateSecret: WebhookStore['rotateSecret'] = (tenantId, id, secret, previous, now = new Date()) =>
    this.change(tenantId, id, (webhook) => ({
      ...webhook,
      signingSecret: secret,
      previousSecrets: previous,
      updatedAt: now,
    }));
}

/** Deliveries in memory: the reads and writes the use cases make (leasing is the dispatcher's). */
export class InMemoryDeliveries implements DeliveryStore {
  readonly byId = new Map<string, Delivery>();

  async insertNew(deliveries: readonly NewDelivery[]): Promise<Set<string>> {
    const inserted = new Set<string>();
    for (const d of deliveries) {
      if (this.byId.has(d.id)) continue;
      this.byId.set(d.id, {
        id: d.id,
        tenantId: d.tenantId,
        webhookId: d.webhookId,
        eventId: d.eventId,
        eventType: d.eventType,
        status: 'pending',
        test: d.test ?? false,
        attempts: 0,
        roundAttempts: 0,
        attemptLog: [],
        createdAt: d.createdAt,
      });
      inserted.add(d.id);
    }
    return inserted;
  }
  async list(tenantId: string, webhookId: string, limit: number, status?: DeliveryStatus): Promise<Delivery[]> {
    return this.of(tenantId, webhookId)
      .filter((d) => !status || d.status === status)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, limit);
  }
  async find(tenantId: string, webhookId: string, id: string): Promise<Delivery | undefined> {
    return this.of(tenantId, webhookId).find((d) => d.id === id);
  }
  async requeue(tenantId: string, webhookId: string, id: string, now = new Date()): Promise<Delivery | undefined> {
    const found = await this.find(tenantId, webhookId, id);
    if (!found || found.status === 'pending') return undefined;
    const requeued: Delivery = { ...found, status: 'pending', roundAttempts: 0, nextAttemptAt: now };
    this.byId.set(id, requeued);
    return requeued;
  }
  async requeueFailedSince(tenantId: string, webhookId: string, since: Date, now = new Date()): Promise<number> {
    const failed = this.of(tenantId, webhookId).filter((d) => d.status === 'failed' && !d.test && d.createdAt >= since);
    for (const d of failed) this.byId.set(d.id, { ...d, status: 'pending', roundAttempts: 0, nextAttemptAt: now });
    return failed.length;
  }
  async existingEventIds(tenantId: string, webhookId: string, eventIds: readonly string[]): Promise<Set<string>> {
    return new Set(
      this.of(tenantId, webhookId)
        .map((d) => d.eventId)
        .filter((id) => eventIds.includes(id)),
    );
  }
  async openWebhook(): Promise<void> {
    // No windows here: lists read the map.
  }
  async deleteForWebhook(tenantId: string, webhookId: string): Promise<void> {
    for (const d of this.of(tenantId, webhookId)) this.byId.delete(d.id);
  }
  private of(tenantId: string, webhookId: string): Delivery[] {
    return [...this.byId.values()]
      .filter((d) => d.tenantId === tenantId && d.webhookId === webhookId)
      .map((d) => structuredClone(d));
  }
}

/** The events the service received, per tenant, in arrival order. */
export class InMemoryEvents implements ReceivedEvents {
  readonly received: Array<{ tenantId: string; at: Date; envelope: ReceivedEnvelope }> = [];

  async since(tenantId: string, since: Date, wanted: (type: string) => boolean, limit: number) {
    return this.received
      .filter((r) => r.tenantId === tenantId && r.at >= since && wanted(r.envelope.type))
      .map((r) => r.envelope)
      .slice(0, limit);
  }
}

/** The dispatcher's port as the use cases see it: it counts nudges and answers test sends. */
export class FakeDispatcher implements DeliveryDispatch {
  nudges = 0;
  readonly sent: DispatchJob[] = [];
  reply: AttemptReport['result'] = {
    number: 1,
    attemptedAt: new Date(),
    durationMs: 12,
    responseStatus: 204,
    responseHeaders: {},
    success: true,
  };

  nudge(): void {
    this.nudges += 1;
  }
  async sendNow(job: DispatchJob): Promise<AttemptReport> {
    this.sent.push(job);
    return { result: this.reply, status: this.reply.success ? 'delivered' : 'failed' };
  }
}

/** The webhook use cases' deps, every port in memory. */
export function inMemoryWebhookDeps() {
  const fakes = {
    webhooks: new InMemoryWebhooks(),
    deliveries: new InMemoryDeliveries(),
    events: new InMemoryEvents(),
    dispatcher: new FakeDispatcher(),
    quotas: new InMemoryQuotaCounter(),
    settings: { allowPrivateUrls: false, rotationGraceMs: 60_000, leaseMs: 30_000 },
  };
  const deps: UseCaseDeps = fakes;
  return { fakes, deps };
}
