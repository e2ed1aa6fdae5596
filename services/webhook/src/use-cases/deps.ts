import { NotFoundError } from '@agentplatform/service-kit';
import type { Webhook } from '../domain/types.js';
import type { DeliveryDispatch, DeliveryStore, ReceivedEvents, WebhookQuota, WebhookStore } from './ports.js';

/** What the webhook use cases work with, each a port (ports.ts). */
export interface UseCaseDeps {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  events: ReceivedEvents;
  dispatcher: DeliveryDispatch;
  quotas: WebhookQuota;
  settings: {
    allowPrivateUrls: boolean;
    rotationGraceMs: number;
    leaseMs: number;
  };
}

/** The tenant's webhook, or not_found (also for another tenant's id). */
export async function requireWebhook(deps: UseCaseDeps, tenantId: string, id: string): Promise<Webhook> {
  const webhook = await deps.webhooks.find(tenantId, id);
  if (!webhook) throw new NotFoundError('Webhook');
  return webhook;
}
