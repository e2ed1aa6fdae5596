import { ConflictError, NotFoundError } from '@agentplatform/service-kit';
import type { Delivery } from '../domain/types.js';
import { requireWebhook, type UseCaseDeps } from './deps.js';

/**
 * Queues a finished delivery (delivered or failed) again with a fresh attempt schedule. The
 * webhook must be active: a failed one is re-enabled with PATCH first.
 */
export async function redeliver(
  deps: UseCaseDeps,
  input: { tenantId: string; webhookId: string; deliveryId: string },
): Promise<Delivery> {
  const webhook = await requireWebhook(deps, input.tenantId, input.webhookId);
  if (webhook.status !== 'active')
    throw new ConflictError(`The webhook is ${webhook.status}; set its status to active first`);
  const requeued = await deps.deliveries.requeue(input.tenantId, input.webhookId, input.deliveryId);
  if (!requeued) {
    const existing = await deps.deliveries.find(input.tenantId, input.webhookId, input.deliveryId);
    if (!existing) throw new NotFoundError('Delivery');
    throw new ConflictError('The delivery is still pending');
  }
  deps.dispatcher.nudge();
  return requeued;
}
