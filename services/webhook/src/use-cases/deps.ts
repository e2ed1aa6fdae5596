import { NotFoundError, type QuotaCounter } from '@agentplatform/service-kit';
import type { Dispatcher } from '../delivery/dispatcher.js';
import type { Webhook } from '../domain/types.js';
import type { DeliveryRepository } from '../persistence/delivery.repository.js';
import type { EventRepository } from '../persistence/event.repository.js';
import type { WebhookRepository } from '../persistence/webhook.repository.js';

/** What the webhook use cases work with. */
export interface UseCaseDeps {
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  events: EventRepository;
  dispatcher: Dispatcher;
  /** Webhooks per tenant (docs/design.md section 5). */
  quotas: QuotaCounter;
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
