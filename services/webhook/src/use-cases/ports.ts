import type { ReceivedEnvelope } from '@agentplatform/events';
import type { QuotaCounter } from '@agentplatform/service-kit';
import type { AttemptReport, DispatchJob } from '../delivery/dispatch-job.js';
import type { GraceSecret } from '../domain/secrets.js';
import type { Delivery, DeliveryStatus, Webhook } from '../domain/types.js';
import type { NewDelivery } from '../persistence/delivery.repository.js';
import type { WebhookChanges } from '../persistence/webhook.repository.js';

/**
 * The ports the webhook use cases work through: what each rule needs, no more. main.ts binds the
 * mongoose repositories and the dispatcher to them; testing/in-memory.ts binds fakes.
 */

/** The tenant's webhooks; every call names the tenant. */
export interface WebhookStore {
  count(tenantId: string): Promise<number>;
  create(webhook: Webhook): Promise<void>;
  find(tenantId: string, id: string): Promise<Webhook | undefined>;
  list(tenantId: string, skip: number, limit: number): Promise<{ items: Webhook[]; total: number }>;
  update(tenantId: string, id: string, changes: WebhookChanges, now?: Date): Promise<Webhook | undefined>;
  rotateSecret(
    tenantId: string,
    id: string,
    secret: string,
    previous: GraceSecret[],
    now?: Date,
  ): Promise<Webhook | undefined>;
  delete(tenantId: string, id: string): Promise<boolean>;
}

/** Deliveries as the use cases read and start them (leasing and attempts are the dispatcher's). */
export interface DeliveryStore {
  /** Inserts deliveries new to their (webhook, event) pair; answers the ids inserted. */
  insertNew(deliveries: readonly NewDelivery[]): Promise<Set<string>>;
  /** A new webhook: its delivery window is complete from the start (no delivery is older than it). */
  openWebhook(webhookId: string): Promise<void>;
  list(tenantId: string, webhookId: string, limit: number, status?: DeliveryStatus): Promise<Delivery[]>;
  find(tenantId: string, webhookId: string, id: string): Promise<Delivery | undefined>;
  /** A fresh attempt schedule for a finished delivery; undefined when it is still pending. */
  requeue(tenantId: string, webhookId: string, id: string, now?: Date): Promise<Delivery | undefined>;
  requeueFailedSince(tenantId: string, webhookId: string, since: Date, now?: Date): Promise<number>;
  existingEventIds(tenantId: string, webhookId: string, eventIds: readonly string[]): Promise<Set<string>>;
  deleteForWebhook(tenantId: string, webhookId: string): Promise<void>;
}

/** The events this service received, kept for recovery. */
export interface ReceivedEvents {
  since(tenantId: string, since: Date, wanted: (type: string) => boolean, limit: number): Promise<ReceivedEnvelope[]>;
}

/** The dispatcher as the use cases see it. */
export interface DeliveryDispatch {
  /** Pending work was stored: look for it now rather than at the next poll. */
  nudge(): void;
  /** Sends one attempt now (test sends) and answers its outcome. */
  sendNow(job: DispatchJob): Promise<AttemptReport>;
}

/** Webhooks per tenant (docs/design.md section 5). */
export type WebhookQuota = Pick<QuotaCounter, 'acquire' | 'release'>;
